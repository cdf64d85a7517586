import { z } from 'zod';
import type { AppContext } from '../app.js';
import { currentAdmin } from '../auth/admin-auth.js';
import {
  ADMIN_COOKIE,
  clearAdminSessionCookies,
  revokeAdminSessionByToken,
  setAdminSessionCookies,
} from '../auth/admin-session.js';
import { completeSecondFactor, signInAdmin, signOutAdmin } from '../auth/admin-sign-in.js';
import { hashSecret } from '../auth/secrets.js';
import { createRateLimiter, type RateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { OkResponse, origin, SecondFactorProofBody, SignedInAdmin } from './schemas.js';

const LoginBody = z.object({ email: z.email().max(254), password: z.string().min(1).max(1024) }).strict();

const SessionFields = {
  csrfToken: z
    .string()
    .meta({ description: 'send as X-CSRF-Token on every write; also in the readable bb_admin_csrf cookie' }),
  expiresAt: z.int().meta({ description: 'end of the session lifetime, Unix epoch seconds' }),
};

const LoginResponse = z.object({
  success: z.literal(true),
  data: z.object({
    admin: SignedInAdmin,
    secondFactorRequired: z.boolean().meta({
      description: 'true: until POST /auth/2fa succeeds every other route answers 403 SECOND_FACTOR_REQUIRED',
    }),
    enrolmentRequired: z.boolean().meta({
      description: 'true: the account must first set up an authenticator (POST, then PATCH /security/2fa)',
    }),
    ...SessionFields,
  }),
});

const SecondFactorResponse = z.object({
  success: z.literal(true),
  data: z.object({ secondFactorRequired: z.literal(false), ...SessionFields }),
});

const TAGS = ['Administration: authentication'];

/** POST /auth/login, POST /auth/2fa and POST /auth/logout of the administration surface. */
export function registerAdminAuthRoutes(
  surface: Surface,
  context: AppContext,
  secondFactorLimit: RateLimiter,
): void {
  const { config, db } = context;
  const windowSeconds = config.ADMIN_LOGIN_WINDOW_MINUTES * 60;
  const ipLimit = createRateLimiter(db, {
    name: 'admin-login-ip',
    points: config.ADMIN_LOGIN_MAX_PER_IP,
    durationSeconds: windowSeconds,
  });
  const emailLimit = createRateLimiter(db, {
    name: 'admin-login-email',
    points: config.ADMIN_LOGIN_MAX_PER_EMAIL,
    durationSeconds: windowSeconds,
  });

  // Counted per client IP before anything else runs, malformed attempts included.
  surface.router.post(
    '/auth/login',
    ipLimit.middleware((ctx) => ctx.ip),
  );

  surface.route({
    method: 'post',
    path: '/auth/login',
    operationId: 'adminLogin',
    summary: 'Sign in to the administration with e-mail and password',
    description:
      'Checks the password (argon2id) and opens a server-side session: cookie bb_admin (HttpOnly, Secure, SameSite=Strict, ' +
      'Path=/admin/api) plus the readable bb_admin_csrf cookie, whose value (also data.csrfToken) every write sends as ' +
      'X-CSRF-Token. A session ends 8 hours after sign-in (ADMIN_SESSION_TTL_HOURS) or after 30 minutes without a request ' +
      '(ADMIN_SESSION_IDLE_MINUTES), at logout, or when the administrator is disabled. When the account requires a second ' +
      'factor (or has an authenticator set up) the answer says secondFactorRequired and the session is limited to ' +
      'POST /auth/2fa, /security/2fa and POST /auth/logout until a code is given; every other route answers 403 ' +
      'SECOND_FACTOR_REQUIRED. A wrong password, an unknown e-mail and a disabled account all get the same 401 ' +
      'INVALID_CREDENTIALS in the same time. Rate limited, by default to 30 attempts per client IP and 10 per e-mail ' +
      'address in 15 minutes (ADMIN_LOGIN_MAX_PER_IP, ADMIN_LOGIN_MAX_PER_EMAIL, ADMIN_LOGIN_WINDOW_MINUTES), then 429 ' +
      "RATE_LIMITED with Retry-After. Signing in ends the browser's previous administrator session. Recorded in the audit log " +
      '(auth.login, auth.login_failed for a known account).',
    tags: TAGS,
    security: 'public',
    csrf: false,
    body: LoginBody,
    responses: {
      200: { description: 'Signed in; session cookies set', schema: LoginResponse },
      ...errorResponses(400, 401, 429),
    },
    handler: async (ctx, { body }) => {
      await emailLimit.consume(ctx, hashSecret(body.email.toLowerCase()));
      const signedIn = await signInAdmin({ db, config }, body, origin(ctx));
      const previous = ctx.cookies.get(ADMIN_COOKIE);
      if (previous) await revokeAdminSessionByToken(db, previous);
      setAdminSessionCookies(ctx, config, signedIn.session);
      ctx.body = {
        success: true,
        data: {
          admin: signedIn.admin,
          secondFactorRequired: signedIn.secondFactorRequired,
          enrolmentRequired: signedIn.enrolmentRequired,
          csrfToken: signedIn.session.csrfToken,
          expiresAt: signedIn.session.expiresAt,
        },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/auth/2fa',
    operationId: 'adminVerifySecondFactor',
    summary: 'Complete sign-in with an authenticator code or a recovery code',
    description:
      'Send {code} (the 6 digits the authenticator shows; 30-second steps, one step of clock drift either way accepted) ' +
      'or {recoveryCode}. Each code is good once: a code of a step already accepted is refused, and a recovery code is ' +
      'deleted when used. On success the session is complete and both the session cookie and the CSRF token are ' +
      'replaced (use the new data.csrfToken). A wrong, replayed or used code gets 400 INVALID_SECOND_FACTOR. At most 10 ' +
      'codes per administrator in 15 minutes (ADMIN_SECOND_FACTOR_MAX_ATTEMPTS, shared with /security/2fa), then 429. ' +
      '409 SECOND_FACTOR_ENROLMENT_REQUIRED when the account has no authenticator yet; 409 SECOND_FACTOR_NOT_PENDING ' +
      'when the session already gave its second factor. Recorded in the audit log (auth.second_factor, auth.second_factor_failed).',
    tags: TAGS,
    security: 'administratorFirstFactor',
    body: SecondFactorProofBody,
    responses: {
      200: { description: 'Second factor accepted; new session cookies set', schema: SecondFactorResponse },
      ...errorResponses(400, 401, 403, 409, 429),
    },
    handler: async (ctx, { body }) => {
      const admin = currentAdmin(ctx);
      await secondFactorLimit.consume(ctx, admin.adminId);
      const session = await completeSecondFactor({ db, config }, admin, body, origin(ctx));
      setAdminSessionCookies(ctx, config, session);
      ctx.body = {
        success: true,
        data: { secondFactorRequired: false, csrfToken: session.csrfToken, expiresAt: session.expiresAt },
      };
    },
  });

  surface.route({
    method: 'post',
    path: '/auth/logout',
    operationId: 'adminLogout',
    summary: 'End the administrator session',
    description:
      'Revokes the session at once and clears its cookies. Needs X-CSRF-Token like every administration write.',
    tags: TAGS,
    security: 'administratorFirstFactor',
    responses: { 200: { description: 'Signed out', schema: OkResponse }, ...errorResponses(401, 403) },
    handler: async (ctx) => {
      await signOutAdmin(db, currentAdmin(ctx), origin(ctx));
      clearAdminSessionCookies(ctx, config);
      ctx.body = { success: true, data: null };
    },
  });
}
