import type { Context } from 'koa';
import type { PoolClient } from 'pg';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import type { AdminRole } from '../../domain/permissions.js';
import { hashSecret, newSecret } from './secrets.js';

/**
 * Administrator sessions: a server-side row found by the hash of an HttpOnly cookie. A session
 * lasts ADMIN_SESSION_TTL_HOURS (8 h) from sign-in and ends after ADMIN_SESSION_IDLE_MINUTES
 * (30 min) without a request. Writes carry X-CSRF-Token, checked against the hash stored with the
 * session (the sign-in answer and the readable bb_admin_csrf cookie hand the value out).
 *
 * When the account needs a second factor the session starts limited; passing the factor marks it
 * and replaces both the session and the CSRF secret, so a secret seen before the second factor
 * (planted or observed) is worth nothing after it.
 */
export const ADMIN_COOKIE = 'bb_admin';
export const ADMIN_CSRF_COOKIE = 'bb_admin_csrf';
export const ADMIN_CSRF_HEADER = 'X-CSRF-Token';
/** The pg driver hands timestamps over as text: the end of a session is read as epoch seconds. */
const EXPIRES_AT_EPOCH = 'floor(extract(epoch from expires_at))::float8 as expires_at';
/** The session cookie goes only to the administration API. */
const SESSION_COOKIE_PATH = '/admin/api';

/** Where a request came from, for the audit log. */
export interface RequestOrigin {
  ip: string;
  requestId: string;
}

type SessionConfig = Pick<Config, 'ADMIN_SESSION_TTL_HOURS' | 'ADMIN_SESSION_IDLE_MINUTES' | 'COOKIE_SECURE'>;

export interface IssuedAdminSession {
  sessionId: string;
  token: string;
  csrfToken: string;
  /** End of the session's absolute lifetime, Unix epoch seconds. */
  expiresAt: number;
}

/** A live session and the account behind it, as each request sees them. */
export interface AdminSessionRecord {
  sessionId: string;
  adminId: string;
  email: string;
  name: string;
  role: AdminRole;
  grantedPermissions: string[];
  totpRequired: boolean;
  totpEnabled: boolean;
  secondFactorDone: boolean;
  csrfTokenHash: string;
}

/** Whether the account asks for a second factor the session has not given yet. */
export function secondFactorPending(
  session: Pick<AdminSessionRecord, 'totpRequired' | 'totpEnabled' | 'secondFactorDone'>,
): boolean {
  return (session.totpRequired || session.totpEnabled) && !session.secondFactorDone;
}

export async function issueAdminSession(
  client: Pick<PoolClient, 'query'>,
  config: SessionConfig,
  adminId: string,
): Promise<IssuedAdminSession> {
  const token = newSecret();
  const csrfToken = newSecret(24);
  const { rows } = await client.query<{ id: string; expires_at: number }>(
    `insert into admin_sessions (admin_id, token_hash, csrf_token_hash, expires_at)
     values ($1, $2, $3, now() + make_interval(hours => $4))
     returning id, ${EXPIRES_AT_EPOCH}`,
    [adminId, hashSecret(token), hashSecret(csrfToken), config.ADMIN_SESSION_TTL_HOURS],
  );
  const row = rows[0]!;
  return { sessionId: row.id, token, csrfToken, expiresAt: row.expires_at };
}

/** Marks the second factor as given and replaces the session and CSRF secrets. */
export async function elevateAdminSession(
  client: Pick<PoolClient, 'query'>,
  sessionId: string,
): Promise<IssuedAdminSession> {
  const token = newSecret();
  const csrfToken = newSecret(24);
  const { rows } = await client.query<{ expires_at: number }>(
    `update admin_sessions set second_factor_at = now(), token_hash = $2, csrf_token_hash = $3
     where id = $1 and revoked_at is null
     returning ${EXPIRES_AT_EPOCH}`,
    [sessionId, hashSecret(token), hashSecret(csrfToken)],
  );
  return { sessionId, token, csrfToken, expiresAt: rows[0]!.expires_at };
}

interface SessionRow {
  id: string;
  admin_id: string;
  email: string;
  name: string;
  role: AdminRole;
  permissions: string[];
  totp_required: boolean;
  totp_enabled: boolean;
  second_factor_done: boolean;
  csrf_token_hash: string;
}

/**
 * The live session a cookie names, or null when it is unknown, revoked, past its lifetime, idle
 * too long or its administrator is disabled. Finding it counts as activity (last_seen_at).
 */
export async function touchAdminSession(
  db: Database,
  config: SessionConfig,
  token: string,
): Promise<AdminSessionRecord | null> {
  const [row] = await db.query<SessionRow>(
    `update admin_sessions s set last_seen_at = now()
     from admins a
     where s.token_hash = $1 and a.id = s.admin_id and a.status = 'ACTIVE'
       and s.revoked_at is null and s.expires_at > now()
       and s.last_seen_at > now() - make_interval(mins => $2)
     returning s.id, s.admin_id, a.email, a.name, a.role, a.permissions, a.totp_required,
               a.totp_confirmed_at is not null as totp_enabled, s.second_factor_at is not null as second_factor_done,
               s.csrf_token_hash`,
    [hashSecret(token), config.ADMIN_SESSION_IDLE_MINUTES],
  );
  if (!row) return null;
  return {
    sessionId: row.id,
    adminId: row.admin_id,
    email: row.email,
    name: row.name,
    role: row.role,
    grantedPermissions: row.permissions,
    totpRequired: row.totp_required,
    totpEnabled: row.totp_enabled,
    secondFactorDone: row.second_factor_done,
    csrfTokenHash: row.csrf_token_hash,
  };
}

/** Ends the session a browser still holds when it signs in again: one browser, one session. */
export async function revokeAdminSessionByToken(db: Database, token: string): Promise<void> {
  await db.query(
    'update admin_sessions set revoked_at = now() where token_hash = $1 and revoked_at is null',
    [hashSecret(token)],
  );
}

export async function revokeAdminSession(
  client: Pick<PoolClient, 'query'>,
  sessionId: string,
): Promise<void> {
  await client.query('update admin_sessions set revoked_at = coalesce(revoked_at, now()) where id = $1', [
    sessionId,
  ]);
}

/** Ends every session of an administrator except `keepSessionId` (disabling, changing the authenticator). */
export async function revokeOtherAdminSessions(
  client: Pick<PoolClient, 'query'>,
  adminId: string,
  keepSessionId: string | null = null,
): Promise<void> {
  await client.query(
    `update admin_sessions set revoked_at = now()
     where admin_id = $1 and revoked_at is null and ($2::uuid is null or id <> $2::uuid)`,
    [adminId, keepSessionId],
  );
}

function cookieOptions(config: SessionConfig) {
  return {
    secure: config.COOKIE_SECURE,
    sameSite: 'strict' as const,
    overwrite: true,
    maxAge: config.ADMIN_SESSION_TTL_HOURS * 3_600_000,
  };
}

/**
 * TLS usually ends at the load balancer, so this hop may be plain http although the browser's is
 * not: with COOKIE_SECURE the cookies are marked Secure anyway.
 */
function cookieJar(ctx: Context, config: SessionConfig) {
  if (config.COOKIE_SECURE) ctx.cookies.secure = true;
  return ctx.cookies;
}

export function setAdminSessionCookies(
  ctx: Context,
  config: SessionConfig,
  session: IssuedAdminSession,
): void {
  const base = cookieOptions(config);
  const jar = cookieJar(ctx, config);
  jar.set(ADMIN_COOKIE, session.token, { ...base, httpOnly: true, path: SESSION_COOKIE_PATH });
  // Readable by the administration dashboard's script, which sends it back in X-CSRF-Token.
  jar.set(ADMIN_CSRF_COOKIE, session.csrfToken, { ...base, httpOnly: false, path: '/' });
}

export function clearAdminSessionCookies(ctx: Context, config: SessionConfig): void {
  const base = { ...cookieOptions(config), maxAge: 0, expires: new Date(0) };
  const jar = cookieJar(ctx, config);
  jar.set(ADMIN_COOKIE, '', { ...base, httpOnly: true, path: SESSION_COOKIE_PATH });
  jar.set(ADMIN_CSRF_COOKIE, '', { ...base, httpOnly: false, path: '/' });
}
