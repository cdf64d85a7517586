import { needsRehash } from 'argon2';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { recordAudit } from '../../db/writes/audit.js';
import { Refusal } from '../http/errors.js';
import { hashPassword, passwordMatches, unknownAccountHash } from './passwords.js';
import {
  createStaffSession,
  DASHBOARD_ROLES,
  revokeStaffSession,
  STAFF_COMPANY_COLUMNS,
  toStaffCompany,
  type CompanyRole,
  type IssuedStaffSession,
  type StaffCompany,
  type StaffCompanyRow,
} from './staff-session.js';

/**
 * Company dashboard sign-in with e-mail and password (argon2id). Every refusal is the same 401
 * INVALID_CREDENTIALS with the same message, and an unknown e-mail still costs one argon2
 * verification, so neither the answer nor its timing tells whether an address has an account,
 * is disabled or has no membership.
 */
export interface StaffSignInInput {
  email: string;
  password: string;
  /** The company to sign in to when the user belongs to several; else the oldest membership. */
  companyId?: string | undefined;
}

export interface SignedInStaff {
  session: IssuedStaffSession;
  user: { id: string; email: string; name: string };
  membership: { id: string; companyId: string; role: CompanyRole };
  company: StaffCompany;
}

/** Where a request came from, for the audit log. */
export interface RequestOrigin {
  ip: string;
  requestId: string;
}

type Deps = { db: Database; config: Pick<Config, 'STAFF_SESSION_TTL_HOURS' | 'COOKIE_SECURE'> };

export const invalidCredentials = () =>
  new Refusal(401, 'INVALID_CREDENTIALS', 'The e-mail or password is not correct');

export async function signInStaff(
  deps: Deps,
  input: StaffSignInInput,
  origin: RequestOrigin,
): Promise<SignedInStaff> {
  const user = await checkPassword(deps.db, input.email, input.password);
  if (!user) throw invalidCredentials();
  const membership = await dashboardMembership(deps.db, user.id, input.companyId);
  if (!membership) throw invalidCredentials();
  const session = await createStaffSession(deps, { staffUserId: user.id, membershipId: membership.id });
  await recordStaffEvent(
    deps.db,
    'STAFF_SIGNED_IN',
    { staffUserId: user.id, companyId: membership.company.id, sessionId: session.sessionId },
    origin,
  );
  return {
    session,
    user: { id: user.id, email: user.email, name: user.name },
    membership: { id: membership.id, companyId: membership.company.id, role: membership.role },
    company: membership.company,
  };
}

export async function signOutStaff(
  db: Database,
  staff: { sessionId: string; staffUserId: string; companyId: string },
  origin: RequestOrigin,
): Promise<void> {
  await revokeStaffSession(db, staff.sessionId);
  await recordStaffEvent(db, 'STAFF_SIGNED_OUT', staff, origin);
}

interface StaffUserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  status: 'ACTIVE' | 'DISABLED';
}

/** The active user whose password matches, else null after the same work as for a real account. */
async function checkPassword(db: Database, email: string, password: string): Promise<StaffUserRow | null> {
  const [user] = await db.query<StaffUserRow>(
    'select id, email, name, password_hash, status from staff_users where lower(email) = lower($1)',
    [email],
  );
  if (!user) {
    await passwordMatches(await unknownAccountHash(), password);
    return null;
  }
  const matches = await passwordMatches(user.password_hash, password);
  if (!matches || user.status !== 'ACTIVE') return null;
  if (needsRehash(user.password_hash)) {
    // Hashes made with weaker settings are upgraded while the password is at hand.
    await db.query('update staff_users set password_hash = $2 where id = $1', [
      user.id,
      await hashPassword(password),
    ]);
  }
  return user;
}

/** Makes the comparison hash at start-up, so not even the first unknown e-mail answers at a different speed. */
export function prepareStaffSignIn(): void {
  void unknownAccountHash();
}

interface MembershipRow extends StaffCompanyRow {
  id: string;
  role: CompanyRole;
}

/**
 * The active dashboard membership to open a session for. A suspended company's users may still
 * sign in and read; its writes are refused by the guards with an explicit COMPANY_SUSPENDED.
 */
async function dashboardMembership(db: Database, staffUserId: string, companyId: string | undefined) {
  const [row] = await db.query<MembershipRow>(
    `select m.id, m.role, ${STAFF_COMPANY_COLUMNS}
     from company_memberships m join companies c on c.id = m.company_id
     where m.staff_user_id = $1 and m.active and m.role = any($2::text[]) and ($3::uuid is null or m.company_id = $3)
     order by m.created_at, m.id
     limit 1`,
    [staffUserId, DASHBOARD_ROLES, companyId ?? null],
  );
  return row ? { id: row.id, role: row.role, company: toStaffCompany(row) } : null;
}

async function recordStaffEvent(
  db: Database,
  action: 'STAFF_SIGNED_IN' | 'STAFF_SIGNED_OUT',
  event: { staffUserId: string; companyId: string; sessionId: string },
  origin: RequestOrigin,
): Promise<void> {
  await recordAudit(db.pool, {
    actorKind: 'STAFF',
    actorId: event.staffUserId,
    action,
    targetKind: 'COMPANY',
    targetId: event.companyId,
    details: { sessionId: event.sessionId },
    ip: origin.ip,
    requestId: origin.requestId,
  });
}
