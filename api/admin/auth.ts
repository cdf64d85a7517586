import type { AppContext } from '../app.js';
import { currentAdmin } from '../auth/admin-auth.js';
import { ADMIN_COOKIE, clearAdminSessionCookies, revokeAdminSessionByToken } from '../auth/admin-session.js';
import { completeSecondFactor, signInAdmin, signOutAdmin } from '../auth/admin-sign-in.js';
import { registerPasswordLoginRoute } from '../auth/password-login.js';
import type { FailureLimiter } from '../http/rate-limit.js';
import { requestOrigin } from '../http/request-origin.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { docs, LoginBody } from './auth.openapi.js';
import { firstFactorRoute, judgeCode } from './admin-route.js';
import { openedSession, SecondFactorProofBody } from './schemas.js';

/** POST /auth/login, POST /auth/2fa and POST /auth/logout of the administration surface. */
export function registerAdminAuthRoutes(
  surface: Surface,
  context: AppContext,
  secondFactorLimit: FailureLimiter,
): void {
  registerAdminLoginRoute(surface, context);
  registerSecondFactorCheckRoute(surface, context, secondFactorLimit);
  registerAdminLogoutRoute(surface, context);
}

function registerAdminLoginRoute(surface: Surface, { config, db }: AppContext): void {
  registerPasswordLoginRoute(surface, db, {
    docs: docs.adminLogin,
    body: LoginBody,
    limits: {
      name: 'admin-login',
      perIp: config.ADMIN_LOGIN_MAX_PER_IP,
      perEmail: config.ADMIN_LOGIN_MAX_PER_EMAIL,
      windowMinutes: config.ADMIN_LOGIN_WINDOW_MINUTES,
    },
    cookie: ADMIN_COOKIE,
    revokeByToken: (token) => revokeAdminSessionByToken(db, token),
    signIn: (body, origin) => signInAdmin({ db, config }, body, origin),
    open: (ctx, signedIn) => {
      const { admin, secondFactorRequired, enrolmentRequired, session } = signedIn;
      return { admin, secondFactorRequired, enrolmentRequired, ...openedSession(ctx, config, session) };
    },
  });
}

function registerSecondFactorCheckRoute(
  surface: Surface,
  { config, db }: AppContext,
  limit: FailureLimiter,
): void {
  firstFactorRoute(surface, currentAdmin, {
    ...docs.adminVerifySecondFactor,
    method: 'post',
    path: '/auth/2fa',
    body: SecondFactorProofBody,
    handler: async (ctx, admin, { body }) => {
      const session = await judgeCode(limit, ctx, admin, () =>
        completeSecondFactor({ db, config }, admin, body, requestOrigin(ctx)),
      );
      ok(ctx, { secondFactorRequired: false, ...openedSession(ctx, config, session) });
    },
  });
}

function registerAdminLogoutRoute(surface: Surface, { config, db }: AppContext): void {
  firstFactorRoute(surface, currentAdmin, {
    ...docs.adminLogout,
    method: 'post',
    path: '/auth/logout',
    handler: async (ctx, admin) => {
      await signOutAdmin(db, admin, requestOrigin(ctx));
      clearAdminSessionCookies(ctx, config);
      ok(ctx, null);
    },
  });
}
