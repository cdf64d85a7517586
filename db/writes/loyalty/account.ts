import { randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import {
  ledgerChange,
  MAX_ACCOUNT_POINTS,
  referralCodeFrom,
  type LedgerKind,
} from '../../../domain/loyalty.js';
import type { Database } from '../../orm.js';
import { insertRow } from '../insert-row.js';
import { LoyaltyRefusal } from './refusal.js';

/**
 * Loyalty accounts and their ledger. Balances change only through `post`, each change in one
 * transaction that first locks the traveller's account row (lockAccount), so a balance can never
 * be spent twice or go negative (the CHECK on balance backs this up), and every change leaves a
 * loyalty_transactions row with the balance after it.
 */

export type Queryable = Pick<PoolClient, 'query'>;

export interface AccountRow {
  id: string;
  company_id: string;
  balance: number;
  lifetime_points: number;
}

/**
 * The traveller's account in a company's program, created on first use with a fresh referral
 * code. Does not lock; callers that change the balance lock it with lockAccount.
 */
export async function ensureAccount(client: Queryable, companyId: string, userId: string): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const existing = await client.query<{ id: string }>(
      `select id from loyalty_accounts where company_id = $1 and user_id = $2`,
      [companyId, userId],
    );
    if (existing.rows[0]) return existing.rows[0].id;
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

/**
 * The account row, locked FOR NO KEY UPDATE: balance writers take turns, while inserts whose
 * foreign key points at the account (a referral naming it, a voucher, a ledger entry) do not wait
 * for them, so a referral holding the referee's account never waits on the referrer's balance
 * writer (a deadlock). A merge moving the account to another user changes a key column (FOR
 * UPDATE) and still takes turns with every balance writer.
 */
export async function lockAccount(client: Queryable, accountId: string): Promise<AccountRow> {
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
 * Moves points on a LOCKED account and records the transaction. Earned points (positive EARN,
 * REFERRAL_BONUS, positive ADJUST) also count towards lifetime points (a reversal takes them off:
 * `lifetimeChange`), and the tier follows them.
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
