import { z } from 'zod';
import { DASHBOARD_ROLES } from '../auth/staff-session.js';
import { loginResponses, signOutResponses } from '../auth/password-login.js';
import { Email, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the dashboard's sign-in routes (api/dashboard/auth.ts): request and
 * response schemas, which also validate, and the sign-in prose.
 */

const TAGS = ['Dashboard: authentication'];

const Role = z.enum(DASHBOARD_ROLES);

const StaffUser = z.object({ id: IdText, email: z.string(), name: z.string() });
const Membership = z.object({ companyId: IdText, role: Role });
export const Company = z.object({
  id: IdText,
  name_en: z.string(),
  name_ar: z.string(),
  status: z.enum(['ACTIVE', 'SUSPENDED']),
  verified: z.boolean(),
});

export const LoginBody = z
  .object({
    email: Email(),
    password: z.string().min(1).max(1024),
    companyId: Uuid.optional().meta({
      description:
        'the company to sign in to when the user belongs to several; default: the oldest active membership',
    }),
  })
  .strict();

const LoginResponse = successWith(
  z.object({
    user: StaffUser,
    membership: Membership,
    company: Company,
    csrfToken: z.string().meta({
      description: 'send as X-CSRF-Token on every write; also in the readable bb_staff_csrf cookie',
    }),
  }),
);

const MeResponse = successWith(
  z.object({
    user: StaffUser,
    membership: Membership,
    company: Company,
    memberships: z
      .array(z.object({ companyId: IdText, role: Role, name_en: z.string(), name_ar: z.string() }))
      .meta({
        description: 'every company this user may sign in to; switch by signing in again with companyId',
      }),
  }),
);

const OkResponse = z.object({ success: z.literal(true) });

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  staffLogin: {
    summary: 'Sign in to the company dashboard with e-mail and password',
    description:
      'Checks the password (argon2id) and opens a server-side dashboard session: cookie bb_staff (HttpOnly, Secure, ' +
      'SameSite=Strict, Path=/dashboard) plus the readable bb_staff_csrf cookie, whose value (also data.csrfToken) every ' +
      'write sends as X-CSRF-Token. Only a session opened here is a dashboard session: the token of a driver app sign-in ' +
      '(POST /driver/api/auth/login) sent as bb_staff is 401 INVALID_CREDENTIAL, and a sign-in sent with one leaves it alone, ' +
      "while the browser's previous dashboard session ends. " +
      'By default a session ends 12 hours after sign-in (STAFF_SESSION_TTL_HOURS) or after 60 minutes ' +
      'without a request (STAFF_SESSION_IDLE_MINUTES), at logout, or when the user or membership is deactivated. ' +
      'A user of several companies names one with companyId; otherwise the oldest active membership is used. ' +
      'Roles OWNER, ADMIN, DISPATCHER, STAFF and ACCOUNTANT may sign in. A wrong password, an unknown e-mail, a ' +
      'disabled user and a user without an active membership all get the same 401 INVALID_CREDENTIALS, in the same ' +
      'time. Rate limited, by default to 30 attempts per client IP and 10 failed sign-ins per e-mail address from one ' +
      'client IP (a success never counts and forgets them) in 15 minutes ' +
      '(STAFF_LOGIN_MAX_PER_IP, STAFF_LOGIN_MAX_PER_EMAIL, STAFF_LOGIN_WINDOW_MINUTES), then 429 RATE_LIMITED with Retry-After. Needs no CSRF ' +
      'header: there is no session yet, and the JSON-only body cannot be sent by a cross-site form.',
    responses: loginResponses(LoginResponse),
  },
  staffLogout: {
    summary: 'End the dashboard session',
    description:
      'Revokes the session at once and clears its cookies. Needs X-CSRF-Token like every dashboard write.',
    responses: signOutResponses(OkResponse),
  },
  staffMe: {
    summary: 'The signed-in company user, membership and company',
    description:
      'Needs a dashboard session (bb_staff from POST /auth/login): a driver app token sent as bb_staff is 401 ' +
      'INVALID_CREDENTIAL, as is an unknown, revoked, expired or idle session.',
    responses: answers(200, 'The current session', MeResponse, [401]),
  },
});
