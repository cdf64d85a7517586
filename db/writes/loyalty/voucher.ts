import type { PoolClient } from 'pg';
import {
  voucherDiscount,
  voucherUseRefusal,
  VOUCHER_CODE_PATTERN,
  type VoucherFacts,
  type VoucherLine,
} from '../../../domain/loyalty.js';
import { FROZEN_TERMS_COLUMNS, rewardTermsOf, type RewardTermsRow } from '../../queries/loyalty.js';
import type { Queryable } from './account.js';
import { voucherRefusal } from './refusal.js';

/** Using a voucher: checked and priced for a preview, and consumed by a booking transaction. */

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

const toVoucherFacts = (row: VoucherRow): VoucherFacts => ({
  ownerUserId: row.user_id,
  companyId: row.company_id,
  status: row.status,
  expired: row.expired,
  rewardType: row.type,
  rewardArchived: row.archived,
  terms: rewardTermsOf(row),
});

/**
 * Checks a voucher against a purchase in SPEC's order and computes its discount; throws the first
 * refusal. `lock` takes the voucher row FOR UPDATE first, so the caller's transaction owns it until
 * commit, and then reads it with its reward in a statement of its own: a statement that waited for
 * the row would see the reward as it was when it began, missing a withdrawal that committed meanwhile.
 */
async function checkVoucher(client: Queryable, input: VoucherUse, lock: boolean): Promise<AppliedVoucher> {
  const code = input.code.trim().toUpperCase();
  // A catalogue reward code never has the voucher form, so it is simply not a voucher.
  if (!VOUCHER_CODE_PATTERN.test(code)) throw voucherRefusal('LOYALTY_REDEMPTION_NOT_FOUND');
  if (lock) await client.query(`select 1 from loyalty_redemptions where code = $1 for update`, [code]);
  const { rows } = await client.query<VoucherRow>(
    // The terms the voucher was issued with (frozen by the insight migration's trigger): editing the
    // reward later never changes a voucher already issued; withdrawing it (archived) does.
    `select r.id, r.user_id, r.company_id, r.status, r.expires_at <= now() as expired,
            w.archived_at is not null as archived, ${FROZEN_TERMS_COLUMNS}
       from loyalty_redemptions r
       join loyalty_rewards w on w.id = r.reward_id
      where r.code = $1`,
    [code],
  );
  const row = rows[0];
  const voucher = row ? toVoucherFacts(row) : undefined;
  const refusal = voucherUseRefusal(voucher, input.userId, input.lines);
  if (refusal) throw voucherRefusal(refusal.code, refusal.details);
  // voucherUseRefusal refuses a code no voucher has, so there is one here.
  return { redemptionId: row!.id, ...voucherDiscount(voucher!.terms, input.lines) };
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
