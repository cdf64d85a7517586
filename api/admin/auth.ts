import type { AppContext } from '../app.js';
import { currentAdmin } from '../auth/admin-auth.js';
import {
  ADMIN_COOKIE,
  clearAdminSessionCookies,
  revokeAdminSessionByToken,
  setAdminSessionCookies,
} from '../auth/admin-session.js';
import { completeSecondFactor, signInAdmin, signOutAdmin } from '../auth/admin-sign-in.js';
import { endBrowserSession, passwordSignInLimits } from '../auth/limits.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import { describe, LoginBody, LoginResponse, SecondFactorResponse, TAGS } from './auth.openapi.js';
import { adminAttemptingCode, OkResponse, origin, SecondFactorProofBody } from './schemas.js';

/** POST /auth/login, POST /auth/2fa and POST /auth/logout of the administration surface. */
export function registerAdminAuthRoutes(
  surface: Surface,
  context: AppContext,
  secondFactorLimit: RateLimiter,
): void {
  registerAdminLoginRoute(surface, context);
  registerSecondFactorCheckRoute(surface, context, secondFactorLimit);
  registerAdminLogoutRoute(surface, context);
}

function registerAdminLoginRoute(surface: Surface, context: AppContext): void {
  const { config, db } = context;
  const limitEmail = passwordSignInLimits(surface, db, {
    name: 'admin-login',
    path: '/auth/login',
    perIp: config.ADMIN_LOGIN_MAX_PER_IP,
    perEmail: config.ADMIN_LOGIN_MAX_PER_EMAIL,
    windowMinutes: config.ADMIN_LOGIN_WINDOW_MINUTES,
  });
  surface.route({
    method: 'post',
    path: '/auth/login',
    operationId: 'adminLogin',
    summary: 'Sign in to the administration with e-mail and password',
    description: describe.login,
    tags: TAGS,
    security: 'public',
    csrf: false,
    body: LoginBody,
    responses: {
      200: { description: 'Signed in; session cookies set', schema: LoginResponse },
      ...errorResponses(400, 401, 429),
    },
    handler: async (ctx, { body }) => {
      await limitEmail(ctx, body.email);
      const signedIn = await signInAdmin({ db, config }, body, origin(ctx));
      await endBrowserSession(ctx, ADMIN_COOKIE, (token) => revokeAdminSessionByToken(db, token));
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
}

function registerSecondFactorCheckRoute(surface: Surface, context: AppContext, limit: RateLimiter): void {
  const { config, db } = context;
  surface.route({
    method: 'post',
    path: '/auth/2fa',
    operationId: 'adminVerifySecondFactor',
    summary: 'Complete sign-in with an authenticator code or a recovery code',
    description: describe.secondFactor,
    tags: TAGS,
    security: 'administratorFirstFactor',
    body: SecondFactorProofBody,
    responses: {
      200: { description: 'Second factor accepted; new session cookies set', schema: SecondFactorResponse },
      ...errorResponses(400, 401, 403, 409, 429),
    },
    handler: async (ctx, { body }) => {
      const admin = await adminAttemptingCode(ctx, limit);
      const session = await completeSecondFactor({ db, config }, admin, body, origin(ctx));
      setAdminSessionCookies(ctx, config, session);
      ctx.body = {
        success: true,
        data: { secondFactorRequired: false, csrfToken: session.csrfToken, expiresAt: session.expiresAt },
      };
    },
  });
}

function registerAdminLogoutRoute(surface: Surface, { config, db }: AppContext): void {
  surface.route({
    method: 'post',
    path: '/auth/logout',
    operationId: 'adminLogout',
    summary: 'End the administrator session',
    description: describe.logout,
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
