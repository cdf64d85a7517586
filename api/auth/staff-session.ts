import type { Context } from 'koa';
import { cookieJar } from '../http/cookies.js';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { STAFF_SESSION_SURFACES, type StaffSessionSurface } from '../../domain/team.js';
import {
  findLiveStaffSession,
  type LiveSession,
  type StaffCompany,
  type StaffSessionMember,
} from '../../db/queries/staff-sessions.js';
import {
  insertStaffSession,
  revokeStaffSessionByToken as revokeByTokenHash,
} from '../../db/writes/staff-sessions.js';
import type { AuditEntry } from '../../db/writes/audit.js';
import { Refusal } from '../http/errors.js';
import { hashSecret, newSessionSecrets } from './secrets.js';

export type { StaffCompany };
export { recordStaffActivity } from '../../db/writes/staff-sessions.js';

/**
 * Company dashboard sessions: a random session token in an HttpOnly cookie, looked up by its hash
 * in staff_sessions, and a CSRF secret the dashboard echoes in X-CSRF-Token on writes (only its
 * hash is stored; a readable cookie lets the page find it again after a reload).
 *
 * A session records where it was signed in (staff_sessions.surface): the dashboard takes only its
 * own (DASHBOARD) sessions, so the bearer token the driver app is given (DRIVER_APP) never opens
 * the dashboard, not even sent as the bb_staff cookie; the driver app takes both (README).
 *
 * Lifetimes (SPEC leaves them open): a session ends STAFF_SESSION_TTL_HOURS (12 h) after sign-in
 * whatever happens, or after STAFF_SESSION_IDLE_MINUTES (60 min) without a request; activity is
 * recorded at most once a minute, so the idle check allows that minute on top (a request 59 minutes
 * after one that was not recorded keeps the session: it ends 60 to 61 minutes after the last request). Logout, a disabled user
 * or a deactivated membership end it at once.
 */
export const STAFF_SESSION_COOKIE = 'bb_staff';
export const STAFF_CSRF_COOKIE = 'bb_staff_csrf';
export const STAFF_CSRF_HEADER = 'X-CSRF-Token';
/** The dashboard page and its API both live under /dashboard; no other path ever sees the cookies. */
const COOKIE_PATH = '/dashboard';
/** last_seen_at is written at most this often, so reads do not each cost a write. */
const ACTIVITY_RESOLUTION_SECONDS = 60;

/** The roles that may use the company dashboard (SPEC "Company roles"); DRIVER belongs to the driver app. */
export const DASHBOARD_ROLES = ['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const;
export type CompanyRole = (typeof DASHBOARD_ROLES)[number];

/** The signed-in company user as every dashboard route sees it (ctx.state.staff). */
export type StaffPrincipal = StaffSessionMember<CompanyRole>;

export interface IssuedStaffSession {
  sessionId: string;
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

type SessionConfig = Pick<Config, 'STAFF_SESSION_TTL_HOURS' | 'COOKIE_SECURE'>;

/** Every refusal of a company user's sign-in: one answer, whatever the reason. */
export const invalidCredentials = () =>
  new Refusal(401, 'INVALID_CREDENTIALS', 'The e-mail or password is not correct');

/**
 * Opens a session of `member` for `surface` (the dashboard's when not named) and, for a sign-in,
 * records it (`signIn`, given the new session's id) in the same transaction; a membership or user
 * no longer active (deactivated while the password was checked) is refused as at sign-in (401).
 */
export async function createStaffSession(
  deps: { db: Database; config: SessionConfig },
  member: { staffUserId: string; membershipId: string; surface?: StaffSessionSurface },
  signIn?: (sessionId: string) => AuditEntry,
): Promise<IssuedStaffSession> {
  const secrets = newSessionSecrets();
  const stored = await insertStaffSession(
    deps.db,
    {
      staffUserId: member.staffUserId,
      membershipId: member.membershipId,
      surface: member.surface ?? 'DASHBOARD',
      ...secrets.hashes,
      ttlHours: deps.config.STAFF_SESSION_TTL_HOURS,
    },
    signIn,
  );
  if (!stored) throw invalidCredentials();
  return secrets.issued(stored.sessionId, stored.expiresAt);
}

function cookieOptions(config: SessionConfig, maxAge: number) {
  return {
    httpOnly: true,
    secure: config.COOKIE_SECURE,
    sameSite: 'strict' as const,
    path: COOKIE_PATH,
    maxAge,
    overwrite: true,
  };
}

export function setStaffSessionCookies(
  ctx: Context,
  config: SessionConfig,
  session: IssuedStaffSession,
): void {
  const maxAge = config.STAFF_SESSION_TTL_HOURS * 3_600_000;
  const jar = cookieJar(ctx, config.COOKIE_SECURE);
  jar.set(STAFF_SESSION_COOKIE, session.token, cookieOptions(config, maxAge));
  // Readable by the dashboard's script, which sends it back in X-CSRF-Token.
  jar.set(STAFF_CSRF_COOKIE, session.csrfToken, { ...cookieOptions(config, maxAge), httpOnly: false });
}

export function clearStaffSessionCookies(ctx: Context, config: SessionConfig): void {
  const jar = cookieJar(ctx, config.COOKIE_SECURE);
  const expired = { ...cookieOptions(config, 0), expires: new Date(0) };
  jar.set(STAFF_SESSION_COOKIE, '', expired);
  jar.set(STAFF_CSRF_COOKIE, '', { ...expired, httpOnly: false });
}

export type LiveStaffSession = LiveSession<CompanyRole>;

/** Every membership role, DRIVER included (the driver app reads the same sessions). */
export const MEMBERSHIP_ROLES = [...DASHBOARD_ROLES, 'DRIVER'] as const;

/**
 * The live session behind a presented token whose membership role is one of `roles` and which was
 * signed in on one of `surfaces`, with its user, membership and company, or null when the token is
 * unknown, revoked, past its absolute or idle limit, its user or membership is no longer active, or
 * the role or surface is not accepted.
 */
export function findLiveSession<Role extends (typeof MEMBERSHIP_ROLES)[number]>(
  db: Database,
  token: string,
  idleMinutes: number,
  accepted: { roles: readonly Role[]; surfaces: readonly StaffSessionSurface[] },
): Promise<LiveSession<Role> | null> {
  const session = {
    tokenHash: hashSecret(token),
    idleMinutes,
    activityResolutionSeconds: ACTIVITY_RESOLUTION_SECONDS,
  };
  return findLiveStaffSession(db, session, accepted);
}

/**
 * The live dashboard session behind a presented token: signed in on the dashboard (a driver app
 * session is none), of a dashboard role.
 */
export function findStaffSession(
  db: Database,
  token: string,
  idleMinutes: number,
): Promise<LiveStaffSession | null> {
  return findLiveSession(db, token, idleMinutes, { roles: DASHBOARD_ROLES, surfaces: ['DASHBOARD'] });
}

/**
 * The live session behind a presented token, of any membership role (DRIVER included) and signed
 * in on either surface: the driver app and the share issuer's bearer tokens read it so that a role
 * they refuse gets 403, not 401.
 */
export function findMembershipSession(
  db: Database,
  token: string,
  idleMinutes: number,
): Promise<LiveSession<(typeof MEMBERSHIP_ROLES)[number]> | null> {
  return findLiveSession(db, token, idleMinutes, {
    roles: MEMBERSHIP_ROLES,
    surfaces: STAFF_SESSION_SURFACES,
  });
}

/**
 * Ends the dashboard session a token names, if any (a new dashboard sign-in replaces the browser's
 * old session); a driver app session's token in the cookie is not the browser's and stays.
 */
export function revokeStaffSessionByToken(db: Database, token: string): Promise<void> {
  return revokeByTokenHash(db, hashSecret(token), 'DASHBOARD');
}
