import type { z } from 'zod';
import type { Database } from '../../db/orm.js';
import { secondFactorStatus } from '../../db/queries/admins.js';
import type { AppContext } from '../app.js';
import { currentAdmin, type AdminPrincipal } from '../auth/admin-auth.js';
import {
  confirmEnrolment,
  removeSecondFactor,
  startEnrolment,
  type SecondFactorProof,
} from '../auth/admin-second-factor.js';
import { badRequest } from '../http/errors.js';
import { guardedRoute } from '../http/guarded-route.js';
import type { FailureLimiter } from '../http/rate-limit.js';
import { requestOrigin } from '../http/request-origin.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { firstFactorRoute, judgeCode } from './admin-route.js';
import { openedSession, SecondFactorProofBody } from './schemas.js';
import { ConfirmBody, docs, EnrolBody } from './security.openapi.js';

/** GET, POST, PATCH and DELETE /security/2fa: the signed-in administrator's own authenticator. */
export function registerSecondFactorRoutes(
  surface: Surface,
  context: AppContext,
  secondFactorLimit: FailureLimiter,
): void {
  registerStatusRoute(surface, context);
  registerEnrolRoute(surface, context, secondFactorLimit);
  registerConfirmRoute(surface, context, secondFactorLimit);
  registerRemoveRoute(surface, context, secondFactorLimit);
}

function registerStatusRoute(surface: Surface, { config, db }: AppContext): void {
  const production = config.NODE_ENV === 'production';
  firstFactorRoute(surface, currentAdmin, {
    ...docs.adminSecondFactorStatus,
    method: 'get',
    path: '/security/2fa',
    handler: async (ctx, admin) => ok(ctx, await secondFactorOverview(db, admin, production)),
  });
}

function registerEnrolRoute(surface: Surface, { config, db }: AppContext, limit: FailureLimiter): void {
  firstFactorRoute(surface, currentAdmin, {
    ...docs.adminStartSecondFactorEnrolment,
    method: 'post',
    path: '/security/2fa',
    body: EnrolBody,
    handler: async (ctx, admin, { body }) => {
      const proof = proofOf(body);
      const enrolment = { proof, password: body.password };
      const start = () => startEnrolment({ db, config }, admin, enrolment, requestOrigin(ctx));
      // A code and a password are guessed alike: a wrong one of either counts in the one limit.
      const started =
        proof || body.password !== undefined ? await judgeCode(limit, ctx, admin, start) : await start();
      created(ctx, {
        secret: started.secret,
        otpauthUrl: started.otpauthUrl,
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
        expiresAt: started.expiresAt,
      });
    },
  });
}

function registerConfirmRoute(surface: Surface, { config, db }: AppContext, limit: FailureLimiter): void {
  firstFactorRoute(surface, currentAdmin, {
    ...docs.adminConfirmSecondFactor,
    method: 'patch',
    path: '/security/2fa',
    body: ConfirmBody,
    handler: async (ctx, admin, { body }) => {
      const confirmed = await judgeCode(limit, ctx, admin, () =>
        confirmEnrolment({ db, config }, admin, body.code, requestOrigin(ctx)),
      );
      ok(ctx, {
        enabled: true,
        recoveryCodes: confirmed.recoveryCodes,
        ...openedSession(ctx, config, confirmed.session),
      });
    },
  });
}

function registerRemoveRoute(surface: Surface, { config, db }: AppContext, limit: FailureLimiter): void {
  guardedRoute(surface, 'administrator', currentAdmin, {
    ...docs.adminRemoveSecondFactor,
    method: 'delete',
    path: '/security/2fa',
    body: SecondFactorProofBody,
    handler: async (ctx, admin, { body }) => {
      await judgeCode(limit, ctx, admin, () =>
        removeSecondFactor({ db, config }, admin, body, requestOrigin(ctx)),
      );
      ok(ctx, { enabled: false });
    },
  });
}

/** The administrator's second factor as GET /security/2fa shows it, and whether this session still owes it. */
async function secondFactorOverview(db: Database, admin: AdminPrincipal, production: boolean) {
  const status = await secondFactorStatus(db, admin.adminId, production);
  return { ...status, sessionSecondFactorPending: admin.secondFactorPending };
}

function proofOf(body: z.infer<typeof EnrolBody>): SecondFactorProof | null {
  if (body.code !== undefined && body.recoveryCode !== undefined) {
    throw badRequest('VALIDATION_FAILED', 'Send code or recoveryCode, not both');
  }
  if (body.code !== undefined) return { code: body.code };
  if (body.recoveryCode !== undefined) return { recoveryCode: body.recoveryCode };
  return null;
}
