import type { Context } from 'koa';
import type { z } from 'zod';
import { dashboardMemberships } from '../../db/queries/team.js';
import type { AppContext } from '../app.js';
import { endBrowserSession, passwordSignInLimits } from '../auth/limits.js';
import {
  clearStaffSessionCookies,
  DASHBOARD_ROLES,
  revokeStaffSessionByToken,
  setStaffSessionCookies,
  STAFF_SESSION_COOKIE,
} from '../auth/staff-session.js';
import { prepareStaffSignIn, signInStaff, signOutStaff, type RequestOrigin } from '../auth/staff-sign-in.js';
import type { Surface } from '../http/route.js';
import { Company, docs, LoginBody } from './auth.openapi.js';
import { currentStaff } from './guards.js';

const origin = (ctx: Context): RequestOrigin => ({ ip: ctx.ip, requestId: ctx.state.requestId });

const companyView = (company: z.infer<typeof Company>) => {
  const { id, name_en, name_ar, status, verified } = company;
  return { id, name_en, name_ar, status, verified };
};

/** POST /auth/login, POST /auth/logout and GET /auth/me of the company dashboard. */
export function registerStaffAuthRoutes(surface: Surface, context: AppContext): void {
  prepareStaffSignIn();
  registerStaffLoginRoute(surface, context);
  registerStaffSessionRoutes(surface, context);
}

function registerStaffLoginRoute(surface: Surface, { config, db }: AppContext): void {
  const limitEmail = passwordSignInLimits(surface, db, {
    name: 'staff-login',
    path: '/auth/login',
    perIp: config.STAFF_LOGIN_MAX_PER_IP,
    perEmail: config.STAFF_LOGIN_MAX_PER_EMAIL,
    windowMinutes: config.STAFF_LOGIN_WINDOW_MINUTES,
  });
  surface.route({
    ...docs.staffLogin,
    method: 'post',
    path: '/auth/login',
    security: 'public',
    csrf: false,
    body: LoginBody,
    handler: async (ctx, { body }) => {
      await limitEmail(ctx, body.email);
      const signedIn = await signInStaff({ db, config }, body, origin(ctx));
      await endBrowserSession(ctx, STAFF_SESSION_COOKIE, (token) => revokeStaffSessionByToken(db, token));
      setStaffSessionCookies(ctx, config, signedIn.session);
      ctx.body = {
        success: true,
        data: {
          user: signedIn.user,
          membership: { companyId: signedIn.membership.companyId, role: signedIn.membership.role },
          company: companyView(signedIn.company),
          csrfToken: signedIn.session.csrfToken,
        },
      };
    },
  });
}

/** POST /auth/logout and GET /auth/me: the signed-in session. */
function registerStaffSessionRoutes(surface: Surface, { config, db }: AppContext): void {
  surface.route({
    ...docs.staffLogout,
    method: 'post',
    path: '/auth/logout',
    security: 'companyStaff',
    handler: async (ctx) => {
      await signOutStaff(db, currentStaff(ctx), origin(ctx));
      clearStaffSessionCookies(ctx, config);
      ctx.body = { success: true };
    },
  });

  surface.route({
    ...docs.staffMe,
    method: 'get',
    path: '/auth/me',
    security: 'companyStaff',
    handler: async (ctx) => {
      const staff = currentStaff(ctx);
      ctx.body = {
        success: true,
        data: {
          user: { id: staff.staffUserId, email: staff.email, name: staff.name },
          membership: { companyId: staff.companyId, role: staff.role },
          company: companyView(staff.company),
          memberships: await dashboardMemberships(db, staff.staffUserId, DASHBOARD_ROLES),
        },
      };
    },
  });
}
