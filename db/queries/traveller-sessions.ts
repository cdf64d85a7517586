import type { Database } from '../orm.js';
import { prepared } from '../prepared.js';

/** Reads of traveller sessions (traveller_sessions, refresh_tokens) and what their tokens carry. */

interface AppMetadataRow {
  /** jsonb, parsed by the driver; read only through scopeFromAppMetadata. */
  app_metadata: unknown;
}

/** The server-set metadata of a traveller (inventory scope), as an access token carries it; null for no user. */
export async function travellerAppMetadata(db: Database, userId: string): Promise<unknown> {
  const [row] = await db.query<AppMetadataRow>('select app_metadata from users where id = $1', [userId]);
  return row ? row.app_metadata : null;
}

interface RefreshSessionRow {
  session_id: string;
}

/** The session a refresh token hash (used or not) belongs to, or null for an unknown token. */
export async function sessionOfRefreshToken(db: Database, tokenHash: string): Promise<string | null> {
  const [row] = await db.query<RefreshSessionRow>(
    'select session_id from refresh_tokens where token_hash = $1',
    [tokenHash],
  );
  return row?.session_id ?? null;
}

/**
 * SQL boolean over a refresh token `r`, its session `s` and the session's user `u`: the token and its
 * session are unexpired, the session is not revoked and its traveller is ACTIVE. A refresh calls any
 * other token invalid (db/writes/traveller-sessions.ts rotateRefreshToken).
 */
export const LIVE_REFRESH_TOKEN_SQL = `(r.expires_at > now() and s.expires_at > now() and s.revoked_at is null and u.status = 'ACTIVE')`;

/**
 * Whether a refresh token hash (used or not) names a live session (LIVE_REFRESH_TOKEN_SQL). Whether a
 * used token may still be rotated is the refresh's to decide.
 */
export async function refreshTokenSessionLive(db: Database, tokenHash: string): Promise<boolean> {
  const [row] = await db.query<{ live: boolean }>(
    `select ${LIVE_REFRESH_TOKEN_SQL} as live
       from refresh_tokens r join traveller_sessions s on s.id = r.session_id join users u on u.id = s.user_id
      where r.token_hash = $1`,
    [tokenHash],
  );
  return row?.live ?? false;
}

/** A live session's traveller and that traveller's server-set metadata (inventory scope). */
export interface ActiveSessionOwner {
  userId: string;
  appMetadata: unknown;
}

/**
 * The traveller of the session behind an access token while it is neither revoked nor expired and
 * the account is ACTIVE; null otherwise. The caller binds the token's subject and scope to this row.
 */
export async function activeSessionOwner(
  db: Database,
  sessionId: string,
): Promise<ActiveSessionOwner | null> {
  // Every authenticated request runs it: prepared once per connection.
  const { rows } = await db.pool.query<{ user_id: string; app_metadata: unknown }>(
    prepared(
      `select s.user_id, u.app_metadata from traveller_sessions s join users u on u.id = s.user_id
        where s.id = $1 and s.revoked_at is null and s.expires_at > now() and u.status = 'ACTIVE'`,
      [sessionId],
    ),
  );
  const [row] = rows;
  return row ? { userId: row.user_id, appMetadata: row.app_metadata } : null;
}
