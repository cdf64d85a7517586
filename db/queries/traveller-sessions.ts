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

/** True while the session behind an access token is neither revoked nor expired. */
export async function isSessionActive(db: Database, sessionId: string): Promise<boolean> {
  // Every authenticated request runs it: prepared once per connection.
  const { rows } = await db.pool.query(
    prepared(`select 1 from traveller_sessions where id = $1 and revoked_at is null and expires_at > now()`, [
      sessionId,
    ]),
  );
  return rows.length > 0;
}
