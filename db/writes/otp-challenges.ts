import type { PoolClient } from 'pg';
import type { Database } from '../orm.js';

/**
 * Writes of traveller sign-in codes (otp_challenges). A new challenge closes the phone's open
 * ones in its transaction, so only the newest code counts; day-old challenges are swept as new
 * ones are written.
 */

/** What checking a local code concluded (the SMS provider's answers use the same words). */
export type LocalCodeOutcome = 'approved' | 'wrong_code' | 'expired' | 'too_many_attempts';

/**
 * A new code replaces the previous one; day-old challenges are swept as new ones are written. The
 * phone's codes are written one at a time (a transaction-scoped advisory lock on the number): two
 * sends at once would each find nothing open and both codes would stay open.
 */
async function closeOpenChallenges(client: PoolClient, phone: string): Promise<void> {
  await client.query(`select pg_advisory_xact_lock(hashtext('otp_challenges:' || $1))`, [phone]);
  await client.query(
    'update otp_challenges set consumed_at = now() where phone = $1 and consumed_at is null',
    [phone],
  );
  await client.query(
    `delete from otp_challenges where id in (select id from otp_challenges where created_at < now() - interval '1 day' limit 100)`,
  );
}

/** A challenge naming the SMS provider's verification `reference`; the provider keeps the code. */
export async function openProviderChallenge(
  db: Database,
  challenge: { phone: string; reference: string; ttlSeconds: number },
): Promise<void> {
  await db.transaction(async (client) => {
    await closeOpenChallenges(client, challenge.phone);
    await client.query(
      `insert into otp_challenges (phone, channel, provider_reference, expires_at)
       values ($1, 'sms', $2, now() + make_interval(secs => $3))`,
      [challenge.phone, challenge.reference, challenge.ttlSeconds],
    );
  });
}

export interface NewLocalChallenge {
  id: string;
  phone: string;
  channel: 'chatapp' | 'local';
  codeHash: string;
  maxAttempts: number;
  ttlSeconds: number;
}

/** A challenge whose code this server made: only the code's hash is kept. */
export async function openLocalChallenge(db: Database, challenge: NewLocalChallenge): Promise<void> {
  await db.transaction(async (client) => {
    await closeOpenChallenges(client, challenge.phone);
    await client.query(
      `insert into otp_challenges (id, phone, channel, code_hash, max_attempts, expires_at)
       values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
      [
        challenge.id,
        challenge.phone,
        challenge.channel,
        challenge.codeHash,
        challenge.maxAttempts,
        challenge.ttlSeconds,
      ],
    );
  });
}

/** A code that could not be delivered: its challenge is closed at once. */
export async function closeChallenge(db: Database, challengeId: string): Promise<void> {
  await db.query('update otp_challenges set consumed_at = now() where id = $1', [challengeId]);
}

/**
 * The provider closed its verification as expired or burnt: the challenge is closed too (an approved
 * one is spent by the transaction it was entered for: spendChallenge).
 */
export async function closeProviderChallenge(db: Database, challengeId: string): Promise<void> {
  await db.query('update otp_challenges set consumed_at = now() where id = $1 and consumed_at is null', [
    challengeId,
  ]);
}

interface LocalCodeRow {
  code_hash: string;
  attempts: number;
  max_attempts: number;
  usable: boolean;
}

/**
 * Checks a local code under a row lock, so parallel guesses cannot exceed the attempt limit:
 * `matches` compares the stored hash with the code entered. A wrong entry counts at once (its own
 * transaction commits it, whatever follows); a match consumes nothing: the caller spends the
 * challenge in the transaction of what the code is for (spendChallenge), so only a successful
 * attempt uses the code up. The wrong entry that reaches the limit already answers too_many_attempts.
 */
export async function checkLocalCode(
  db: Database,
  challengeId: string,
  matches: (codeHash: string) => boolean,
): Promise<LocalCodeOutcome> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<LocalCodeRow>(
      `select code_hash, attempts, max_attempts, (consumed_at is null and expires_at > now()) as usable
       from otp_challenges where id = $1 for update`,
      [challengeId],
    );
    const row = rows[0];
    if (!row?.usable) return 'expired';
    if (row.attempts >= row.max_attempts) return 'too_many_attempts';
    if (matches(row.code_hash)) return 'approved';
    await client.query('update otp_challenges set attempts = attempts + 1 where id = $1', [challengeId]);
    return row.attempts + 1 >= row.max_attempts ? 'too_many_attempts' : 'wrong_code';
  });
}

/**
 * Spends a checked code inside the caller's transaction (the sign-in or the phone completion it
 * was checked for): if that transaction fails or is refused, the rollback leaves the code as it
 * was, so only a successful attempt consumes it. The update locks the challenge row, so of two
 * attempts with the same code the second waits and finds it spent. False when the challenge was
 * spent or replaced since it was checked, or (a local code) expired or burnt meanwhile.
 */
export async function spendChallenge(client: PoolClient, challengeId: string): Promise<boolean> {
  const { rowCount } = await client.query(
    `update otp_challenges set consumed_at = now()
     where id = $1 and consumed_at is null
       and (code_hash is null or (expires_at > now() and attempts < max_attempts))`,
    [challengeId],
  );
  return rowCount === 1;
}

/**
 * A checked code's spending, run first in the transaction of what the code is for (signInByPhone,
 * completePhone): made by api/auth/otp.ts checkOtp, it refuses the code spent meanwhile.
 */
export type SpendCode = (client: PoolClient) => Promise<void>;
