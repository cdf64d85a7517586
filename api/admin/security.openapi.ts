import { z } from 'zod';
import { PERMISSIONS_NEEDING_SECOND_FACTOR } from '../../domain/permissions.js';
import { ENROLMENT_TTL_MINUTES, RECOVERY_CODE_COUNT } from '../auth/admin-second-factor.js';
import { DateTime, RecoveryCode, TotpCode } from './schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of an administrator's own authenticator routes (api/admin/security.ts):
 * request and response schemas, which also validate, and the prose of each route.
 */

const TAGS = ['Administration: second factor'];

const StatusResponse = successWith(
  z.object({
    enabled: z.boolean().meta({ description: 'an authenticator is set up and confirmed' }),
    required: z.boolean().meta({
      description:
        'the account must use a second factor: its totpRequired (set by an administrator with admins.manage), or in ' +
        `production any of ${PERMISSIONS_NEEDING_SECOND_FACTOR.join(', ')} held by role or by grant`,
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
);

export const EnrolBody = z
  .object({
    password: z.string().min(1).max(1024).optional().meta({
      description: "when setting up the first authenticator: the account's password",
    }),
    code: TotpCode.optional().meta({
      description: 'when replacing an authenticator: a code from the current one',
    }),
    recoveryCode: RecoveryCode.optional().meta({
      description: 'when replacing an authenticator: instead of code',
    }),
  })
  .strict()
  // Not both (400 VALIDATION_FAILED, checked by the route): the document says so.
  .meta({ not: { required: ['code', 'recoveryCode'] } });

const EnrolResponse = successWith(
  z.object({
    secret: z.string().meta({ description: 'base32 secret to type into an authenticator app' }),
    otpauthUrl: z.string().meta({ description: 'otpauth://totp/... URL to show as a QR code' }),
    algorithm: z.literal('SHA1'),
    digits: z.literal(6),
    period: z.literal(30),
    expiresAt: z.int().meta({ description: 'confirm before this time (Unix epoch seconds)' }),
  }),
);

export const ConfirmBody = z
  .object({ code: TotpCode.meta({ description: 'a code from the new secret' }) })
  .strict();

const ConfirmResponse = successWith(
  z.object({
    enabled: z.literal(true),
    recoveryCodes: z
      .array(z.string())
      .meta({ description: `${RECOVERY_CODE_COUNT} one-use codes, shown this once` }),
    csrfToken: z
      .string()
      .meta({ description: 'the session was replaced: send this X-CSRF-Token from now on' }),
    expiresAt: z.int(),
  }),
);

const RemovedResponse = successWith(z.object({ enabled: z.literal(false) }));

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  adminSecondFactorStatus: {
    summary: "The signed-in administrator's second-factor state",
    description:
      'Answers also while the session still owes its second factor, so the sign-in screen knows what to ask for.',
    responses: answers(200, 'Second-factor state', StatusResponse, [401]),
  },
  adminStartSecondFactorEnrolment: {
    summary: 'Set up an authenticator, or start replacing the one in use',
    description:
      'Creates a new TOTP secret (SHA1, 6 digits, 30 s) and answers it with its otpauth:// URL. It is not used until ' +
      `PATCH /security/2fa confirms it with a code, within ${ENROLMENT_TTL_MINUTES} minutes; until then the authenticator in use ` +
      "keeps working. A session alone is not enough: setting up the first authenticator needs the account's {password} " +
      '(400 SECOND_FACTOR_PROOF_REQUIRED without, 401 INVALID_CREDENTIALS when wrong, recorded as auth.login_failed; the ' +
      'session stays); an account that must use a second factor and has none does this right after sign-in. Replacing ' +
      'an authenticator needs a fully signed-in session and {code} from the current one or a {recoveryCode} (400 ' +
      'SECOND_FACTOR_PROOF_REQUIRED without, 400 INVALID_SECOND_FACTOR when wrong). Wrong passwords and wrong codes ' +
      'count in one limit, shared with POST /auth/2fa and PATCH and DELETE /security/2fa: 10 per administrator from one ' +
      'client IP and 50 per administrator from all addresses in 15 minutes (ADMIN_SECOND_FACTOR_MAX_ATTEMPTS, ' +
      'ADMIN_SECOND_FACTOR_MAX_PER_ADMIN), then 429 RATE_LIMITED; what is accepted never counts. Recorded in the audit log (security.2fa_enrolment_started); the secret never is.',
    responses: answers(
      201,
      'New secret, waiting for its confirming code',
      EnrolResponse,
      [400, 401, 403, 429],
    ),
  },
  adminConfirmSecondFactor: {
    summary: 'Confirm the new authenticator with a code from it',
    description:
      'The waiting secret becomes the authenticator in use (first set-up or replacement), and ' +
      `${RECOVERY_CODE_COUNT} new one-use recovery codes replace any earlier ones; they are shown only in this answer and kept only as ` +
      'hashes. The session counts as having given its second factor: its cookie and CSRF token are replaced (use the new ' +
      'data.csrfToken), and every other session of this administrator ends. 409 SECOND_FACTOR_ENROLMENT_NOT_STARTED ' +
      'when no secret is waiting (or it expired); 400 INVALID_SECOND_FACTOR for a wrong code, which counts in the ' +
      'second-factor limit of POST /auth/2fa (10 per administrator from one client IP, 50 from all addresses, in 15 ' +
      'minutes; then 429). Recorded in the audit log ' +
      '(security.2fa_enabled or security.2fa_changed).',
    responses: answers(200, 'Authenticator in use', ConfirmResponse, [400, 401, 403, 409, 429]),
  },
  adminRemoveSecondFactor: {
    summary: 'Remove the authenticator and the recovery codes',
    description:
      'Needs a fully signed-in session and {code} from the authenticator or a {recoveryCode}. Refused with 409 ' +
      'SECOND_FACTOR_REQUIRED_BY_POLICY while the account must use a second factor (GET /security/2fa says required; ' +
      'replace the authenticator instead), ' +
      'and with 409 SECOND_FACTOR_NOT_ENABLED when there is none. A wrong code (400 INVALID_SECOND_FACTOR) counts in the ' +
      'second-factor limit of POST /auth/2fa (10 per administrator from one client IP, 50 from all addresses, in 15 ' +
      'minutes; then 429). Every other session of this administrator ends (one that never gave its second factor ' +
      'must not outlive it); this one stays. Recorded in the audit log (security.2fa_removed).',
    responses: answers(200, 'Second factor removed', RemovedResponse, [400, 401, 403, 409, 429]),
  },
});
