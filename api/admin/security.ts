import type { z } from 'zod';
import { secondFactorStatus } from '../../db/queries/admins.js';
import type { AppContext } from '../app.js';
import { currentAdmin } from '../auth/admin-auth.js';
import {
  confirmEnrolment,
  removeSecondFactor,
  startEnrolment,
  type SecondFactorProof,
} from '../auth/admin-second-factor.js';
import { setAdminSessionCookies } from '../auth/admin-session.js';
import { badRequest } from '../http/errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { adminAttemptingCode, origin, SecondFactorProofBody } from './schemas.js';
import {
  ConfirmBody,
  ConfirmResponse,
  describe,
  EnrolBody,
  EnrolResponse,
  RemovedResponse,
  StatusResponse,
  TAGS,
} from './security.openapi.js';

/** GET, POST, PATCH and DELETE /security/2fa: the signed-in administrator's own authenticator. */
export function registerSecondFactorRoutes(
  surface: Surface,
  context: AppContext,
  secondFactorLimit: RateLimiter,
): void {
  registerStatusRoute(surface, context);
  registerEnrolRoute(surface, context, secondFactorLimit);
  registerConfirmRoute(surface, context, secondFactorLimit);
  registerRemoveRoute(surface, context, secondFactorLimit);
}

function registerStatusRoute(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/security/2fa',
    operationId: 'adminSecondFactorStatus',
    summary: "The signed-in administrator's second-factor state",
    description: describe.status,
    tags: TAGS,
    security: 'administratorFirstFactor',
    responses: {
      200: { description: 'Second-factor state', schema: StatusResponse },
      ...errorResponses(401),
    },
    handler: async (ctx) => {
      const admin = currentAdmin(ctx);
      const status = await secondFactorStatus(db, admin.adminId);
      ctx.body = {
        success: true,
        data: { ...status, sessionSecondFactorPending: admin.secondFactorPending },
      };
    },
  });
}

function registerEnrolRoute(surface: Surface, { config, db }: AppContext, limit: RateLimiter): void {
  surface.route({
    method: 'post',
    path: '/security/2fa',
    operationId: 'adminStartSecondFactorEnrolment',
    summary: 'Set up an authenticator, or start replacing the one in use',
    description: describe.enrol,
    tags: TAGS,
    security: 'administratorFirstFactor',
    body: EnrolBody,
    responses: {
      201: { description: 'New secret, waiting for its confirming code', schema: EnrolResponse },
      ...errorResponses(400, 401, 403, 429),
    },
    handler: async (ctx, { body }) => {
      const admin = currentAdmin(ctx);
      const proof = proofOf(body);
      if (proof) await limit.consume(ctx, admin.adminId);
      const started = await startEnrolment({ db, config }, admin, proof, origin(ctx));
      ctx.status = 201;
      ctx.body = {
        success: true,
        data: {
          secret: started.secret,
          otpauthUrl: started.otpauthUrl,
          algorithm: 'SHA1',
          digits: 6,
          period: 30,
          expiresAt: started.expiresAt,
        },
      };
    },
  });
}

function registerConfirmRoute(surface: Surface, { config, db }: AppContext, limit: RateLimiter): void {
  surface.route({
    method: 'patch',
    path: '/security/2fa',
    operationId: 'adminConfirmSecondFactor',
    summary: 'Confirm the new authenticator with a code from it',
    description: describe.confirm,
    tags: TAGS,
    security: 'administratorFirstFactor',
    body: ConfirmBody,
    responses: {
      200: { description: 'Authenticator in use', schema: ConfirmResponse },
      ...errorResponses(400, 401, 403, 409, 429),
    },
    handler: async (ctx, { body }) => {
      const admin = await adminAttemptingCode(ctx, limit);
      const confirmed = await confirmEnrolment({ db, config }, admin, body.code, origin(ctx));
      setAdminSessionCookies(ctx, config, confirmed.session);
      ctx.body = {
        success: true,
        data: {
          enabled: true,
          recoveryCodes: confirmed.recoveryCodes,
          csrfToken: confirmed.session.csrfToken,
          expiresAt: confirmed.session.expiresAt,
        },
      };
    },
  });
}

function registerRemoveRoute(surface: Surface, { config, db }: AppContext, limit: RateLimiter): void {
  surface.route({
    method: 'delete',
    path: '/security/2fa',
    operationId: 'adminRemoveSecondFactor',
    summary: 'Remove the authenticator and the recovery codes',
    description: describe.remove,
    tags: TAGS,
    security: 'administrator',
    body: SecondFactorProofBody,
    responses: {
      200: { description: 'Second factor removed', schema: RemovedResponse },
      ...errorResponses(400, 401, 403, 409, 429),
    },
    handler: async (ctx, { body }) => {
      const admin = await adminAttemptingCode(ctx, limit);
      await removeSecondFactor({ db, config }, admin, body, origin(ctx));
      ctx.body = { success: true, data: { enabled: false } };
    },
  });
}

function proofOf(body: z.infer<typeof EnrolBody>): SecondFactorProof | null {
  if (body.code !== undefined && body.recoveryCode !== undefined) {
    throw badRequest('VALIDATION_FAILED', 'Send code or recoveryCode, not both');
  }
  if (body.code !== undefined) return { code: body.code };
  if (body.recoveryCode !== undefined) return { recoveryCode: body.recoveryCode };
  return null;
}
