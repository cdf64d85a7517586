import { randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import {
  isRedeemableType,
  referralCodeFrom,
  rewardConfigurationValid,
  tierFor,
  tripPoints,
  voucherCodeFrom,
  voucherConditionRefusal,
  voucherDiscount,
  VOUCHER_CODE_PATTERN,
  type VoucherLine,
  type VoucherRefusalCode,
} from '../../domain/loyalty.js';
import type { Database } from '../orm.js';
import { listTiers, rewardTermsOf, type RewardTermsRow } from '../queries/loyalty.js';
import { Refusal } from '../../domain/refusal.js';

/**
 * Loyalty writes. Balances change only here, each change in one transaction that first locks the
 * traveller's account row (FOR UPDATE), so a balance can never be spent twice or go negative (the
 * CHECK on balance backs this up), and every change leaves a loyalty_transactions row with the
 * balance after it.
 */

export type LoyaltyErrorCode =
  | VoucherRefusalCode
  | 'LOYALTY_PROGRAM_NOT_FOUND'
  | 'LOYALTY_REWARD_NOT_FOUND'
  | 'LOYALTY_REWARD_EXHAUSTED'
  | 'LOYALTY_INSUFFICIENT_POINTS'
  | 'LOYALTY_REFERRAL_NOT_FOUND'
  | 'LOYALTY_REFERRAL_SELF'
  | 'LOYALTY_REFERRAL_ALREADY_USED'
  | 'LOYALTY_REFERRAL_NOT_NEW';

/** A loyalty rule refused the request: a stable errorCode and its HTTP status (409 unless it is a 404). */
export class LoyaltyRefusal extends Refusal {
  declare readonly code: LoyaltyErrorCode;
  declare readonly status: 404 | 409;
  constructor(
    code: LoyaltyErrorCode,
    message: string,
    details?: Record<string, unknown>,
    status: 404 | 409 = 409,
  ) {
    super(status, code, message, details);
  }
}

type Queryable = Pick<PoolClient, 'query'>;

const VOUCHER_REFUSAL_TEXT: Record<VoucherRefusalCode, string> = {
  LOYALTY_REDEMPTION_NOT_FOUND: 'No voucher with this code belongs to you',
  LOYALTY_REDEMPTION_USED: 'This voucher has already been used',
  LOYALTY_REDEMPTION_EXPIRED: 'This voucher has expired',
  LOYALTY_REWARD_UNSUPPORTED: 'This reward cannot be used on a booking',
  LOYALTY_REWARD_CONFIGURATION_INVALID: 'This reward is set up in a way that cannot be applied',
  LOYALTY_ROUTE_NOT_ELIGIBLE: 'This voucher does not apply to this company or route',
  LOYALTY_DAY_NOT_ELIGIBLE: 'This voucher does not apply on the day of departure',
  LOYALTY_MINIMUM_NOT_MET: 'The booking total is below the minimum of this voucher',
};

const voucherRefusal = (code: VoucherRefusalCode, details?: Record<string, unknown>) =>
  new LoyaltyRefusal(code, VOUCHER_REFUSAL_TEXT[code], details);

export interface VoucherUse {
  /** The voucher code (`RWD-` + 8 characters) the traveller got from POST /loyalty/redeem. */
  code: string;
  /** The signed-in traveller; another traveller's voucher is NOT_FOUND. */
  userId: string;
  /** The bookings the voucher pays for, recorded on the voucher. */
  bookingIds?: string[];
  /** The trips bought, in booking order (outbound first); the discount is split over them in this order. */
  lines: VoucherLine[];
}

export interface AppliedVoucher {
  redemptionId: string;
  discount: number;
  /** Per line, in input order; sums to `discount`. */
  lineDiscounts: number[];
}

interface VoucherRow extends RewardTermsRow {
  id: string;
  user_id: string;
  company_id: string;
  status: string;
  expired: boolean;
  type: string;
  archived: boolean;
}

/**
 * Checks a voucher against a purchase in SPEC's order and computes its discount; throws the first
 * refusal. `lock` takes the voucher row FOR UPDATE so the caller's transaction owns it until commit.
 */
async function checkVoucher(client: Queryable, input: VoucherUse, lock: boolean): Promise<AppliedVoucher> {
  const code = input.code.trim().toUpperCase();
  // A catalogue reward code never has the voucher form, so it is simply not a voucher.
  if (!VOUCHER_CODE_PATTERN.test(code)) throw voucherRefusal('LOYALTY_REDEMPTION_NOT_FOUND');
  const { rows } = await client.query<VoucherRow>(
    `select r.id, r.user_id, r.company_id, r.status, r.expires_at <= now() as expired,
            w.type, w.archived_at is not null as archived, w.discount_percent, w.discount_amount,
            w.max_discount, w.free_seats, w.min_subtotal, w.route_ids::text[] as route_ids, w.allowed_days
       from loyalty_redemptions r
       join loyalty_rewards w on w.id = r.reward_id
      where r.code = $1
      ${lock ? 'for update of r' : ''}`,
    [code],
  );
  const voucher = rows[0];
  if (!voucher || voucher.user_id !== input.userId || voucher.status === 'CANCELLED') {
    throw voucherRefusal('LOYALTY_REDEMPTION_NOT_FOUND');
  }
  if (voucher.status === 'USED') throw voucherRefusal('LOYALTY_REDEMPTION_USED');
  if (voucher.status === 'EXPIRED' || voucher.expired) throw voucherRefusal('LOYALTY_REDEMPTION_EXPIRED');
  if (!isRedeemableType(voucher.type) || voucher.archived) throw voucherRefusal('LOYALTY_REWARD_UNSUPPORTED');
  const terms = rewardTermsOf(voucher);
  if (!rewardConfigurationValid(terms)) throw voucherRefusal('LOYALTY_REWARD_CONFIGURATION_INVALID');
  const refusal = voucherConditionRefusal(terms, voucher.company_id, input.lines);
  if (refusal === 'LOYALTY_MINIMUM_NOT_MET')
    throw voucherRefusal(refusal, { minSubtotal: terms.minSubtotal });
  if (refusal) throw voucherRefusal(refusal);
  return { redemptionId: voucher.id, ...voucherDiscount(terms, input.lines) };
}

/**
 * Applies a voucher inside the caller's (booking) transaction: locks it, checks owner, status,
 * expiry, reward type, configuration, company and routes, days and minimum (in that order; the
 * first failure throws a LoyaltyRefusal), and marks it USED with the discount and booking ids.
 * Two bookings racing for one voucher serialize on the row lock; the second sees USED.
 */
export async function consumeVoucher(client: PoolClient, input: VoucherUse): Promise<AppliedVoucher> {
  const applied = await checkVoucher(client, input, true);
  await client.query(
    `update loyalty_redemptions
        set status = 'USED', used_at = now(), used_booking_ids = $2::uuid[], discount = $3
      where id = $1`,
    [applied.redemptionId, input.bookingIds ?? [], applied.discount],
  );
  return applied;
}

/** The same checks and discount as consumeVoucher, consuming nothing (POST /loyalty/preview). */
export async function previewVoucher(client: Queryable, input: VoucherUse): Promise<AppliedVoucher> {
  return checkVoucher(client, input, false);
}

interface AccountRow {
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

async function lockAccount(client: Queryable, accountId: string): Promise<AccountRow> {
  const { rows } = await client.query<AccountRow>(
    `select id, company_id, balance, lifetime_points from loyalty_accounts where id = $1 for update`,
    [accountId],
  );
  return rows[0]!;
}

interface LedgerEntry {
  accountId: string;
  companyId: string;
  kind: 'EARN' | 'REDEEM' | 'ADJUST' | 'REFERRAL_BONUS';
  points: number;
  bookingId?: string | null;
  redemptionId?: string | null;
  note?: string | null;
}

/**
 * Moves points on a LOCKED account and records the transaction. Earned points (positive EARN,
 * REFERRAL_BONUS, positive ADJUST) also count towards lifetime points, and the tier follows them.
 */
async function post(client: Queryable, account: AccountRow, entry: LedgerEntry): Promise<number> {
  const balanceAfter = account.balance + entry.points;
  if (balanceAfter < 0) {
    throw new LoyaltyRefusal('LOYALTY_INSUFFICIENT_POINTS', 'Not enough points', {
      balance: account.balance,
      pointsNeeded: -entry.points,
    });
  }
  const earned = entry.kind !== 'REDEEM' && entry.points > 0 ? entry.points : 0;
  await client.query(
    `update loyalty_accounts
        set balance = $2, lifetime_points = lifetime_points + $3, updated_at = now(),
            tier_id = case when $3 > 0 then (
              select t.id from loyalty_tiers t
               where t.company_id = loyalty_accounts.company_id and t.min_lifetime_points <= lifetime_points + $3
               order by t.min_lifetime_points desc limit 1) else tier_id end
      where id = $1`,
    [account.id, balanceAfter, earned],
  );
  await client.query(
    `insert into loyalty_transactions (account_id, company_id, kind, points, balance_after, booking_id, redemption_id, note)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      account.id,
      entry.companyId,
      entry.kind,
      entry.points,
      balanceAfter,
      entry.bookingId ?? null,
      entry.redemptionId ?? null,
      entry.note ?? null,
    ],
  );
  account.balance = balanceAfter;
  account.lifetime_points += earned;
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

export interface Redemption {
  id: string;
  code: string;
  pointsUsed: number;
  expiresAt: Date;
}

interface RewardRow extends RewardTermsRow {
  id: string;
  type: string;
  active: boolean;
  points_cost: number;
  max_redemptions: number | null;
  redemption_count: number;
  voucher_valid_days: number;
}

/**
 * POST /loyalty/redeem: in ONE transaction locks the traveller's account in the company, then the
 * reward row, checks the reward (active, redeemable type, sane configuration, not sold out) and
 * the balance, deducts the points, bumps the redemption counter, records the REDEEM transaction
 * and creates the voucher. Concurrent redeems on one account run one after another, so a balance
 * that covers one reward yields exactly one voucher.
 */
export async function redeemReward(
  db: Database,
  input: { companyId: string; userId: string; rewardCode: string },
): Promise<Redemption> {
  const accountId = await ensureAccount(db.pool, input.companyId, input.userId);
  return db.transaction(async (client) => {
    const account = await lockAccount(client, accountId);
    const { rows } = await client.query<RewardRow>(
      `select id, type, active, points_cost, max_redemptions, redemption_count, voucher_valid_days,
              discount_percent, discount_amount, max_discount, free_seats, min_subtotal,
              route_ids::text[] as route_ids, allowed_days
         from loyalty_rewards
        where company_id = $1 and code = $2 and archived_at is null
        for update`,
      [input.companyId, input.rewardCode],
    );
    const reward = rows[0];
    if (!reward || !reward.active) {
      throw new LoyaltyRefusal(
        'LOYALTY_REWARD_NOT_FOUND',
        'No active reward with this code in this program',
        undefined,
        404,
      );
    }
    if (!isRedeemableType(reward.type)) {
      throw new LoyaltyRefusal('LOYALTY_REWARD_UNSUPPORTED', 'This reward cannot be redeemed for a voucher');
    }
    // Spending points on a voucher no booking could accept would take the points for nothing.
    if (!rewardConfigurationValid(rewardTermsOf(reward))) {
      throw new LoyaltyRefusal(
        'LOYALTY_REWARD_CONFIGURATION_INVALID',
        VOUCHER_REFUSAL_TEXT.LOYALTY_REWARD_CONFIGURATION_INVALID,
      );
    }
    if (reward.max_redemptions !== null && reward.redemption_count >= reward.max_redemptions) {
      throw new LoyaltyRefusal(
        'LOYALTY_REWARD_EXHAUSTED',
        'This reward has been redeemed as often as the company allows',
      );
    }
    if (account.balance < reward.points_cost) {
      throw new LoyaltyRefusal('LOYALTY_INSUFFICIENT_POINTS', 'Not enough points for this reward', {
        balance: account.balance,
        pointsCost: reward.points_cost,
      });
    }
    await client.query(
      `update loyalty_rewards set redemption_count = redemption_count + 1, updated_at = now() where id = $1`,
      [reward.id],
    );
    const voucher = await insertVoucher(client, {
      accountId,
      companyId: input.companyId,
      rewardId: reward.id,
      userId: input.userId,
      pointsUsed: reward.points_cost,
      validDays: reward.voucher_valid_days,
    });
    await post(client, account, {
      accountId,
      companyId: input.companyId,
      kind: 'REDEEM',
      points: -reward.points_cost,
      redemptionId: voucher.id,
    });
    return voucher;
  });
}

async function insertVoucher(
  client: Queryable,
  input: {
    accountId: string;
    companyId: string;
    rewardId: string;
    userId: string;
    pointsUsed: number;
    validDays: number;
  },
): Promise<Redemption> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    // "do nothing" on a code collision keeps the transaction alive for another try.
    const { rows } = await client.query<{ id: string; code: string; expires_at: Date }>(
      `insert into loyalty_redemptions (code, account_id, company_id, reward_id, user_id, points_used, expires_at)
       values ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7))
       on conflict (code) do nothing
       returning id, code, expires_at`,
      [
        voucherCodeFrom(randomBytes(8)),
        input.accountId,
        input.companyId,
        input.rewardId,
        input.userId,
        input.pointsUsed,
        input.validDays,
      ],
    );
    const row = rows[0];
    if (row)
      return {
        id: row.id,
        code: row.code,
        pointsUsed: input.pointsUsed,
        expiresAt: new Date(row.expires_at),
      };
  }
  throw new Error('could not create a unique voucher code');
}

/**
 * POST /loyalty/referral: records that the caller was referred by the holder of `referralCode` in
 * the same company. Refused: an unknown code or one of another company (404
 * LOYALTY_REFERRAL_NOT_FOUND), the caller's own code (LOYALTY_REFERRAL_SELF), a caller already
 * referred in this company (LOYALTY_REFERRAL_ALREADY_USED), a caller who already completed a trip
 * with the company (LOYALTY_REFERRAL_NOT_NEW).
 */
export async function recordReferral(
  db: Database,
  input: { companyId: string; userId: string; referralCode: string },
): Promise<{ referralId: string; status: 'PENDING' }> {
  const accountId = await ensureAccount(db.pool, input.companyId, input.userId);
  return db.transaction(async (client) => {
    await lockAccount(client, accountId);
    const { rows: referrers } = await client.query<{ id: string; user_id: string }>(
      `select id, user_id from loyalty_accounts where referral_code = $1 and company_id = $2`,
      [input.referralCode.trim().toUpperCase(), input.companyId],
    );
    const referrer = referrers[0];
    if (!referrer) {
      throw new LoyaltyRefusal(
        'LOYALTY_REFERRAL_NOT_FOUND',
        'No referral code like this in this program',
        undefined,
        404,
      );
    }
    if (referrer.user_id === input.userId) {
      throw new LoyaltyRefusal('LOYALTY_REFERRAL_SELF', 'You cannot use your own referral code');
    }
    const { rows: previous } = await client.query(
      `select 1 from loyalty_referrals where company_id = $1 and referee_account_id = $2`,
      [input.companyId, accountId],
    );
    if (previous.length > 0) {
      throw new LoyaltyRefusal(
        'LOYALTY_REFERRAL_ALREADY_USED',
        'You have already been referred in this program',
      );
    }
    if (await hasTravelled(client, input.companyId, input.userId, accountId)) {
      throw new LoyaltyRefusal(
        'LOYALTY_REFERRAL_NOT_NEW',
        'Referrals are for travellers new to this company',
      );
    }
    const { rows } = await client.query<{ id: string }>(
      `insert into loyalty_referrals (company_id, referrer_account_id, referee_account_id)
       values ($1, $2, $3) returning id`,
      [input.companyId, referrer.id, accountId],
    );
    return { referralId: rows[0]!.id, status: 'PENDING' as const };
  });
}

/** A completed trip with the company: a completed booking, a check-in on a completed trip, or points earned. */
async function hasTravelled(
  client: Queryable,
  companyId: string,
  userId: string,
  accountId: string,
): Promise<boolean> {
  const { rows } = await client.query(
    `select 1 from bookings b join trips t on t.id = b.trip_id
      where b.company_id = $1 and b.owner_user_id = $2
        and (b.status = 'COMPLETED' or (b.status = 'CHECKED_IN' and t.status = 'COMPLETED'))
     union all
     select 1 from loyalty_transactions where account_id = $3 and kind = 'EARN'
     limit 1`,
    [companyId, userId, accountId],
  );
  return rows.length > 0;
}

export interface TripPointsResult {
  /** Bookings credited by this call (0 on a replay). */
  bookingsCredited: number;
  pointsCredited: number;
  referralsRewarded: number;
}

interface EarningBooking {
  id: string;
  owner_user_id: string;
  total_price: string;
}

/**
 * Points earning, run when a trip is COMPLETED (for the dispatch COMPLETE action to call). Every
 * booking of the trip with status COMPLETED or CHECKED_IN (not cancelled, no-show or refunded)
 * earns floor(total_price / 100 × points_per_100 × tier multiplier / 100) points for its owner in
 * the trip company's active program, once per booking however often this runs; the tier follows
 * the lifetime points; a pending referral of that traveller is rewarded (referral_points to both).
 * Each booking is one transaction, so a failure leaves the others credited and a rerun finishes.
 */
export async function awardTripPoints(db: Database, tripId: string): Promise<TripPointsResult> {
  const result: TripPointsResult = { bookingsCredited: 0, pointsCredited: 0, referralsRewarded: 0 };
  const { rows: trips } = await db.pool.query<{
    company_id: string;
    points_per_100: number;
    referral_points: number;
  }>(
    `select t.company_id, p.points_per_100, p.referral_points
       from trips t join loyalty_programs p on p.company_id = t.company_id and p.active
      where t.id = $1 and t.status = 'COMPLETED'`,
    [tripId],
  );
  const program = trips[0];
  if (!program) return result;
  const tiers = await listTiers(db, program.company_id);
  const { rows: bookings } = await db.pool.query<EarningBooking>(
    `select id, owner_user_id, total_price from bookings
      where trip_id = $1 and owner_user_id is not null
        and status in ('COMPLETED', 'CHECKED_IN') and payment_status <> 'REFUNDED'
      order by id`,
    [tripId],
  );
  for (const booking of bookings) {
    const accountId = await ensureAccount(db.pool, program.company_id, booking.owner_user_id);
    await db.transaction(async (client) => {
      const account = await lockAccount(client, accountId);
      const { rows: done } = await client.query(
        `select 1 from loyalty_transactions where account_id = $1 and kind = 'EARN' and booking_id = $2`,
        [accountId, booking.id],
      );
      if (done.length > 0) return;
      const multiplier = tierFor(account.lifetime_points, tiers)?.multiplierPercent ?? 100;
      const points = tripPoints(Number(booking.total_price), program.points_per_100, multiplier);
      if (points > 0) {
        await post(client, account, {
          accountId,
          companyId: program.company_id,
          kind: 'EARN',
          points,
          bookingId: booking.id,
        });
        result.pointsCredited += points;
      }
      result.bookingsCredited += 1;
      if (await rewardReferral(client, program, account, booking.id)) result.referralsRewarded += 1;
    });
  }
  return result;
}

/** Rewards the pending referral of a traveller (a LOCKED account) whose first trip just completed. */
async function rewardReferral(
  client: Queryable,
  program: { company_id: string; referral_points: number },
  referee: AccountRow,
  bookingId: string,
): Promise<boolean> {
  const { rows } = await client.query<{ id: string; referrer_account_id: string }>(
    `update loyalty_referrals set status = 'REWARDED', rewarded_at = now()
      where company_id = $1 and referee_account_id = $2 and status = 'PENDING'
      returning id, referrer_account_id`,
    [program.company_id, referee.id],
  );
  const referral = rows[0];
  if (!referral) return false;
  if (program.referral_points > 0) {
    const bonus = {
      companyId: program.company_id,
      kind: 'REFERRAL_BONUS' as const,
      points: program.referral_points,
      bookingId,
    };
    await post(client, referee, { ...bonus, accountId: referee.id, note: 'referred traveller' });
    const referrer = await lockAccount(client, referral.referrer_account_id);
    await post(client, referrer, { ...bonus, accountId: referrer.id, note: 'referral completed a trip' });
  }
  return true;
}
