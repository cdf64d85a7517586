import type { PoolClient } from 'pg';
import { isDuplicateRefresh, isOrphanedReplacement } from '../../domain/refresh-token-reuse.js';
import type { Database, TransactionClient } from '../orm.js';
import { LIVE_REFRESH_TOKEN_SQL } from '../queries/traveller-sessions.js';

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

/** A session just opened, with the server-set metadata (inventory scope) its access token carries. */
export interface OpenedSession {
  id: string;
  appMetadata: unknown;
}

interface OpenedSessionRow {
  id: string;
  app_metadata: unknown;
}

/**
 * A session and its first refresh token, in one transaction; answers the session, or null when
 * the account is not ACTIVE. The account is read `for share`: a phone merge that disables it (and
 * revokes its sessions) either ends before this reads it, or waits until this session exists and then
 * revokes it too, so a sign-in racing a merge never leaves a live session on a disabled account.
 */
export async function openTravellerSession(
  db: Database,
  session: NewTravellerSession,
): Promise<OpenedSession | null> {
  return db.transaction((client) => openTravellerSessionWithin(client, session));
}

/**
 * The same inside the transaction of the sign-in that starts it (a one-time code, the identity
 * provider): a session that cannot be written rolls the whole sign-in back.
 */
export async function openTravellerSessionWithin(
  client: PoolClient,
  session: NewTravellerSession,
): Promise<OpenedSession | null> {
  const { rows } = await client.query<OpenedSessionRow>(
    `with account as (select id, app_metadata from users where id = $1 and status = 'ACTIVE' for share),
     opened as (
       insert into traveller_sessions (user_id, channel, expires_at)
       select id, $2, now() + make_interval(days => $3) from account
       returning id
     )
     select opened.id, account.app_metadata from opened cross join account`,
    [session.userId, session.channel, session.ttlDays],
  );
  const row = rows[0];
  if (row === undefined) return null;
  await client.query(
    `insert into refresh_tokens (session_id, token_hash, expires_at) values ($1, $2, now() + make_interval(days => $3))`,
    [row.id, session.refreshTokenHash, session.ttlDays],
  );
  return { id: row.id, appMetadata: row.app_metadata };
}

interface PresentedTokenRow {
  id: string;
  session_id: string;
  /** The token it replaced (null for a session's first token). */
  parent_id: string | null;
  user_id: string;
  /** Seconds from its first use to the start of this transaction (database clock); null while unused. */
  seconds_since_use: number | null;
  /**
   * Unexpired, its session not revoked, its account ACTIVE (LIVE_REFRESH_TOKEN_SQL); an account no
   * longer ACTIVE was merged away, and its tokens are worth nothing.
   */
  live: boolean;
}

/** What rotating a refresh token did; `reused` has revoked the whole session. */
export type RefreshRotation =
  { kind: 'invalid' } | { kind: 'reused' } | { kind: 'rotated'; sessionId: string; userId: string };

/**
 * Rotates a refresh token under the locks of the token and its session: the presented one is used
 * up and `nextHash` takes its place until the session ends. A token already used is either the same
 * refresh arriving twice (domain `isDuplicateRefresh`: within `reuseGraceSeconds` of its first use,
 * no replacement used yet), which gets one more replacement beside the first, or a leaked or replayed
 * token: the session is revoked (REFRESH_TOKEN_REUSED). So is an unused replacement presented after
 * one of its siblings (another replacement of the same token) was used: the client went on with that
 * one, and this one has no owner (domain `isOrphanedReplacement`).
 */
export async function rotateRefreshToken(
  db: Database,
  presentedHash: string,
  nextHash: string,
  reuseGraceSeconds: number,
): Promise<RefreshRotation> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<PresentedTokenRow>(
      `select r.id, r.session_id, r.parent_id, s.user_id, extract(epoch from now() - r.used_at)::float8 as seconds_since_use,
              ${LIVE_REFRESH_TOKEN_SQL} as live
       from refresh_tokens r join traveller_sessions s on s.id = r.session_id join users u on u.id = s.user_id
       where r.token_hash = $1
       for update of r, s`,
      [presentedHash],
    );
    const row = rows[0];
    if (!row?.live) return { kind: 'invalid' };
    const reused =
      row.seconds_since_use === null
        ? await orphanedReplacement(client, row)
        : !(await duplicateInFlight(client, row, row.seconds_since_use, reuseGraceSeconds));
    if (reused) {
      await client.query(
        `update traveller_sessions set revoked_at = now(), revoked_reason = 'REFRESH_TOKEN_REUSED' where id = $1`,
        [row.session_id],
      );
      return { kind: 'reused' };
    }
    if (row.seconds_since_use === null) {
      await client.query('update refresh_tokens set used_at = now() where id = $1', [row.id]);
    }
    // A duplicate keeps its first used_at: the grace counts from the first use and never stretches.
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

/**
 * Whether a used token presented again is the same refresh arriving twice. Its replacements are read
 * after the locks, in a statement of its own, so that one used by a refresh that held the session lock
 * while this one waited counts.
 */
async function duplicateInFlight(
  client: TransactionClient,
  token: Pick<PresentedTokenRow, 'id' | 'session_id'>,
  secondsSinceUse: number,
  graceSeconds: number,
): Promise<boolean> {
  const { rows } = await client.query<{ used: boolean }>(
    `select exists (select 1 from refresh_tokens where session_id = $1 and parent_id = $2 and used_at is not null) as used`,
    [token.session_id, token.id],
  );
  return isDuplicateRefresh({ secondsSinceUse, replacementUsed: rows[0]!.used }, graceSeconds);
}

/**
 * Whether an unused token presented is a replacement whose sibling was already used. Read after the
 * locks, in a statement of its own, as duplicateInFlight reads: the session lock makes two siblings
 * presented at once take turns, and the second sees the first's use.
 */
async function orphanedReplacement(
  client: TransactionClient,
  token: Pick<PresentedTokenRow, 'id' | 'session_id' | 'parent_id'>,
): Promise<boolean> {
  if (token.parent_id === null) return false;
  const { rows } = await client.query<{ used: boolean }>(
    `select exists (select 1 from refresh_tokens
                    where session_id = $1 and parent_id = $2 and id <> $3 and used_at is not null) as used`,
    [token.session_id, token.parent_id, token.id],
  );
  return isOrphanedReplacement({ siblingUsed: rows[0]!.used });
}

export async function revokeTravellerSession(db: Database, sessionId: string, reason: string): Promise<void> {
  await db.query(
    `update traveller_sessions set revoked_at = coalesce(revoked_at, now()), revoked_reason = coalesce(revoked_reason, $2) where id = $1`,
    [sessionId, reason],
  );
}
