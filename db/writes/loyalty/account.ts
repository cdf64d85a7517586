import { randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import {
  ledgerChange,
  MAX_ACCOUNT_POINTS,
  referralCodeFrom,
  type LedgerKind,
} from '../../../domain/loyalty.js';
import { Refusal } from '../../../domain/refusal.js';
import type { Database } from '../../orm.js';
import { insertRow } from '../insert-row.js';
import { LoyaltyRefusal } from './refusal.js';

/**
 * Loyalty accounts and their ledger. Balances change only through `post`, each change in one
 * transaction that first locks the traveller's account row (lockAccount), so a balance can never
 * be spent twice or go negative (the CHECK on balance backs this up), and every change leaves a
 * loyalty_transactions row with the balance after it.
 *
 * The tier follows the lifetime points (README Loyalty), so every write of an account's lifetime
 * points or tier (post, ensureAccount's new account) first shares the company's programme row
 * (shareProgramme), which a tier change locks before it re-sorts the accounts (admin-catalogue.ts
 * saveTier): the two take turns, and each reads the other's work. Always the programme before the
 * account, as a tier change takes them, so they never wait on each other the other way round.
 */

export type Queryable = Pick<PoolClient, 'query'>;

export interface AccountRow {
  id: string;
  company_id: string;
  balance: number;
  lifetime_points: number;
}

/**
 * The company's programme row, FOR SHARE: a tier change (FOR NO KEY UPDATE, admin-catalogue.ts
 * lockProgram) waits for the points writes in flight, and one that waited reads the tiers it left.
 * A statement of its own, before the statement that reads the tiers: a statement that waited for the
 * lock would still read the tiers as they were when it began.
 */
export async function shareProgramme(client: Queryable, companyId: string): Promise<void> {
  await client.query(`select 1 from loyalty_programs where company_id = $1 for share`, [companyId]);
}

async function findAccount(
  client: Queryable,
  companyId: string,
  userId: string,
): Promise<string | undefined> {
  const { rows } = await client.query<{ id: string }>(
    `select id from loyalty_accounts where company_id = $1 and user_id = $2`,
    [companyId, userId],
  );
  return rows[0]?.id;
}

/**
 * Whether the user is ACTIVE, its row shared (FOR KEY SHARE) until the transaction ends: a phone
 * merge, which locks both users FOR UPDATE before it moves their bookings and loyalty accounts and
 * disables the old one, either waits for this transaction or has committed, and then the disabled
 * status is what this reads (a locking read that waited reads the row as the merge left it).
 */
export async function shareActiveTraveller(client: Queryable, userId: string): Promise<boolean> {
  const { rows } = await client.query(
    `select 1 from users where id = $1 and status = 'ACTIVE' for key share`,
    [userId],
  );
  return rows.length > 0;
}

/**
 * The traveller's account in a company's program, created on first use with a fresh referral
 * code in the tier of 0 points, in the caller's transaction, which shares the programme row first
 * (shareProgramme) so a tier added or moved at the same moment either waits for the new account and
 * moves it, or is read by it. Does not lock the account; callers that change the balance lock it
 * with lockAccount. On the pool the share would end at once: outside a transaction, openAccount.
 * An account is only ever created for an ACTIVE user (shareActiveTraveller, so a merge disabling it
 * now waits for the new account and moves it): one a phone merge disabled gave its accounts to the
 * surviving one, and a new account there would be one nobody can use; a user who is not ACTIVE is
 * refused 401 AUTH_REQUIRED (their session ended with the merge).
 */
export async function ensureAccount(client: Queryable, companyId: string, userId: string): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const existing = await findAccount(client, companyId, userId);
    if (existing) return existing;
    if (!(await shareActiveTraveller(client, userId))) {
      throw new Refusal(401, 'AUTH_REQUIRED', 'Sign in to continue');
    }
    await shareProgramme(client, companyId);
    // "do nothing" covers both a concurrent first call (same user) and a referral code collision.
    const inserted = await client.query<{ id: string }>(
      `insert into loyalty_accounts (company_id, user_id, passenger_id, referral_code, tier_id)
       select $1, u.id, u.passenger_id, $3,
              (select t.id from loyalty_tiers t where t.company_id = $1 and t.min_lifetime_points = 0 limit 1)
         from users u where u.id = $2
       on conflict do nothing
       returning id`,
      [companyId, userId, referralCodeFrom(randomBytes(8))],
    );
    if (inserted.rows[0]) return inserted.rows[0].id;
  }
  throw new Error('could not create a loyalty account');
}

/** ensureAccount on its own: an account found is answered at once, a new one opened in a transaction. */
export async function openAccount(db: Database, companyId: string, userId: string): Promise<string> {
  return (
    (await findAccount(db.pool, companyId, userId)) ??
    db.transaction((client) => ensureAccount(client, companyId, userId))
  );
}

/**
 * The account row, locked FOR NO KEY UPDATE: balance writers take turns, while inserts whose
 * foreign key points at the account (a referral naming it, a voucher, a ledger entry) do not wait
 * for them, so a referral holding the referee's account never waits on the referrer's balance
 * writer (a deadlock). A merge moving the account to another user changes a key column (FOR
 * UPDATE) and still takes turns with every balance writer. Its company's programme row is shared
 * first (shareProgramme; again for a second account of the company, which costs no wait), so the
 * tier `post` gives the account and a tier change take turns.
 */
export async function lockAccount(client: Queryable, accountId: string): Promise<AccountRow> {
  await client.query(
    `select 1 from loyalty_programs
      where company_id = (select company_id from loyalty_accounts where id = $1) for share`,
    [accountId],
  );
  const { rows } = await client.query<AccountRow>(
    `select id, company_id, balance, lifetime_points from loyalty_accounts where id = $1 for no key update`,
    [accountId],
  );
  return rows[0]!;
}

interface LedgerEntry {
  accountId: string;
  companyId: string;
  kind: LedgerKind;
  points: number;
  bookingId?: string | null;
  redemptionId?: string | null;
  note?: string | null;
  /** A company user's manual adjustment: who made it and why (both, or neither). */
  actorStaffUserId?: string | null;
  reason?: string | null;
  /**
   * What the entry adds to (or takes off) the lifetime total, when it is not simply the points
   * earned (ledgerChange): an EARN_REVERSAL takes off all the points it reverses, though the balance
   * gives back only what it still holds of them.
   */
  lifetimeChange?: number;
}

/**
 * Moves points on a LOCKED account (lockAccount: its programme row shared, so the tiers read here
 * stay as they are until the transaction ends) and records the transaction. Earned points (positive
 * EARN, REFERRAL_BONUS, positive ADJUST) also count towards lifetime points (a reversal takes them
 * off: `lifetimeChange`), and the tier follows them.
 */
export async function post(client: Queryable, account: AccountRow, entry: LedgerEntry): Promise<number> {
  const change = ledgerChange(account.balance, entry.kind, entry.points);
  if (!change) {
    throw new LoyaltyRefusal('LOYALTY_INSUFFICIENT_POINTS', 'Not enough points', {
      balance: account.balance,
      pointsNeeded: -entry.points,
    });
  }
  const { balanceAfter, earned } = change;
  // Only points earned add to the lifetime total; others (a refunded voucher) are checked against
  // the balance alone.
  const lifetimeChange = entry.lifetimeChange ?? earned;
  if (balanceAfter > MAX_ACCOUNT_POINTS || account.lifetime_points + lifetimeChange > MAX_ACCOUNT_POINTS) {
    throw new LoyaltyRefusal('LOYALTY_BALANCE_LIMIT', 'An account holds at most 2,147,483,647 points', {
      balance: account.balance,
      lifetimePoints: account.lifetime_points,
      limit: MAX_ACCOUNT_POINTS,
    });
  }
  await client.query(
    `update loyalty_accounts
        set balance = $2, lifetime_points = lifetime_points + $3, updated_at = now(),
            tier_id = case when $3 <> 0 then (
              select t.id from loyalty_tiers t
               where t.company_id = loyalty_accounts.company_id and t.min_lifetime_points <= lifetime_points + $3
               order by t.min_lifetime_points desc limit 1) else tier_id end
      where id = $1`,
    [account.id, balanceAfter, lifetimeChange],
  );
  await insertRow(client, 'loyalty_transactions', {
    account_id: account.id,
    company_id: entry.companyId,
    kind: entry.kind,
    points: entry.points,
    balance_after: balanceAfter,
    booking_id: entry.bookingId ?? null,
    redemption_id: entry.redemptionId ?? null,
    note: entry.note ?? null,
    actor_staff_user_id: entry.actorStaffUserId ?? null,
    reason: entry.reason ?? null,
  });
  account.balance = balanceAfter;
  account.lifetime_points += lifetimeChange;
  return balanceAfter;
}

/**
 * A manual correction by the company (the dashboard's accounts/{id}/adjust) or a demo/test credit.
 * A negative adjustment below zero is refused (409 LOYALTY_INSUFFICIENT_POINTS).
 */
export async function adjustPoints(
  db: Database,
  input: { accountId: string; points: number; note?: string },
): Promise<{ balance: number }> {
  return db.transaction((client) => adjustPointsWithin(client, input));
}

/** adjustPoints inside the caller's transaction (the demo seed runs in one). */
export async function adjustPointsWithin(
  client: Queryable,
  input: { accountId: string; points: number; note?: string },
): Promise<{ balance: number }> {
  const account = await lockAccount(client, input.accountId);
  const balance = await post(client, account, {
    accountId: account.id,
    companyId: account.company_id,
    kind: 'ADJUST',
    points: input.points,
    note: input.note ?? null,
  });
  return { balance };
}
