import type { EmailTokenPurpose } from '../../domain/account-email.js';
import type { Database } from '../orm.js';

/**
 * Reads of single-use e-mail link tokens (verification and password recovery; the writes are in
 * db/writes/email-tokens.ts) and of the accounts they are for. Only the SHA-256 of a token is
 * stored. A token is good while it is unused, unexpired, its user is active and the user's e-mail
 * is still the address the link was sent to.
 */

export type EmailTokenState =
  | { kind: 'valid'; id: string; userId: string; email: string; /** Unix epoch seconds. */ expiresAt: number }
  | { kind: 'invalid' | 'used' | 'expired' };

export interface TokenRow {
  id: string;
  user_id: string;
  email: string;
  /** Unix epoch seconds (the pg driver hands timestamps over as text). */
  expires_at: number;
  used: boolean;
  expired: boolean;
  still_addressed: boolean;
}

export const SELECT_TOKEN = `
  select t.id, t.user_id, t.email, extract(epoch from t.expires_at)::float8 as expires_at, t.used_at is not null as used, t.expires_at <= now() as expired,
         (u.status = 'ACTIVE' and lower(u.email) = lower(t.email)) is true as still_addressed
  from email_tokens t join users u on u.id = t.user_id
  where t.token_hash = $1 and t.purpose = $2`;

/** What a token row (or its absence) says about the link. */
export function stateOf(row: TokenRow | undefined): EmailTokenState {
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

export interface EmailAccount {
  id: string;
  email: string | null;
  emailVerified: boolean;
  active: boolean;
}

interface EmailAccountRow {
  id: string;
  email: string | null;
  verified: boolean;
  active: boolean;
}

const toEmailAccount = (row: EmailAccountRow): EmailAccount => ({
  id: row.id,
  email: row.email,
  emailVerified: row.verified,
  active: row.active,
});

export async function findEmailAccount(db: Database, userId: string): Promise<EmailAccount | null> {
  const [row] = await db.query<EmailAccountRow>(
    `select id, email, email_verified_at is not null as verified, status = 'ACTIVE' as active from users where id = $1`,
    [userId],
  );
  return row ? toEmailAccount(row) : null;
}

export interface RecoverableUser {
  id: string;
  email: string;
}

interface RecoverableUserRow {
  id: string;
  email: string;
}

/** The active traveller whose verified e-mail is this address (recovery goes only to proven addresses). */
export async function findRecoverableUser(db: Database, email: string): Promise<RecoverableUser | null> {
  const [row] = await db.query<RecoverableUserRow>(
    `select id, email from users
     where lower(email) = lower($1) and email_verified_at is not null and status = 'ACTIVE'`,
    [email],
  );
  return row ? { id: row.id, email: row.email } : null;
}
