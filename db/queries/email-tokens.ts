import type { PoolClient } from 'pg';
import type { EmailTokenPurpose } from '../../domain/account-email.js';
import type { Database } from '../orm.js';

/**
 * Single-use e-mail link tokens (verification and password recovery). Only the SHA-256 of a
 * token is stored. A token is good while it is unused, unexpired, its user is active and the
 * user's e-mail is still the address the link was sent to.
 */

export type EmailTokenState =
  | { kind: 'valid'; id: string; userId: string; email: string; /** Unix epoch seconds. */ expiresAt: number }
  | { kind: 'invalid' | 'used' | 'expired' };

interface TokenRow {
  id: string;
  user_id: string;
  email: string;
  /** Unix epoch seconds (the pg driver hands timestamps over as text). */
  expires_at: number;
  used: boolean;
  expired: boolean;
  still_addressed: boolean;
}

const SELECT_TOKEN = `
  select t.id, t.user_id, t.email, extract(epoch from t.expires_at)::float8 as expires_at, t.used_at is not null as used, t.expires_at <= now() as expired,
         (u.status = 'ACTIVE' and lower(u.email) = lower(t.email)) is true as still_addressed
  from email_tokens t join users u on u.id = t.user_id
  where t.token_hash = $1 and t.purpose = $2`;

function stateOf(row: TokenRow | undefined): EmailTokenState {
  if (!row || !row.still_addressed) return { kind: 'invalid' };
  if (row.used) return { kind: 'used' };
  if (row.expired) return { kind: 'expired' };
  return { kind: 'valid', id: row.id, userId: row.user_id, email: row.email, expiresAt: row.expires_at };
}

/** Reads a token's state without changing it (the reset page asks before showing its form). */
export async function inspectEmailToken(
  db: Database,
  tokenHash: string,
  purpose: EmailTokenPurpose,
): Promise<EmailTokenState> {
  const [row] = await db.query<TokenRow>(SELECT_TOKEN, [tokenHash, purpose]);
  return stateOf(row);
}

/**
 * Marks a valid token used, inside the caller's transaction; the row lock makes two concurrent
 * uses of one link end with exactly one success.
 */
export async function consumeEmailToken(
  client: PoolClient,
  tokenHash: string,
  purpose: EmailTokenPurpose,
): Promise<EmailTokenState> {
  const { rows } = await client.query<TokenRow>(`${SELECT_TOKEN} for update of t, u`, [tokenHash, purpose]);
  const state = stateOf(rows[0]);
  if (state.kind === 'valid')
    await client.query('update email_tokens set used_at = now() where id = $1', [state.id]);
  return state;
}

export async function insertEmailToken(
  db: Database,
  token: { userId: string; purpose: EmailTokenPurpose; email: string; tokenHash: string; ttlSeconds: number },
): Promise<string> {
  // clock_timestamp, not now(): two links issued in quick succession keep their order.
  const [row] = await db.query<{ id: string }>(
    `insert into email_tokens (user_id, purpose, email, token_hash, created_at, expires_at)
     values ($1, $2, $3, $4, clock_timestamp(), clock_timestamp() + make_interval(secs => $5))
     returning id`,
    [token.userId, token.purpose, token.email, token.tokenHash, token.ttlSeconds],
  );
  return row!.id;
}

/** A newer link replaces the older unused ones of the same purpose: they expire now. */
export async function expireOlderEmailTokens(db: Database, newerTokenId: string): Promise<void> {
  await db.query(
    `update email_tokens t set expires_at = least(t.expires_at, now())
     from email_tokens newer
     where newer.id = $1 and t.user_id = newer.user_id and t.purpose = newer.purpose
       and t.used_at is null and t.created_at < newer.created_at`,
    [newerTokenId],
  );
}

/** Expires every unused token of a purpose for a user (a reset ends the other recovery links). */
export async function expireEmailTokens(
  client: PoolClient,
  userId: string,
  purpose: EmailTokenPurpose,
): Promise<void> {
  await client.query(
    `update email_tokens set expires_at = least(expires_at, now()) where user_id = $1 and purpose = $2 and used_at is null`,
    [userId, purpose],
  );
}

/** A link whose message never left is removed, so it cannot replace the links already delivered. */
export async function deleteEmailToken(db: Database, id: string): Promise<void> {
  await db.query('delete from email_tokens where id = $1', [id]);
}

export interface EmailAccount {
  id: string;
  email: string | null;
  emailVerified: boolean;
  active: boolean;
}

export async function findEmailAccount(db: Database, userId: string): Promise<EmailAccount | null> {
  const [row] = await db.query<{ id: string; email: string | null; verified: boolean; active: boolean }>(
    `select id, email, email_verified_at is not null as verified, status = 'ACTIVE' as active from users where id = $1`,
    [userId],
  );
  return row ? { id: row.id, email: row.email, emailVerified: row.verified, active: row.active } : null;
}

/** The active traveller whose verified e-mail is this address (recovery goes only to proven addresses). */
export async function findRecoverableUser(
  db: Database,
  email: string,
): Promise<{ id: string; email: string } | null> {
  const [row] = await db.query<{ id: string; email: string }>(
    `select id, email from users
     where lower(email) = lower($1) and email_verified_at is not null and status = 'ACTIVE'`,
    [email],
  );
  return row ?? null;
}
