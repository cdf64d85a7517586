import { z } from 'zod';
import { PERMISSIONS_NEEDING_SECOND_FACTOR } from '../../domain/permissions.js';
import { loginResponses, signOutResponses } from '../auth/password-login.js';
import { Email } from '../http/schemas.js';
import { OkResponse, SignedInAdmin } from './schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the administration's sign-in routes (api/admin/auth.ts): request and
 * response schemas, which also validate, and the prose of each route.
 */

const TAGS = ['Administration: authentication'];

export const LoginBody = z.object({ email: Email(), password: z.string().min(1).max(1024) }).strict();

const SessionFields = {
  csrfToken: z
    .string()
    .meta({ description: 'send as X-CSRF-Token on every write; also in the readable bb_admin_csrf cookie' }),
  expiresAt: z.int().meta({ description: 'end of the session lifetime, Unix epoch seconds' }),
};

const LoginResponse = successWith(
  z.object({
    admin: SignedInAdmin,
    secondFactorRequired: z.boolean().meta({
      description: 'true: until POST /auth/2fa succeeds every other route answers 403 SECOND_FACTOR_REQUIRED',
    }),
    enrolmentRequired: z.boolean().meta({
      description: 'true: the account must first set up an authenticator (POST, then PATCH /security/2fa)',
    }),
    ...SessionFields,
  }),
);

const SecondFactorResponse = successWith(
  z.object({ secondFactorRequired: z.literal(false), ...SessionFields }),
);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  adminLogin: {
    summary: 'Sign in to the administration with e-mail and password',
    description:
      'Checks the password (argon2id) and opens a server-side session: cookie bb_admin (HttpOnly, Secure, SameSite=Strict, ' +
      'Path=/admin/api) plus the readable bb_admin_csrf cookie, whose value (also data.csrfToken) every write sends as ' +
      'X-CSRF-Token. A session ends 8 hours after sign-in (ADMIN_SESSION_TTL_HOURS) or after 30 minutes without a request ' +
      '(ADMIN_SESSION_IDLE_MINUTES), at logout, or when the administrator is disabled. When the account requires a second ' +
      'factor (its totpRequired, or in production any of ' +
      `${PERMISSIONS_NEEDING_SECOND_FACTOR.join(', ')} held by role or by grant, whatever the role is called) or has an ` +
      'authenticator set up, the answer says secondFactorRequired and the session is limited to ' +
      'POST /auth/2fa, /security/2fa and POST /auth/logout until a code is given; every other route answers 403 ' +
      'SECOND_FACTOR_REQUIRED. A wrong password, an unknown e-mail and a disabled account all get the same 401 ' +
      'INVALID_CREDENTIALS in the same time. Rate limited, by default to 30 attempts per client IP and 10 failed ' +
      'sign-ins per e-mail address from one client IP (a success never counts and forgets them) in 15 minutes (ADMIN_LOGIN_MAX_PER_IP, ADMIN_LOGIN_MAX_PER_EMAIL, ADMIN_LOGIN_WINDOW_MINUTES), then 429 ' +
      "RATE_LIMITED with Retry-After. Signing in ends the browser's previous administrator session. Recorded in the audit log " +
      '(auth.login, auth.login_failed for a known account).',
    responses: loginResponses(LoginResponse),
  },
  adminVerifySecondFactor: {
    summary: 'Complete sign-in with an authenticator code or a recovery code',
    description:
      'Send {code} (the 6 digits the authenticator shows; 30-second steps, one step of clock drift either way accepted) ' +
      'or {recoveryCode}. Each code is good once: a code of a step already accepted is refused, and a recovery code is ' +
      'deleted when used. On success the session is complete and both the session cookie and the CSRF token are ' +
      'replaced (use the new data.csrfToken). A wrong, replayed or used code gets 400 INVALID_SECOND_FACTOR. Only wrong ' +
      'codes count (an accepted code or another refusal never does): at most 10 per administrator from one client IP ' +
      'and 50 per administrator from all addresses in 15 minutes (ADMIN_SECOND_FACTOR_MAX_ATTEMPTS, ' +
      'ADMIN_SECOND_FACTOR_MAX_PER_ADMIN, shared with /security/2fa), then 429 RATE_LIMITED with Retry-After. ' +
      '409 SECOND_FACTOR_ENROLMENT_REQUIRED when the account has no authenticator yet; 409 SECOND_FACTOR_NOT_PENDING ' +
      'when the session already gave its second factor. Recorded in the audit log (auth.second_factor, auth.second_factor_failed).',
    responses: answers(
      200,
      'Second factor accepted; new session cookies set',
      SecondFactorResponse,
      [400, 401, 403, 409, 429],
    ),
  },
  adminLogout: {
    summary: 'End the administrator session',
    description:
      'Revokes the session at once and clears its cookies. Needs X-CSRF-Token like every administration write.',
    responses: signOutResponses(OkResponse),
  },
});
