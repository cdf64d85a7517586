import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { signInMembership } from '../../db/queries/staff-sessions.js';
import { DRIVER_APP_ROLES, type DriverAppRole } from './driver-auth.js';
import {
  signInMember,
  signOutStaff,
  type RequestOrigin,
  type SignedInMember,
  type SignInSurface,
  type StaffSignInInput,
} from './staff-sign-in.js';

/**
 * Driver app sign-in (POST /driver/api/auth/login): the same company user accounts, passwords and
 * server-side sessions as the dashboard (staff_sessions, with their lifetimes and idle limit; marked
 * DRIVER_APP, so its token never opens the dashboard), for
 * a membership that works a bus: DRIVER first (a user who drives for the company and also
 * dispatches opens the driver's), else OWNER, ADMIN or DISPATCHER. The session token is handed to
 * the app, which sends it as Authorization: Bearer; no cookie is set. Every refusal is the
 * dashboard's same 401 INVALID_CREDENTIALS; sign-ins and sign-outs are audited as DRIVER.
 */
const DRIVER_APP: SignInSurface<DriverAppRole> = {
  actorKind: 'DRIVER',
  session: 'DRIVER_APP',
  membership: async (db, staffUserId, companyId) =>
    (await signInMembership(db, staffUserId, ['DRIVER'] as const, companyId)) ??
    (await signInMembership(db, staffUserId, DRIVER_APP_ROLES, companyId)),
};

type Deps = { db: Database; config: Pick<Config, 'STAFF_SESSION_TTL_HOURS' | 'COOKIE_SECURE'> };

export function signInDriver(
  deps: Deps,
  input: StaffSignInInput,
  origin: RequestOrigin,
): Promise<SignedInMember<DriverAppRole>> {
  return signInMember(deps, input, origin, DRIVER_APP);
}

export function signOutDriver(
  db: Database,
  driver: { sessionId: string; staffUserId: string; companyId: string },
  origin: RequestOrigin,
): Promise<void> {
  return signOutStaff(db, driver, origin, 'DRIVER');
}
