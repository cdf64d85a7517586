import type { Context } from 'koa';
import type { AppContext } from '../app.js';
import { signInDriver, signOutDriver } from '../auth/driver-sign-in.js';
import { passwordSignInLimits } from '../auth/limits.js';
import type { RequestOrigin } from '../auth/staff-sign-in.js';
import type { Surface } from '../http/route.js';
import { docs, DriverLoginBody } from './auth.openapi.js';
import { currentDriver } from './guards.js';

const origin = (ctx: Context): RequestOrigin => ({ ip: ctx.ip, requestId: ctx.state.requestId });

/** POST /auth/login, POST /auth/logout and GET /auth/me of the driver app (bearer sessions). */
export function registerDriverAuthRoutes(surface: Surface, { config, db }: AppContext): void {
  const limitEmail = passwordSignInLimits(surface, db, {
    name: 'driver-login',
    path: '/auth/login',
    perIp: config.STAFF_LOGIN_MAX_PER_IP,
    perEmail: config.STAFF_LOGIN_MAX_PER_EMAIL,
    windowMinutes: config.STAFF_LOGIN_WINDOW_MINUTES,
  });

  surface.route({
    ...docs.driverLogin,
    method: 'post',
    path: '/auth/login',
    security: 'public',
    csrf: false,
    body: DriverLoginBody,
    handler: async (ctx, { body }) => {
      await limitEmail(ctx, body.email);
      const signedIn = await signInDriver({ db, config }, body, origin(ctx));
      const { id, name_en, name_ar, status } = signedIn.company;
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = {
        success: true,
        data: {
          token: signedIn.session.token,
          expiresAt: Math.floor(signedIn.session.expiresAt.getTime() / 1000),
          user: signedIn.user,
          membership: { companyId: signedIn.membership.companyId, role: signedIn.membership.role },
          company: { id, name_en, name_ar, status },
        },
      };
    },
  });

  surface.route({
    ...docs.driverLogout,
    method: 'post',
    path: '/auth/logout',
    security: 'driver',
    csrf: false,
    handler: async (ctx) => {
      await signOutDriver(db, currentDriver(ctx), origin(ctx));
      ctx.body = { success: true };
    },
  });

  surface.route({
    ...docs.driverMe,
    method: 'get',
    path: '/auth/me',
    security: 'driver',
    handler: async (ctx) => {
      const driver = currentDriver(ctx);
      ctx.body = {
        success: true,
        data: {
          user: { id: driver.staffUserId, name: driver.name },
          membership: { companyId: driver.companyId, role: driver.role },
        },
      };
    },
  });
}
