import type { PoolClient } from 'pg';
import type { EmailTokenPurpose } from '../../domain/account-email.js';
import type { Database } from '../orm.js';
import { SELECT_TOKEN, stateOf, type EmailTokenState, type TokenRow } from '../queries/email-tokens.js';

/**
 * Writes of single-use e-mail link tokens (verification and password recovery), and the two
 * transactions that use a link up. Only the SHA-256 of a token is stored.
 */

interface IdRow {
  id: string;
}

/**
 * Marks a valid token used, inside the caller's transaction; the row lock makes two concurrent
 * uses of one link end with exactly one success. The account's row is locked before the link's, in
 * the order of the other writers of both (an identity-provider sign-in taking an unverified address
 * locks the account, then expires its links), so the two never wait on each other.
 */
export async function consumeEmailToken(
  client: PoolClient,
  tokenHash: string,
  purpose: EmailTokenPurpose,
): Promise<EmailTokenState> {
  await client.query(
    `select 1 from users u join email_tokens t on t.user_id = u.id
     where t.token_hash = $1 and t.purpose = $2 for update of u`,
    [tokenHash, purpose],
  );
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
  const [row] = await db.query<IdRow>(
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

/** A link's state once used: a valid one carries what its effect answered. */
export type UsedEmailLink<T> =
  | Exclude<EmailTokenState, { kind: 'valid' }>
  | (Extract<EmailTokenState, { kind: 'valid' }> & { outcome: T });

/**
 * Uses a link of `purpose` up in one transaction and, when it was valid, applies `effect` to the
 * link's user in the same transaction; answers the link's state either way. An effect that fails
 * rolls the use back: the link stays usable.
 */
async function useEmailLink<T>(
  db: Database,
  tokenHash: string,
  purpose: EmailTokenPurpose,
  effect: (client: PoolClient, userId: string) => Promise<T>,
): Promise<UsedEmailLink<T>> {
  return db.transaction(async (client) => {
    const consumed = await consumeEmailToken(client, tokenHash, purpose);
    if (consumed.kind !== 'valid') return consumed;
    return { ...consumed, outcome: await effect(client, consumed.userId) };
  });
}

/** Uses a verification link: the user's current address becomes verified. */
export async function verifyWithLink(db: Database, tokenHash: string): Promise<EmailTokenState> {
  return useEmailLink(db, tokenHash, 'VERIFY_EMAIL', async (client, userId) => {
    await client.query(
      `update users set email_verified_at = coalesce(email_verified_at, now()), updated_at = now() where id = $1`,
      [userId],
    );
  });
}

/**
 * Uses a recovery link: sets the new password hash, revokes every session of the user (reason
 * PASSWORD_RESET), expires the user's other recovery links, and marks the address verified (the
 * link proved the traveller reads that mailbox); then `start` starts the new session, last, in the
 * same transaction. A failure of any of it (or a refusal from `start`) leaves the link usable, the
 * password and the sessions as they were.
 */
export async function resetPasswordWithLink<Session>(
  db: Database,
  tokenHash: string,
  passwordHash: string,
  start: (client: PoolClient, userId: string) => Promise<Session>,
): Promise<UsedEmailLink<Session>> {
  return useEmailLink(db, tokenHash, 'RESET_PASSWORD', async (client, userId) => {
    await client.query(
      `update users set password_hash = $2, email_verified_at = coalesce(email_verified_at, now()), updated_at = now()
       where id = $1`,
      [userId, passwordHash],
    );
    await client.query(
      `update traveller_sessions set revoked_at = now(), revoked_reason = 'PASSWORD_RESET' where user_id = $1 and revoked_at is null`,
      [userId],
    );
    await expireEmailTokens(client, userId, 'RESET_PASSWORD');
    return start(client, userId);
  });
}
