import type { Context } from 'koa';
import { cookieJar } from '../http/cookies.js';
import type { PoolClient } from 'pg';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import {
  insertAdminSession,
  revokeAdminSessionByToken as revokeByTokenHash,
  touchAdminSession as touchByTokenHash,
  type AdminSessionRecord,
} from '../../db/writes/admin-sessions.js';
import { hashSecret, newSessionSecrets } from './secrets.js';

export type { AdminSessionRecord };
export type { RequestOrigin } from '../../db/writes/audit.js';

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
/** The session cookie goes only to the administration API. */
const SESSION_COOKIE_PATH = '/admin/api';

type SessionConfig = Pick<Config, 'ADMIN_SESSION_TTL_HOURS' | 'ADMIN_SESSION_IDLE_MINUTES' | 'COOKIE_SECURE'>;

export interface IssuedAdminSession {
  sessionId: string;
  token: string;
  csrfToken: string;
  /** End of the session's absolute lifetime, Unix epoch seconds. */
  expiresAt: number;
}

/** Whether the account asks for a second factor the session has not given yet. */
export function secondFactorPending(
  session: Pick<AdminSessionRecord, 'totpRequired' | 'totpEnabled' | 'secondFactorDone'>,
): boolean {
  return (session.totpRequired || session.totpEnabled) && !session.secondFactorDone;
}

/** A session for `adminId` written with `client` (a transaction, or the pool). */
export async function issueAdminSession(
  client: Pick<PoolClient, 'query'>,
  config: SessionConfig,
  adminId: string,
): Promise<IssuedAdminSession> {
  const secrets = newSessionSecrets();
  const stored = await insertAdminSession(client, {
    adminId,
    ...secrets.hashes,
    ttlHours: config.ADMIN_SESSION_TTL_HOURS,
  });
  return secrets.issued(stored.sessionId, stored.expiresAt);
}

/**
 * The live session a cookie names, or null when it is unknown, revoked, past its lifetime, idle
 * too long or its administrator is disabled. Finding it counts as activity (last_seen_at).
 */
export function touchAdminSession(
  db: Database,
  config: SessionConfig,
  token: string,
): Promise<AdminSessionRecord | null> {
  return touchByTokenHash(db, hashSecret(token), config.ADMIN_SESSION_IDLE_MINUTES);
}

/** Ends the session a browser still holds when it signs in again: one browser, one session. */
export function revokeAdminSessionByToken(db: Database, token: string): Promise<void> {
  return revokeByTokenHash(db, hashSecret(token));
}

function cookieOptions(config: SessionConfig) {
  return {
    secure: config.COOKIE_SECURE,
    sameSite: 'strict' as const,
    overwrite: true,
    maxAge: config.ADMIN_SESSION_TTL_HOURS * 3_600_000,
  };
}

export function setAdminSessionCookies(
  ctx: Context,
  config: SessionConfig,
  session: IssuedAdminSession,
): void {
  const base = cookieOptions(config);
  const jar = cookieJar(ctx, config.COOKIE_SECURE);
  jar.set(ADMIN_COOKIE, session.token, { ...base, httpOnly: true, path: SESSION_COOKIE_PATH });
  // Readable by the administration dashboard's script, which sends it back in X-CSRF-Token.
  jar.set(ADMIN_CSRF_COOKIE, session.csrfToken, { ...base, httpOnly: false, path: '/' });
}

export function clearAdminSessionCookies(ctx: Context, config: SessionConfig): void {
  const base = { ...cookieOptions(config), maxAge: 0, expires: new Date(0) };
  const jar = cookieJar(ctx, config.COOKIE_SECURE);
  jar.set(ADMIN_COOKIE, '', { ...base, httpOnly: true, path: SESSION_COOKIE_PATH });
  jar.set(ADMIN_CSRF_COOKIE, '', { ...base, httpOnly: false, path: '/' });
}
