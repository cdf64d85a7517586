import { z } from 'zod';
import { isoUtc } from '../../db/queries/admins.js';
import type { AppContext } from '../app.js';
import { currentAdmin } from '../auth/admin-auth.js';
import {
  confirmEnrolment,
  ENROLMENT_TTL_MINUTES,
  RECOVERY_CODE_COUNT,
  removeSecondFactor,
  startEnrolment,
  type SecondFactorProof,
} from '../auth/admin-second-factor.js';
import { setAdminSessionCookies } from '../auth/admin-session.js';
import { badRequest } from '../http/errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { DateTime, RecoveryCode, SecondFactorProofBody, TotpCode, origin } from './schemas.js';

const StatusResponse = z.object({
  success: z.literal(true),
  data: z.object({
    enabled: z.boolean().meta({ description: 'an authenticator is set up and confirmed' }),
    required: z.boolean().meta({
      description: 'the account must use a second factor (set by an administrator with admins.manage)',
    }),
    confirmedAt: DateTime.nullable(),
    enrolmentExpiresAt: DateTime.nullable().meta({
      description: 'a new secret waits for its confirming code until then',
    }),
    recoveryCodesLeft: z.int(),
    sessionSecondFactorPending: z
      .boolean()
      .meta({ description: 'this session still owes its second factor' }),
  }),
});

const EnrolBody = z
  .object({
    code: TotpCode.optional().meta({
      description: 'when replacing an authenticator: a code from the current one',
    }),
    recoveryCode: RecoveryCode.optional().meta({
      description: 'when replacing an authenticator: instead of code',
    }),
  })
  .strict();

const EnrolResponse = z.object({
  success: z.literal(true),
  data: z.object({
    secret: z.string().meta({ description: 'base32 secret to type into an authenticator app' }),
    otpauthUrl: z.string().meta({ description: 'otpauth://totp/... URL to show as a QR code' }),
    algorithm: z.literal('SHA1'),
    digits: z.literal(6),
    period: z.literal(30),
    expiresAt: z.int().meta({ description: 'confirm before this time (Unix epoch seconds)' }),
  }),
});

const ConfirmBody = z.object({ code: TotpCode.meta({ description: 'a code from the new secret' }) }).strict();

const ConfirmResponse = z.object({
  success: z.literal(true),
  data: z.object({
    enabled: z.literal(true),
    recoveryCodes: z
      .array(z.string())
      .meta({ description: `${RECOVERY_CODE_COUNT} one-use codes, shown this once` }),
    csrfToken: z
      .string()
      .meta({ description: 'the session was replaced: send this X-CSRF-Token from now on' }),
    expiresAt: z.int(),
  }),
});

const RemovedResponse = z.object({ success: z.literal(true), data: z.object({ enabled: z.literal(false) }) });

const TAGS = ['Administration: second factor'];

interface StatusRow {
  totp_required: boolean;
  confirmed_at: string | null;
  enrolment_expires_at: string | null;
  recovery_codes_left: number;
}

/** GET, POST, PATCH and DELETE /security/2fa: the signed-in administrator's own authenticator. */
export function registerSecondFactorRoutes(
  surface: Surface,
  context: AppContext,
  secondFactorLimit: RateLimiter,
): void {
  const { config, db } = context;
  const deps = { db, config };

  surface.route({
    method: 'get',
    path: '/security/2fa',
    operationId: 'adminSecondFactorStatus',
    summary: "The signed-in administrator's second-factor state",
    description:
      'Answers also while the session still owes its second factor, so the sign-in screen knows what to ask for.',
    tags: TAGS,
    security: 'administratorFirstFactor',
    responses: {
      200: { description: 'Second-factor state', schema: StatusResponse },
      ...errorResponses(401),
    },
    handler: async (ctx) => {
      const admin = currentAdmin(ctx);
      const [row] = await db.query<StatusRow>(
        `select totp_required, ${isoUtc('totp_confirmed_at')} as confirmed_at,
                case when totp_pending_expires_at > now() then ${isoUtc('totp_pending_expires_at')} end as enrolment_expires_at,
                cardinality(recovery_code_hashes) as recovery_codes_left
         from admins where id = $1`,
        [admin.adminId],
      );
      ctx.body = {
        success: true,
        data: {
          enabled: row!.confirmed_at !== null,
          required: row!.totp_required,
          confirmedAt: row!.confirmed_at,
          enrolmentExpiresAt: row!.enrolment_expires_at,
          recoveryCodesLeft: row!.recovery_codes_left,
          sessionSecondFactorPending: admin.secondFactorPending,
        },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/security/2fa',
    operationId: 'adminStartSecondFactorEnrolment',
    summary: 'Set up an authenticator, or start replacing the one in use',
    description:
      'Creates a new TOTP secret (SHA1, 6 digits, 30 s) and answers it with its otpauth:// URL. It is not used until ' +
      `PATCH /security/2fa confirms it with a code, within ${ENROLMENT_TTL_MINUTES} minutes; until then the authenticator in use ` +
      'keeps working. With no authenticator yet the body may be empty; an account that must use a second factor and has ' +
      'none does this right after sign-in. Replacing an authenticator needs a fully signed-in session and {code} from ' +
      'the current one or a {recoveryCode} (400 SECOND_FACTOR_PROOF_REQUIRED without, 400 INVALID_SECOND_FACTOR when ' +
      'wrong). Recorded in the audit log (security.2fa_enrolment_started); the secret never is.',
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
      if (proof) await secondFactorLimit.consume(ctx, admin.adminId);
      const started = await startEnrolment(deps, admin, proof, origin(ctx));
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

  surface.route({
    method: 'patch',
    path: '/security/2fa',
    operationId: 'adminConfirmSecondFactor',
    summary: 'Confirm the new authenticator with a code from it',
    description:
      'The waiting secret becomes the authenticator in use (first set-up or replacement), and ' +
      `${RECOVERY_CODE_COUNT} new one-use recovery codes replace any earlier ones; they are shown only in this answer and kept only as ` +
      'hashes. The session counts as having given its second factor: its cookie and CSRF token are replaced (use the new ' +
      'data.csrfToken), and every other session of this administrator ends. 409 SECOND_FACTOR_ENROLMENT_NOT_STARTED ' +
      'when no secret is waiting (or it expired); 400 INVALID_SECOND_FACTOR for a wrong code. Recorded in the audit log ' +
      '(security.2fa_enabled or security.2fa_changed).',
    tags: TAGS,
    security: 'administratorFirstFactor',
    body: ConfirmBody,
    responses: {
      200: { description: 'Authenticator in use', schema: ConfirmResponse },
      ...errorResponses(400, 401, 403, 409, 429),
    },
    handler: async (ctx, { body }) => {
      const admin = currentAdmin(ctx);
      await secondFactorLimit.consume(ctx, admin.adminId);
      const confirmed = await confirmEnrolment(deps, admin, body.code, origin(ctx));
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

  surface.route({
    method: 'delete',
    path: '/security/2fa',
    operationId: 'adminRemoveSecondFactor',
    summary: 'Remove the authenticator and the recovery codes',
    description:
      'Needs a fully signed-in session and {code} from the authenticator or a {recoveryCode}. Refused with 409 ' +
      'SECOND_FACTOR_REQUIRED_BY_POLICY while the account must use a second factor (replace the authenticator instead), ' +
      'and with 409 SECOND_FACTOR_NOT_ENABLED when there is none. Recorded in the audit log (security.2fa_removed).',
    tags: TAGS,
    security: 'administrator',
    body: SecondFactorProofBody,
    responses: {
      200: { description: 'Second factor removed', schema: RemovedResponse },
      ...errorResponses(400, 401, 403, 409, 429),
    },
    handler: async (ctx, { body }) => {
      const admin = currentAdmin(ctx);
      await secondFactorLimit.consume(ctx, admin.adminId);
      await removeSecondFactor(deps, admin, body, origin(ctx));
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
