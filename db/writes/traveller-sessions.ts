import type { Database } from '../orm.js';

/**
 * Writes of traveller sessions (traveller_sessions) and their rotating refresh tokens
 * (refresh_tokens). Only hashes of refresh tokens are stored.
 */

/** Where the traveller signed in: the web keeps the tokens in cookies, apps in their own storage. */
export type SessionChannel = 'web' | 'mobile' | 'pwa';

export interface NewTravellerSession {
  userId: string;
  channel: SessionChannel;
  refreshTokenHash: string;
  ttlDays: number;
}

interface IdRow {
  id: string;
}

/** A session and its first refresh token, in one transaction; answers the session id. */
export async function openTravellerSession(db: Database, session: NewTravellerSession): Promise<string> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<IdRow>(
      `insert into traveller_sessions (user_id, channel, expires_at) values ($1, $2, now() + make_interval(days => $3))
       returning id`,
      [session.userId, session.channel, session.ttlDays],
    );
    const id = rows[0]!.id;
    await client.query(
      `insert into refresh_tokens (session_id, token_hash, expires_at) values ($1, $2, now() + make_interval(days => $3))`,
      [id, session.refreshTokenHash, session.ttlDays],
    );
    return id;
  });
}

interface PresentedTokenRow {
  id: string;
  session_id: string;
  user_id: string;
  /** timestamptz as text: only whether it is set matters here. */
  used_at: string | null;
  expired: boolean;
  revoked: boolean;
}

/** What rotating a refresh token did; `reused` has revoked the whole session. */
export type RefreshRotation =
  { kind: 'invalid' } | { kind: 'reused' } | { kind: 'rotated'; sessionId: string; userId: string };

/**
 * Rotates a refresh token under the locks of the token and its session: the presented one is used
 * up and `nextHash` takes its place until the session ends. A token already used means it leaked
 * or was replayed: the session is revoked (REFRESH_TOKEN_REUSED).
 */
export async function rotateRefreshToken(
  db: Database,
  presentedHash: string,
  nextHash: string,
): Promise<RefreshRotation> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<PresentedTokenRow>(
      `select r.id, r.session_id, s.user_id, r.used_at, (r.expires_at <= now() or s.expires_at <= now()) as expired,
              s.revoked_at is not null as revoked
       from refresh_tokens r join traveller_sessions s on s.id = r.session_id
       where r.token_hash = $1
       for update of r, s`,
      [presentedHash],
    );
    const row = rows[0];
    if (!row || row.revoked || row.expired) return { kind: 'invalid' };
    if (row.used_at) {
      await client.query(
        `update traveller_sessions set revoked_at = now(), revoked_reason = 'REFRESH_TOKEN_REUSED' where id = $1`,
        [row.session_id],
      );
      return { kind: 'reused' };
    }
    await client.query('update refresh_tokens set used_at = now() where id = $1', [row.id]);
    await client.query(
      `insert into refresh_tokens (session_id, token_hash, parent_id, expires_at)
       select $1, $2, $3, expires_at from traveller_sessions where id = $1`,
      [row.session_id, nextHash, row.id],
    );
    await client.query('update traveller_sessions set last_refreshed_at = now() where id = $1', [
      row.session_id,
    ]);
    return { kind: 'rotated', sessionId: row.session_id, userId: row.user_id };
  });
}

export async function revokeTravellerSession(db: Database, sessionId: string, reason: string): Promise<void> {
  await db.query(
    `update traveller_sessions set revoked_at = coalesce(revoked_at, now()), revoked_reason = coalesce(revoked_reason, $2) where id = $1`,
    [sessionId, reason],
  );
}
