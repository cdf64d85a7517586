import type { Context } from 'koa';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { requireActiveCompany } from '../dashboard/guards.js';
import { Refusal } from '../http/errors.js';
import type { Authenticator } from '../http/route.js';
import { checkSessionCsrf } from './csrf.js';
import {
  clearStaffSessionCookies,
  findStaffSession,
  recordStaffActivity,
  STAFF_CSRF_HEADER,
  STAFF_SESSION_COOKIE,
  type StaffPrincipal,
} from './staff-session.js';
import { requiredSessionCookie } from './session-cookie.js';

declare module 'koa' {
  interface DefaultState {
    /** The signed-in company user (dashboard surface); null on public dashboard routes. */
    staff?: StaffPrincipal | null;
  }
}

/**
 * The dashboard surface's authenticator. Every route except the public ones (sign-in) needs a
 * live dashboard session from the bb_staff cookie; a traveller's bearer token or cookie is not
 * one, nor is a session signed in on the driver app (its token in the cookie). State-changing
 * routes also need X-CSRF-Token equal to the session's CSRF secret.
 *   no session cookie                       401 AUTH_REQUIRED
 *   unknown, revoked, expired or idle,
 *   or a driver app session                 401 INVALID_CREDENTIAL (the dead cookies are cleared)
 *   write without the matching CSRF header  403 CSRF_TOKEN_INVALID
 *   write of a suspended company            403 COMPANY_SUSPENDED
 * The suspension check is here, before any input is read, so that every state-changing route
 * (POST, PUT, PATCH, DELETE) of the dashboard refuses a suspended company's staff at once,
 * whichever module declares it. Exempt are the session routes under /auth/ (SUSPENSION_EXEMPT):
 * a suspended company's staff can still sign out. Reads keep working.
 */
export function staffAuthenticator(deps: { db: Database; config: Config }): Authenticator {
  return async (ctx, route) => {
    ctx.state.staff = null;
    if (route.security === 'public') return;
    const token = requiredSessionCookie(ctx, STAFF_SESSION_COOKIE, 'Sign in to the company dashboard');
    const session = await findStaffSession(deps.db, token, deps.config.STAFF_SESSION_IDLE_MINUTES);
    if (!session) {
      clearStaffSessionCookies(ctx, deps.config);
      throw new Refusal(
        401,
        'INVALID_CREDENTIAL',
        'The dashboard session is invalid or has expired; sign in again',
      );
    }
    if (route.csrf) checkStaffCsrf(ctx, session.csrfTokenHash);
    if (changesState(route.method) && !SUSPENSION_EXEMPT.test(route.path))
      requireActiveCompany(session.staff);
    if (session.stale) await recordStaffActivity(deps.db, session.staff.sessionId);
    ctx.state.staff = session.staff;
  };
}

/** Dashboard routes a suspended company's staff may still call with a write: their own session's. */
export const SUSPENSION_EXEMPT = /^\/auth\//;

const changesState = (method: string) => ['post', 'put', 'patch', 'delete'].includes(method);

/** A dashboard session's write: the X-CSRF-Token header must match the session's token (403 otherwise). */
export function checkStaffCsrf(ctx: Context, csrfTokenHash: string): void {
  checkSessionCsrf(
    ctx,
    STAFF_CSRF_HEADER,
    csrfTokenHash,
    'Send the X-CSRF-Token header with the CSRF token of this dashboard session',
  );
}
