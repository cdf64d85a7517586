import { argon2id, hash } from 'argon2';
import type { PoolClient } from 'pg';

/**
 * The demo accounts that `table` does not hold yet (e-mails compared lower-cased) and the argon2id
 * hash of the password they share; null when none is missing. Existing accounts keep their
 * password, and the hash is computed once per run and only when an account is missing.
 */
export async function missingAccounts<Account extends { email: string }>(
  client: PoolClient,
  table: 'admins' | 'staff_users',
  accounts: readonly Account[],
  password: string,
): Promise<{ missing: Account[]; passwordHash: string } | null> {
  const { rows } = await client.query<{ email: string }>(
    `select lower(email) as email from ${table} where lower(email) = any($1::text[])`,
    [accounts.map((account) => account.email)],
  );
  const existing = new Set(rows.map((row) => row.email));
  const missing = accounts.filter((account) => !existing.has(account.email));
  if (missing.length === 0) return null;
  return { missing, passwordHash: await hash(password, { type: argon2id }) };
}
