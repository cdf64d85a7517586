import type { PoolClient } from 'pg';
import type { AdminRole } from '../../domain/permissions.js';
import type { Database } from '../orm.js';
import { ownAccountAudit, recordAudit, type RequestOrigin } from './audit.js';

/**
 * Writes of administrator sessions (admin_sessions). Only hashes of the session and CSRF secrets
 * reach the table; the API makes the secrets and hands out the plain values.
 */
type Sql = Pick<PoolClient, 'query'>;

/** The pg driver hands timestamps over as text: the end of a session is read as epoch seconds. */
const EXPIRES_AT_EPOCH = 'floor(extract(epoch from expires_at))::float8 as expires_at';

/** The hashes of a session's secrets, as stored. */
export interface SessionSecretHashes {
  tokenHash: string;
  csrfTokenHash: string;
}

export interface NewAdminSession extends SessionSecretHashes {
  adminId: string;
  ttlHours: number;
}

export interface StoredAdminSession {
  sessionId: string;
  /** End of the session's absolute lifetime, Unix epoch seconds. */
  expiresAt: number;
}

interface IssuedRow {
  id: string;
  /** Unix epoch seconds (cast in SQL). */
  expires_at: number;
}

interface ExpiryRow {
  /** Unix epoch seconds (cast in SQL). */
  expires_at: number;
}

export async function insertAdminSession(sql: Sql, session: NewAdminSession): Promise<StoredAdminSession> {
  const { rows } = await sql.query<IssuedRow>(
    `insert into admin_sessions (admin_id, token_hash, csrf_token_hash, expires_at)
     values ($1, $2, $3, now() + make_interval(hours => $4))
     returning id, ${EXPIRES_AT_EPOCH}`,
    [session.adminId, session.tokenHash, session.csrfTokenHash, session.ttlHours],
  );
  const row = rows[0]!;
  return { sessionId: row.id, expiresAt: row.expires_at };
}

/**
 * A session for a signed-in administrator and its audit row (auth.login), in one transaction; null,
 * writing nothing, when the account is no longer ACTIVE. Sign-in read the account without a lock:
 * FOR SHARE waits behind a disable (changeAdmin holds the row FOR UPDATE while it ends every
 * session) and reads the status it committed, so no session opens after that end.
 */
export async function openAdminSession(
  db: Database,
  session: NewAdminSession,
  origin: RequestOrigin,
  secondFactorRequired: boolean,
): Promise<StoredAdminSession | null> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<{ active: boolean }>(
      `select status = 'ACTIVE' as active from admins where id = $1 for share`,
      [session.adminId],
    );
    if (!rows[0]?.active) return null;
    const stored = await insertAdminSession(client, session);
    await recordAudit(client, {
      ...ownAccountAudit(session.adminId, origin),
      action: 'auth.login',
      details: { sessionId: stored.sessionId, secondFactorRequired },
    });
    return stored;
  });
}

/**
 * Marks the second factor as given and replaces the session and CSRF secrets, inside the
 * caller's transaction; answers the session's end (Unix epoch seconds), or null when the session
 * has ended since the request found it (signed out elsewhere, or the account disabled).
 */
export async function elevateAdminSession(
  sql: Sql,
  sessionId: string,
  secrets: SessionSecretHashes,
): Promise<number | null> {
  const { rows } = await sql.query<ExpiryRow>(
    `update admin_sessions set second_factor_at = now(), token_hash = $2, csrf_token_hash = $3
     where id = $1 and revoked_at is null
     returning ${EXPIRES_AT_EPOCH}`,
    [sessionId, secrets.tokenHash, secrets.csrfTokenHash],
  );
  return rows[0]?.expires_at ?? null;
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

const toSessionRecord = (row: SessionRow): AdminSessionRecord => ({
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
});

/**
 * The live session a token hash names, or null when it is unknown, revoked, past its lifetime,
 * idle longer than `idleMinutes` or its administrator is disabled. Finding it counts as activity
 * (last_seen_at).
 */
export async function touchAdminSession(
  db: Database,
  tokenHash: string,
  idleMinutes: number,
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
    [tokenHash, idleMinutes],
  );
  return row ? toSessionRecord(row) : null;
}

export async function revokeAdminSessionByToken(db: Database, tokenHash: string): Promise<void> {
  await db.query(
    'update admin_sessions set revoked_at = now() where token_hash = $1 and revoked_at is null',
    [tokenHash],
  );
}

/** Ends a live session; false when it had already ended (nothing changed). */
export async function revokeAdminSession(sql: Sql, sessionId: string): Promise<boolean> {
  const { rows } = await sql.query(
    'update admin_sessions set revoked_at = now() where id = $1 and revoked_at is null returning id',
    [sessionId],
  );
  return rows.length > 0;
}

/** Ends every session of an administrator except `keepSessionId` (disabling, changing or removing the authenticator). */
export async function revokeOtherAdminSessions(
  sql: Sql,
  adminId: string,
  keepSessionId: string | null = null,
): Promise<void> {
  await sql.query(
    `update admin_sessions set revoked_at = now()
     where admin_id = $1 and revoked_at is null and ($2::uuid is null or id <> $2::uuid)`,
    [adminId, keepSessionId],
  );
}

/**
 * Signs a session out and records it (auth.logout), in one transaction. Only the request that ends
 * the session records it: a duplicate sign-out (a retried request, a double click) that passed
 * authentication before the first one committed finds the session ended and writes nothing.
 */
export async function closeAdminSession(
  db: Database,
  session: { sessionId: string; adminId: string },
  origin: RequestOrigin,
): Promise<void> {
  await db.transaction(async (client) => {
    if (!(await revokeAdminSession(client, session.sessionId))) return;
    await recordAudit(client, {
      ...ownAccountAudit(session.adminId, origin),
      action: 'auth.logout',
      details: { sessionId: session.sessionId },
    });
  });
}
