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
import { docs, LoginBody } from './auth.openapi.js';
import { adminAttemptingCode, origin, SecondFactorProofBody } from './schemas.js';

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
    ...docs.adminLogin,
    method: 'post',
    path: '/auth/login',
    security: 'public',
    csrf: false,
    body: LoginBody,
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
    ...docs.adminVerifySecondFactor,
    method: 'post',
    path: '/auth/2fa',
    security: 'administratorFirstFactor',
    body: SecondFactorProofBody,
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
    ...docs.adminLogout,
    method: 'post',
    path: '/auth/logout',
    security: 'administratorFirstFactor',
    handler: async (ctx) => {
      await signOutAdmin(db, currentAdmin(ctx), origin(ctx));
      clearAdminSessionCookies(ctx, config);
      ctx.body = { success: true, data: null };
    },
  });
}
