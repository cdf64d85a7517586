import type { AppContext } from '../app.js';
import { signInDriver, signOutDriver } from '../auth/driver-sign-in.js';
import { registerPasswordLoginRoute } from '../auth/password-login.js';
import { staffLoginLimits } from '../auth/staff-sign-in.js';
import { requestOrigin } from '../http/request-origin.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { docs, DriverLoginBody } from './auth.openapi.js';
import { currentDriver } from './guards.js';

/** POST /auth/login, POST /auth/logout and GET /auth/me of the driver app (bearer sessions). */
export function registerDriverAuthRoutes(surface: Surface, context: AppContext): void {
  registerDriverLoginRoute(surface, context);
  registerDriverSessionRoutes(surface, context);
}

/** The dashboard's password sign-in and limits; the session token is answered, no cookie is set. */
function registerDriverLoginRoute(surface: Surface, { config, db }: AppContext): void {
  registerPasswordLoginRoute(surface, db, {
    docs: docs.driverLogin,
    body: DriverLoginBody,
    limits: staffLoginLimits(config, 'driver-login'),
    signIn: (body, origin) => signInDriver({ db, config }, body, origin),
    open: (ctx, signedIn) => {
      const { id, name_en, name_ar, status } = signedIn.company;
      ctx.set('Cache-Control', 'private, no-store');
      return {
        token: signedIn.session.token,
        expiresAt: Math.floor(signedIn.session.expiresAt.getTime() / 1000),
        user: signedIn.user,
        membership: { companyId: signedIn.membership.companyId, role: signedIn.membership.role },
        company: { id, name_en, name_ar, status },
      };
    },
  });
}

function registerDriverSessionRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.driverLogout,
    method: 'post',
    path: '/auth/logout',
    security: 'driver',
    csrf: false,
    handler: async (ctx) => {
      await signOutDriver(db, currentDriver(ctx), requestOrigin(ctx));
      ok(ctx);
    },
  });

  surface.route({
    ...docs.driverMe,
    method: 'get',
    path: '/auth/me',
    security: 'driver',
    handler: async (ctx) => {
      const driver = currentDriver(ctx);
      ok(ctx, {
        user: { id: driver.staffUserId, name: driver.name },
        membership: { companyId: driver.companyId, role: driver.role },
      });
    },
  });
}
