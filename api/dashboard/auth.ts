import type { Context } from 'koa';
import { z } from 'zod';
import { dashboardMemberships } from '../../db/queries/team.js';
import type { AppContext } from '../app.js';
import { hashSecret } from '../auth/secrets.js';
import {
  clearStaffSessionCookies,
  DASHBOARD_ROLES,
  revokeStaffSessionByToken,
  setStaffSessionCookies,
  STAFF_SESSION_COOKIE,
} from '../auth/staff-session.js';
import { prepareStaffSignIn, signInStaff, signOutStaff, type RequestOrigin } from '../auth/staff-sign-in.js';
import { createRateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { errorResponses, Uuid } from '../http/schemas.js';
import { currentStaff } from './guards.js';

const IdText = z.string().meta({ format: 'uuid' });
const Role = z.enum(DASHBOARD_ROLES);

const StaffUser = z.object({ id: IdText, email: z.string(), name: z.string() });
const Membership = z.object({ companyId: IdText, role: Role });
const Company = z.object({
  id: IdText,
  name_en: z.string(),
  name_ar: z.string(),
  status: z.enum(['ACTIVE', 'SUSPENDED']),
  verified: z.boolean(),
});

const LoginBody = z
  .object({
    email: z.email().max(254),
    password: z.string().min(1).max(1024),
    companyId: Uuid.optional().meta({
      description:
        'the company to sign in to when the user belongs to several; default: the oldest active membership',
    }),
  })
  .strict();

const LoginResponse = z.object({
  success: z.literal(true),
  data: z.object({
    user: StaffUser,
    membership: Membership,
    company: Company,
    csrfToken: z.string().meta({
      description: 'send as X-CSRF-Token on every write; also in the readable bb_staff_csrf cookie',
    }),
  }),
});

const MeResponse = z.object({
  success: z.literal(true),
  data: z.object({
    user: StaffUser,
    membership: Membership,
    company: Company,
    memberships: z
      .array(z.object({ companyId: IdText, role: Role, name_en: z.string(), name_ar: z.string() }))
      .meta({
        description: 'every company this user may sign in to; switch by signing in again with companyId',
      }),
  }),
});

const OkResponse = z.object({ success: z.literal(true) });

const origin = (ctx: Context): RequestOrigin => ({ ip: ctx.ip, requestId: ctx.state.requestId });

const companyView = (company: z.infer<typeof Company>) => {
  const { id, name_en, name_ar, status, verified } = company;
  return { id, name_en, name_ar, status, verified };
};

export function registerStaffAuthRoutes(surface: Surface, context: AppContext): void {
  const { config, db } = context;
  prepareStaffSignIn();
  const windowSeconds = config.STAFF_LOGIN_WINDOW_MINUTES * 60;
  const ipLimit = createRateLimiter(db, {
    name: 'staff-login-ip',
    points: config.STAFF_LOGIN_MAX_PER_IP,
    durationSeconds: windowSeconds,
  });
  const emailLimit = createRateLimiter(db, {
    name: 'staff-login-email',
    points: config.STAFF_LOGIN_MAX_PER_EMAIL,
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
    operationId: 'staffLogin',
    summary: 'Sign in to the company dashboard with e-mail and password',
    description:
      'Checks the password (argon2id) and opens a server-side dashboard session: cookie bb_staff (HttpOnly, Secure, ' +
      'SameSite=Strict, Path=/dashboard) plus the readable bb_staff_csrf cookie, whose value (also data.csrfToken) every ' +
      'write sends as X-CSRF-Token. By default a session ends 12 hours after sign-in (STAFF_SESSION_TTL_HOURS) or after 60 minutes ' +
      'without a request (STAFF_SESSION_IDLE_MINUTES), at logout, or when the user or membership is deactivated. ' +
      'A user of several companies names one with companyId; otherwise the oldest active membership is used. ' +
      'Roles OWNER, ADMIN, DISPATCHER, STAFF and ACCOUNTANT may sign in. A wrong password, an unknown e-mail, a ' +
      'disabled user and a user without an active membership all get the same 401 INVALID_CREDENTIALS, in the same ' +
      'time. Rate limited, by default to 30 attempts per client IP and 10 per e-mail address in 15 minutes ' +
      '(STAFF_LOGIN_MAX_PER_IP, STAFF_LOGIN_MAX_PER_EMAIL, STAFF_LOGIN_WINDOW_MINUTES), then 429 RATE_LIMITED with Retry-After. Needs no CSRF ' +
      'header: there is no session yet, and the JSON-only body cannot be sent by a cross-site form.',
    tags: ['Dashboard: authentication'],
    security: 'public',
    csrf: false,
    body: LoginBody,
    responses: {
      200: { description: 'Signed in; session cookies set', schema: LoginResponse },
      ...errorResponses(400, 401, 429),
    },
    handler: async (ctx, { body }) => {
      await emailLimit.consume(ctx, hashSecret(body.email.toLowerCase()));
      const signedIn = await signInStaff({ db, config }, body, origin(ctx));
      // The browser's previous dashboard session, if any, ends: one browser, one session.
      const previous = ctx.cookies.get(STAFF_SESSION_COOKIE);
      if (previous) await revokeStaffSessionByToken(db, previous);
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

  surface.route({
    method: 'post',
    path: '/auth/logout',
    operationId: 'staffLogout',
    summary: 'End the dashboard session',
    description:
      'Revokes the session at once and clears its cookies. Needs X-CSRF-Token like every dashboard write.',
    tags: ['Dashboard: authentication'],
    security: 'companyStaff',
    responses: { 200: { description: 'Signed out', schema: OkResponse }, ...errorResponses(401, 403) },
    handler: async (ctx) => {
      await signOutStaff(db, currentStaff(ctx), origin(ctx));
      clearStaffSessionCookies(ctx, config);
      ctx.body = { success: true };
    },
  });

  surface.route({
    method: 'get',
    path: '/auth/me',
    operationId: 'staffMe',
    summary: 'The signed-in company user, membership and company',
    tags: ['Dashboard: authentication'],
    security: 'companyStaff',
    responses: { 200: { description: 'The current session', schema: MeResponse }, ...errorResponses(401) },
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
