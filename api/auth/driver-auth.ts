import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { Refusal } from '../http/errors.js';
import type { Authenticator } from '../http/route.js';
import { findMembershipSession, recordStaffActivity } from './staff-session.js';

/**
 * The driver app surface's authenticator (/driver/api). SPEC leaves the driver app's sign-in open
 * beyond "tied to the driver account"; until it has its own, the driver app presents a company
 * user session (staff_sessions, the same rows, lifetimes and idle limit as the dashboard's) as
 * `Authorization: Bearer <session token>`: its own (DRIVER_APP, from its sign-in) or a dashboard
 * session's (the reverse is refused: the dashboard takes only DASHBOARD sessions). A bearer token is never sent by a browser on its own,
 * so these routes need no CSRF header.
 *
 * The membership behind the session must be active and have a role that works a bus: DRIVER, or
 * OWNER, ADMIN or DISPATCHER of the company. Each route then checks that the trip it acts on is
 * of that company (a trip of another company answers 404, as if it did not exist).
 *   no bearer token                                   401 AUTH_REQUIRED
 *   unknown, revoked, expired or idle session         401 INVALID_CREDENTIAL
 *   a membership role that does not work a bus        403 ROLE_NOT_ALLOWED
 */
export const DRIVER_APP_ROLES = ['DRIVER', 'OWNER', 'ADMIN', 'DISPATCHER'] as const;
export type DriverAppRole = (typeof DRIVER_APP_ROLES)[number];

/** The company user behind a driver app request (ctx.state.driver). */
export interface DriverPrincipal {
  sessionId: string;
  staffUserId: string;
  name: string;
  membershipId: string;
  companyId: string;
  /** Whether the company is active: a suspended company's driver app writes are refused. */
  companyStatus: 'ACTIVE' | 'SUSPENDED';
  role: DriverAppRole;
}

declare module 'koa' {
  interface DefaultState {
    driver?: DriverPrincipal | null;
  }
}

function isDriverAppRole(role: string): role is DriverAppRole {
  return (DRIVER_APP_ROLES as readonly string[]).includes(role);
}

function bearerToken(header: string): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

export function driverAuthenticator(deps: {
  db: Database;
  config: Pick<Config, 'STAFF_SESSION_IDLE_MINUTES'>;
}): Authenticator {
  return async (ctx, route) => {
    ctx.state.driver = null;
    if (route.security === 'public') return;
    const token = bearerToken(ctx.get('Authorization'));
    if (!token)
      throw new Refusal(401, 'AUTH_REQUIRED', 'Send the session token as Authorization: Bearer <token>');
    // Every membership role is read here so that a signed-in STAFF user gets 403, not 401.
    const live = await findMembershipSession(deps.db, token, deps.config.STAFF_SESSION_IDLE_MINUTES);
    if (!live)
      throw new Refusal(401, 'INVALID_CREDENTIAL', 'The session is invalid or has expired; sign in again');
    const session = live.staff;
    const role = session.role;
    if (!isDriverAppRole(role)) {
      throw new Refusal(
        403,
        'ROLE_NOT_ALLOWED',
        `The driver app needs one of the roles ${DRIVER_APP_ROLES.join(', ')}`,
        {
          role: session.role,
          allowedRoles: [...DRIVER_APP_ROLES],
        },
      );
    }
    if (live.stale) await recordStaffActivity(deps.db, session.sessionId);
    ctx.state.driver = {
      sessionId: session.sessionId,
      staffUserId: session.staffUserId,
      name: session.name,
      membershipId: session.membershipId,
      companyId: session.companyId,
      companyStatus: session.company.status,
      role,
    };
  };
}
