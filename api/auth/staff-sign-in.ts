import { needsRehash } from 'argon2';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import type { StaffSessionSurface } from '../../domain/team.js';
import {
  signInMembership,
  staffCredentials,
  type SignInMembership,
  type StaffCredentials,
} from '../../db/queries/staff-sessions.js';
import type { AuditEntry, RequestOrigin } from '../../db/writes/audit.js';
import { closeStaffSession, replaceStaffPasswordHash } from '../../db/writes/staff-sessions.js';
import type { PasswordLogin } from './password-login.js';
import { hashPassword, passwordMatches, unknownAccountHash } from './passwords.js';
import {
  createStaffSession,
  DASHBOARD_ROLES,
  invalidCredentials,
  type CompanyRole,
  type IssuedStaffSession,
  type StaffCompany,
} from './staff-session.js';

export type { RequestOrigin };

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

export interface SignedInMember<Role extends string> {
  session: IssuedStaffSession;
  user: { id: string; email: string; name: string };
  membership: { id: string; companyId: string; role: Role };
  company: StaffCompany;
}

export type SignedInStaff = SignedInMember<CompanyRole>;

type Deps = { db: Database; config: Pick<Config, 'STAFF_SESSION_TTL_HOURS' | 'COOKIE_SECURE'> };

export { invalidCredentials };

/**
 * Who signs in where: the dashboard (STAFF, DASHBOARD sessions) or the driver app (DRIVER,
 * DRIVER_APP sessions), and the membership it opens.
 */
export interface SignInSurface<Role extends string> {
  actorKind: 'STAFF' | 'DRIVER';
  /** Recorded on the session: only a DASHBOARD session opens the dashboard. */
  session: StaffSessionSurface;
  membership: (
    db: Database,
    staffUserId: string,
    companyId: string | undefined,
  ) => Promise<SignInMembership<Role> | null>;
}

const DASHBOARD: SignInSurface<CompanyRole> = {
  actorKind: 'STAFF',
  session: 'DASHBOARD',
  membership: (db, staffUserId, companyId) => signInMembership(db, staffUserId, DASHBOARD_ROLES, companyId),
};

/**
 * The attempt limits of a company user's password sign-in (STAFF_LOGIN_*): the dashboard's, which
 * the driver app keeps for the same accounts. Each surface counts its attempts per IP under its own
 * `name`; the failures per e-mail and IP are counted once for both (`staff-login`), so the driver app
 * gives no second set of guesses at a password the dashboard has locked.
 */
export function staffLoginLimits(
  config: Pick<Config, 'STAFF_LOGIN_MAX_PER_IP' | 'STAFF_LOGIN_MAX_PER_EMAIL' | 'STAFF_LOGIN_WINDOW_MINUTES'>,
  name: string,
): PasswordLogin<unknown>['limits'] {
  return {
    name,
    accountName: 'staff-login',
    perIp: config.STAFF_LOGIN_MAX_PER_IP,
    perEmail: config.STAFF_LOGIN_MAX_PER_EMAIL,
    windowMinutes: config.STAFF_LOGIN_WINDOW_MINUTES,
  };
}

export function signInStaff(
  deps: Deps,
  input: StaffSignInInput,
  origin: RequestOrigin,
): Promise<SignedInStaff> {
  return signInMember(deps, input, origin, DASHBOARD);
}

/**
 * Checks the password, then opens a session for the surface's membership and records the sign-in,
 * in one transaction.
 */
export async function signInMember<Role extends string>(
  deps: Deps,
  input: StaffSignInInput,
  origin: RequestOrigin,
  surface: SignInSurface<Role>,
): Promise<SignedInMember<Role>> {
  const user = await checkPassword(deps.db, input.email, input.password);
  if (!user) throw invalidCredentials();
  // A suspended company's users may still sign in and read; its writes are refused by the guards
  // with an explicit COMPANY_SUSPENDED.
  const membership = await surface.membership(deps.db, user.id, input.companyId);
  if (!membership) throw invalidCredentials();
  // The session and its sign-in's audit row commit together: no session without its record.
  const session = await createStaffSession(
    deps,
    { staffUserId: user.id, membershipId: membership.id, surface: surface.session },
    (sessionId) =>
      staffEvent(
        surface.actorKind,
        'SIGNED_IN',
        { staffUserId: user.id, companyId: membership.company.id, sessionId },
        origin,
      ),
  );
  return {
    session,
    user: { id: user.id, email: user.email, name: user.name },
    membership: { id: membership.id, companyId: membership.company.id, role: membership.role },
    company: membership.company,
  };
}

/**
 * Ends the session and records the sign-out, in one transaction; a duplicate of a sign-out that
 * already ended the session (a retry, a double click) answers the same and records nothing.
 */
export async function signOutStaff(
  db: Database,
  staff: { sessionId: string; staffUserId: string; companyId: string },
  origin: RequestOrigin,
  actorKind: SignInSurface<string>['actorKind'] = 'STAFF',
): Promise<void> {
  await closeStaffSession(db, staff.sessionId, staffEvent(actorKind, 'SIGNED_OUT', staff, origin));
}

/** The active user whose password matches, else null after the same work as for a real account. */
async function checkPassword(
  db: Database,
  email: string,
  password: string,
): Promise<StaffCredentials | null> {
  const user = await staffCredentials(db, email);
  if (!user) {
    await passwordMatches(await unknownAccountHash(), password);
    return null;
  }
  const matches = await passwordMatches(user.passwordHash, password);
  if (!matches || user.status !== 'ACTIVE') return null;
  // Hashes made with weaker settings are upgraded while the password is at hand.
  if (needsRehash(user.passwordHash))
    await replaceStaffPasswordHash(db, user.id, await hashPassword(password));
  return user;
}

/** Makes the comparison hash at start-up, so not even the first unknown e-mail answers at a different speed. */
export function prepareStaffSignIn(): void {
  void unknownAccountHash();
}

/** STAFF_SIGNED_IN, DRIVER_SIGNED_OUT, ...: the audit row of a sign-in or sign-out. */
function staffEvent(
  actorKind: SignInSurface<string>['actorKind'],
  what: 'SIGNED_IN' | 'SIGNED_OUT',
  event: { staffUserId: string; companyId: string; sessionId: string },
  origin: RequestOrigin,
): AuditEntry {
  return {
    actorKind,
    actorId: event.staffUserId,
    action: `${actorKind}_${what}`,
    // The company, named as every other row about it (company.*, companies.*) names it.
    targetKind: 'company',
    targetId: event.companyId,
    details: { sessionId: event.sessionId },
    ip: origin.ip,
    requestId: origin.requestId,
  };
}
