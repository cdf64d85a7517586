import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { signInMembership, type StaffCompany } from '../../db/queries/staff-sessions.js';
import { recordAudit, type RequestOrigin } from '../../db/writes/audit.js';
import { DRIVER_APP_ROLES, type DriverAppRole } from './driver-auth.js';
import { createStaffSession, revokeStaffSession, type IssuedStaffSession } from './staff-session.js';
import { checkPassword, invalidCredentials } from './staff-sign-in.js';

/**
 * Driver app sign-in (POST /driver/api/auth/login): the same company user accounts, passwords and
 * server-side sessions as the dashboard (staff_sessions, with their lifetimes and idle limit), for
 * a membership that works a bus (DRIVER, or OWNER, ADMIN, DISPATCHER). The session token is handed
 * to the app, which sends it as Authorization: Bearer; no cookie is set. Every refusal is the
 * dashboard's same 401 INVALID_CREDENTIALS.
 */
export interface SignedInDriver {
  session: IssuedStaffSession;
  user: { id: string; email: string; name: string };
  membership: { id: string; companyId: string; role: DriverAppRole };
  company: StaffCompany;
}

type Deps = { db: Database; config: Pick<Config, 'STAFF_SESSION_TTL_HOURS' | 'COOKIE_SECURE'> };

export async function signInDriver(
  deps: Deps,
  input: { email: string; password: string; companyId?: string | undefined },
  origin: RequestOrigin,
): Promise<SignedInDriver> {
  const user = await checkPassword(deps.db, input.email, input.password);
  if (!user) throw invalidCredentials();
  // A DRIVER membership first: a user who drives for the company and also dispatches opens the driver's.
  const membership =
    (await signInMembership(deps.db, user.id, ['DRIVER'] as const, input.companyId)) ??
    (await signInMembership(deps.db, user.id, DRIVER_APP_ROLES, input.companyId));
  if (!membership) throw invalidCredentials();
  const session = await createStaffSession(deps, { staffUserId: user.id, membershipId: membership.id });
  await recordDriverEvent(
    deps.db,
    'DRIVER_SIGNED_IN',
    user.id,
    membership.company.id,
    session.sessionId,
    origin,
  );
  return {
    session,
    user: { id: user.id, email: user.email, name: user.name },
    membership: { id: membership.id, companyId: membership.company.id, role: membership.role },
    company: membership.company,
  };
}

export async function signOutDriver(
  db: Database,
  driver: { sessionId: string; staffUserId: string; companyId: string },
  origin: RequestOrigin,
): Promise<void> {
  await revokeStaffSession(db, driver.sessionId);
  await recordDriverEvent(
    db,
    'DRIVER_SIGNED_OUT',
    driver.staffUserId,
    driver.companyId,
    driver.sessionId,
    origin,
  );
}

async function recordDriverEvent(
  db: Database,
  action: 'DRIVER_SIGNED_IN' | 'DRIVER_SIGNED_OUT',
  staffUserId: string,
  companyId: string,
  sessionId: string,
  origin: RequestOrigin,
): Promise<void> {
  await recordAudit(db.pool, {
    actorKind: 'DRIVER',
    actorId: staffUserId,
    action,
    targetKind: 'COMPANY',
    targetId: companyId,
    details: { sessionId },
    ip: origin.ip,
    requestId: origin.requestId,
  });
}
