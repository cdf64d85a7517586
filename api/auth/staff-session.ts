import type { Context } from 'koa';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { hashSecret, newSecret } from './secrets.js';

/**
 * Company dashboard sessions: a random session token in an HttpOnly cookie, looked up by its hash
 * in staff_sessions, and a CSRF secret the dashboard echoes in X-CSRF-Token on writes (only its
 * hash is stored; a readable cookie lets the page find it again after a reload).
 *
 * Lifetimes (SPEC leaves them open): a session ends STAFF_SESSION_TTL_HOURS (12 h) after sign-in
 * whatever happens, or after STAFF_SESSION_IDLE_MINUTES (60 min) without a request; activity is
 * recorded at most once a minute, so idle time is measured to the minute. Logout, a disabled user
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

export interface StaffCompany {
  id: string;
  name_en: string;
  name_ar: string;
  status: 'ACTIVE' | 'SUSPENDED';
  verified: boolean;
  published: boolean;
}

/** The signed-in company user as every dashboard route sees it (ctx.state.staff). */
export interface StaffPrincipal {
  sessionId: string;
  staffUserId: string;
  email: string;
  name: string;
  membershipId: string;
  companyId: string;
  role: CompanyRole;
  company: StaffCompany;
}

export interface IssuedStaffSession {
  sessionId: string;
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

type SessionConfig = Pick<Config, 'STAFF_SESSION_TTL_HOURS' | 'COOKIE_SECURE'>;

export async function createStaffSession(
  deps: { db: Database; config: SessionConfig },
  member: { staffUserId: string; membershipId: string },
): Promise<IssuedStaffSession> {
  const token = newSecret();
  const csrfToken = newSecret(24);
  const [row] = await deps.db.query<{ id: string; expires_at: Date }>(
    `insert into staff_sessions (staff_user_id, membership_id, token_hash, csrf_token_hash, expires_at)
     values ($1, $2, $3, $4, now() + make_interval(hours => $5))
     returning id, expires_at`,
    [
      member.staffUserId,
      member.membershipId,
      hashSecret(token),
      hashSecret(csrfToken),
      deps.config.STAFF_SESSION_TTL_HOURS,
    ],
  );
  return { sessionId: row!.id, token, csrfToken, expiresAt: row!.expires_at };
}

/**
 * The cookies of the session. TLS usually ends at the load balancer, so this hop may be plain
 * http although the browser's is not: with COOKIE_SECURE the cookies are marked Secure anyway.
 */
function cookieJar(ctx: Context, config: SessionConfig) {
  if (config.COOKIE_SECURE) ctx.cookies.secure = true;
  return ctx.cookies;
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
  const jar = cookieJar(ctx, config);
  jar.set(STAFF_SESSION_COOKIE, session.token, cookieOptions(config, maxAge));
  // Readable by the dashboard's script, which sends it back in X-CSRF-Token.
  jar.set(STAFF_CSRF_COOKIE, session.csrfToken, { ...cookieOptions(config, maxAge), httpOnly: false });
}

export function clearStaffSessionCookies(ctx: Context, config: SessionConfig): void {
  const jar = cookieJar(ctx, config);
  const expired = { ...cookieOptions(config, 0), expires: new Date(0) };
  jar.set(STAFF_SESSION_COOKIE, '', expired);
  jar.set(STAFF_CSRF_COOKIE, '', { ...expired, httpOnly: false });
}

export interface LiveStaffSession {
  staff: StaffPrincipal;
  csrfTokenHash: string;
  /** Activity not recorded for a while: the caller refreshes last_seen_at. */
  stale: boolean;
}

/** The company columns of a session or membership read (STAFF_COMPANY_COLUMNS, `c` the companies row). */
export interface StaffCompanyRow {
  company_id: string;
  name_en: string;
  name_ar: string;
  status: 'ACTIVE' | 'SUSPENDED';
  verified: boolean;
  published: boolean;
}

export const STAFF_COMPANY_COLUMNS =
  'c.id as company_id, c.name_en, c.name_ar, c.status, c.verified, c.published';

export function toStaffCompany(row: StaffCompanyRow): StaffCompany {
  return {
    id: row.company_id,
    name_en: row.name_en,
    name_ar: row.name_ar,
    status: row.status,
    verified: row.verified,
    published: row.published,
  };
}

interface SessionRow extends StaffCompanyRow {
  session_id: string;
  csrf_token_hash: string;
  stale: boolean;
  staff_user_id: string;
  email: string;
  name: string;
  membership_id: string;
}

/** Every membership role, DRIVER included (the driver app reads the same sessions). */
export const MEMBERSHIP_ROLES = [...DASHBOARD_ROLES, 'DRIVER'] as const;

/**
 * The live session behind a presented token whose membership role is one of `roles`, with its
 * user, membership and company, or null when the token is unknown, revoked, past its absolute or
 * idle limit, its user or membership is no longer active, or the role is not in `roles`.
 */
export async function findLiveSession<Role extends (typeof MEMBERSHIP_ROLES)[number]>(
  db: Database,
  token: string,
  idleMinutes: number,
  roles: readonly Role[],
): Promise<
  (Omit<LiveStaffSession, 'staff'> & { staff: Omit<StaffPrincipal, 'role'> & { role: Role } }) | null
> {
  const [row] = await db.query<SessionRow & { role: Role }>(
    `select s.id as session_id, s.csrf_token_hash,
            s.last_seen_at < now() - make_interval(secs => $4) as stale,
            u.id as staff_user_id, u.email, u.name,
            m.id as membership_id, m.role, ${STAFF_COMPANY_COLUMNS}
     from staff_sessions s
     join staff_users u on u.id = s.staff_user_id and u.status = 'ACTIVE'
     join company_memberships m on m.id = s.membership_id and m.staff_user_id = u.id and m.active
       and m.role = any($3::text[])
     join companies c on c.id = m.company_id
     where s.token_hash = $1 and s.revoked_at is null and s.expires_at > now()
       and s.last_seen_at > now() - make_interval(mins => $2)`,
    [hashSecret(token), idleMinutes, roles, ACTIVITY_RESOLUTION_SECONDS],
  );
  if (!row) return null;
  return {
    csrfTokenHash: row.csrf_token_hash,
    stale: row.stale,
    staff: {
      sessionId: row.session_id,
      staffUserId: row.staff_user_id,
      email: row.email,
      name: row.name,
      membershipId: row.membership_id,
      companyId: row.company_id,
      role: row.role,
      company: toStaffCompany(row),
    },
  };
}

/** The live dashboard session behind a presented token (roles of the dashboard only). */
export function findStaffSession(
  db: Database,
  token: string,
  idleMinutes: number,
): Promise<LiveStaffSession | null> {
  return findLiveSession(db, token, idleMinutes, DASHBOARD_ROLES);
}

export async function recordStaffActivity(db: Database, sessionId: string): Promise<void> {
  await db.query('update staff_sessions set last_seen_at = now() where id = $1 and revoked_at is null', [
    sessionId,
  ]);
}

export async function revokeStaffSession(db: Database, sessionId: string): Promise<void> {
  await db.query('update staff_sessions set revoked_at = coalesce(revoked_at, now()) where id = $1', [
    sessionId,
  ]);
}

/** Ends the session a token names, if any (a new sign-in replaces the browser's old session). */
export async function revokeStaffSessionByToken(db: Database, token: string): Promise<void> {
  await db.query(
    'update staff_sessions set revoked_at = now() where token_hash = $1 and revoked_at is null',
    [hashSecret(token)],
  );
}
