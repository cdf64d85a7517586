import type { z } from 'zod';
import { dashboardMemberships } from '../../db/queries/team.js';
import type { AppContext } from '../app.js';
import { registerPasswordLoginRoute } from '../auth/password-login.js';
import {
  clearStaffSessionCookies,
  DASHBOARD_ROLES,
  revokeStaffSessionByToken,
  setStaffSessionCookies,
  STAFF_SESSION_COOKIE,
} from '../auth/staff-session.js';
import { prepareStaffSignIn, signInStaff, signOutStaff, staffLoginLimits } from '../auth/staff-sign-in.js';
import { requestOrigin } from '../http/request-origin.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { Company, docs, LoginBody } from './auth.openapi.js';
import { currentStaff } from './guards.js';
import { staffRoute } from './staff-route.js';

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
  registerPasswordLoginRoute(surface, db, {
    docs: docs.staffLogin,
    body: LoginBody,
    limits: staffLoginLimits(config, 'staff-login'),
    cookie: STAFF_SESSION_COOKIE,
    revokeByToken: (token) => revokeStaffSessionByToken(db, token),
    signIn: (body, origin) => signInStaff({ db, config }, body, origin),
    open: (ctx, signedIn) => {
      setStaffSessionCookies(ctx, config, signedIn.session);
      return {
        user: signedIn.user,
        membership: { companyId: signedIn.membership.companyId, role: signedIn.membership.role },
        company: companyView(signedIn.company),
        csrfToken: signedIn.session.csrfToken,
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
      await signOutStaff(db, currentStaff(ctx), requestOrigin(ctx));
      clearStaffSessionCookies(ctx, config);
      ok(ctx);
    },
  });

  staffRoute(surface, currentStaff, {
    ...docs.staffMe,
    method: 'get',
    path: '/auth/me',
    handler: async (ctx, staff) => {
      ok(ctx, {
        user: { id: staff.staffUserId, email: staff.email, name: staff.name },
        membership: { companyId: staff.companyId, role: staff.role },
        company: companyView(staff.company),
        memberships: await dashboardMemberships(db, staff.staffUserId, DASHBOARD_ROLES),
      });
    },
  });
}
