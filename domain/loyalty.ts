import { OPERATING_TIME_ZONE } from './time.js';

/**
 * Loyalty rules without I/O: which vouchers apply to which trips, how much they take off, how
 * points are earned and which tier a traveller is in.
 */

/** SPEC's codes for a rejected voucher (409 in preview and in booking creation). */
export type VoucherRefusalCode =
  | 'LOYALTY_REDEMPTION_NOT_FOUND'
  | 'LOYALTY_REDEMPTION_USED'
  | 'LOYALTY_REDEMPTION_EXPIRED'
  | 'LOYALTY_REWARD_UNSUPPORTED'
  | 'LOYALTY_REWARD_CONFIGURATION_INVALID'
  | 'LOYALTY_ROUTE_NOT_ELIGIBLE'
  | 'LOYALTY_DAY_NOT_ELIGIBLE'
  | 'LOYALTY_MINIMUM_NOT_MET';

/** What a traveller reads for each rejected voucher. */
export const VOUCHER_REFUSAL_TEXT: Record<VoucherRefusalCode, string> = {
  LOYALTY_REDEMPTION_NOT_FOUND: 'No voucher with this code belongs to you',
  LOYALTY_REDEMPTION_USED: 'This voucher has already been used',
  LOYALTY_REDEMPTION_EXPIRED: 'This voucher has expired',
  LOYALTY_REWARD_UNSUPPORTED: 'This reward cannot be used on a booking',
  LOYALTY_REWARD_CONFIGURATION_INVALID: 'This reward is set up in a way that cannot be applied',
  LOYALTY_ROUTE_NOT_ELIGIBLE: 'This voucher does not apply to this company or route',
  LOYALTY_DAY_NOT_ELIGIBLE: 'This voucher does not apply on the day of departure',
  LOYALTY_MINIMUM_NOT_MET: 'The booking total is below the minimum of this voucher',
};

/** Reward types a traveller can turn into a voucher; others (e.g. merchandise) are handed out at the office. */
export const REDEEMABLE_REWARD_TYPES = ['discount', 'free_trip'] as const;
export type RedeemableRewardType = (typeof REDEEMABLE_REWARD_TYPES)[number];

export function isRedeemableType(type: string): type is RedeemableRewardType {
  return (REDEEMABLE_REWARD_TYPES as readonly string[]).includes(type);
}

/** Voucher codes: `RWD-` + 8 characters without look-alikes (no 0/O, 1/I). */
export const VOUCHER_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const VOUCHER_CODE_PATTERN = /^RWD-[A-HJ-NP-Z2-9]{8}$/;

/** A voucher code from 8 random bytes (the modulo bias of 256 % 32 = 0 is none). */
export function voucherCodeFrom(bytes: Uint8Array): string {
  if (bytes.length < 8) throw new Error('a voucher code needs 8 random bytes');
  let code = 'RWD-';
  for (let index = 0; index < 8; index += 1)
    code += VOUCHER_ALPHABET[bytes[index]! % VOUCHER_ALPHABET.length];
  return code;
}

/** Referral codes share the alphabet; 8 characters give 32^8 ≈ 10^12 codes. */
export function referralCodeFrom(bytes: Uint8Array): string {
  return voucherCodeFrom(bytes).slice('RWD-'.length);
}

export interface RewardTerms {
  type: string;
  discountPercent: number | null;
  discountAmount: number | null;
  maxDiscount: number | null;
  freeSeats: number | null;
  minSubtotal: number | null;
  /** Empty: every route of the company. */
  routeIds: string[];
  /** ISO weekdays 1 (Monday) .. 7 (Sunday); empty: every day. */
  allowedDays: number[];
}

/** One trip of the purchase the voucher is applied to. */
export interface VoucherLine {
  tripId: string;
  companyId: string;
  routeId: string;
  departureAt: Date;
  /** What this trip costs the traveller before the discount (all seats). */
  subtotal: number;
  /** Each booked seat's own fare on this trip: a free trip covers the cheapest freeSeats of them. */
  seatPrices?: readonly number[];
  /**
   * A preview's line, which knows no seats: every seat at the trip's base (standard) fare, the
   * cheapest a seat usually costs. Without either, a free trip covers the whole line.
   */
  baseSeatPrice?: number;
}

/**
 * Whether a redeemable reward's fields fit its type: a discount has exactly one of a percent
 * (1..100, optional cap) or a positive amount; a free trip has a seat count.
 */
export function rewardConfigurationValid(reward: RewardTerms): boolean {
  const positive = (value: number | null) => value !== null && Number.isFinite(value) && value > 0;
  if (reward.maxDiscount !== null && !positive(reward.maxDiscount)) return false;
  if (reward.minSubtotal !== null && !(reward.minSubtotal >= 0)) return false;
  if (reward.allowedDays.some((day) => !Number.isInteger(day) || day < 1 || day > 7)) return false;
  if (reward.type === 'free_trip')
    return reward.freeSeats !== null && Number.isInteger(reward.freeSeats) && reward.freeSeats > 0;
  if (reward.type !== 'discount') return false;
  const hasPercent = reward.discountPercent !== null;
  const hasAmount = reward.discountAmount !== null;
  if (hasPercent === hasAmount) return false;
  if (hasPercent)
    return (
      Number.isInteger(reward.discountPercent) &&
      reward.discountPercent! >= 1 &&
      reward.discountPercent! <= 100
    );
  return positive(reward.discountAmount);
}

const weekdayFormatter = new Intl.DateTimeFormat('en-US', {
  timeZone: OPERATING_TIME_ZONE,
  weekday: 'short',
});
const ISO_WEEKDAY: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** ISO weekday (1 = Monday .. 7 = Sunday) of an instant in Damascus. */
export function damascusIsoWeekday(instant: Date): number {
  return ISO_WEEKDAY[weekdayFormatter.format(instant)]!;
}

/**
 * The first condition of the reward that the purchase misses, in SPEC's order (route, day,
 * minimum), or null when the voucher applies. Every line must belong to the voucher's company
 * (a voucher never crosses companies) and, for a restricted reward, to one of its routes; every
 * line must depart on an allowed day; the minimum is on the total of all lines.
 */
export function voucherConditionRefusal(
  reward: RewardTerms,
  voucherCompanyId: string,
  lines: readonly VoucherLine[],
): VoucherRefusalCode | null {
  const routeEligible = (line: VoucherLine) =>
    line.companyId === voucherCompanyId &&
    (reward.routeIds.length === 0 || reward.routeIds.includes(line.routeId));
  if (lines.length === 0 || !lines.every(routeEligible)) return 'LOYALTY_ROUTE_NOT_ELIGIBLE';
  if (
    reward.allowedDays.length > 0 &&
    !lines.every((line) => reward.allowedDays.includes(damascusIsoWeekday(line.departureAt)))
  ) {
    return 'LOYALTY_DAY_NOT_ELIGIBLE';
  }
  if (reward.minSubtotal !== null && totalOf(lines) < reward.minSubtotal) return 'LOYALTY_MINIMUM_NOT_MET';
  return null;
}

export interface VoucherDiscount {
  /** Total taken off, never more than the total subtotal. */
  discount: number;
  /** The discount per line, in line order, proportional to the subtotals; they sum to `discount` exactly. */
  lineDiscounts: number[];
}

/**
 * What a valid voucher takes off: a percent of the total (rounded down, capped by maxDiscount), a
 * fixed amount, or for a free trip the price of freeSeats seats on the cheapest line (freeTripValue).
 * Never more than the total.
 */
export function voucherDiscount(reward: RewardTerms, lines: readonly VoucherLine[]): VoucherDiscount {
  const total = totalOf(lines);
  let discount: number;
  if (reward.type === 'free_trip') {
    discount = Math.min(...lines.map((line) => freeTripValue(line, reward.freeSeats ?? 0)));
  } else if (reward.discountPercent !== null) {
    discount = Math.floor((total * reward.discountPercent) / 100);
    if (reward.maxDiscount !== null) discount = Math.min(discount, reward.maxDiscount);
  } else {
    discount = reward.discountAmount ?? 0;
  }
  discount = Math.max(0, Math.min(Math.floor(discount), total));
  return {
    discount,
    lineDiscounts: splitProportionally(
      discount,
      lines.map((line) => line.subtotal),
    ),
  };
}

/**
 * What freeSeats free seats are worth on one line: its cheapest freeSeats seats at their own fares
 * (the usual reading of a free seat: a standard seat, not the VIP one beside it, and never an
 * average that is the price of no seat), freeSeats at the base fare in a preview, or the whole line
 * when no seat price is known. Never more than the line.
 */
function freeTripValue(line: VoucherLine, freeSeats: number): number {
  if (line.seatPrices) {
    const cheapest = [...line.seatPrices].sort((a, b) => a - b).slice(0, freeSeats);
    return Math.min(
      line.subtotal,
      cheapest.reduce((sum, price) => sum + price, 0),
    );
  }
  if (line.baseSeatPrice !== undefined) return Math.min(line.subtotal, line.baseSeatPrice * freeSeats);
  return line.subtotal;
}

/**
 * Splits `amount` (≤ the sum of `parts`) over the parts in proportion, rounding down and putting
 * the remainder on the last part; a share never exceeds its part (any excess moves to earlier parts).
 */
export function splitProportionally(amount: number, parts: readonly number[]): number[] {
  const total = parts.reduce((sum, part) => sum + part, 0);
  if (parts.length === 0) return [];
  if (total <= 0 || amount <= 0) return parts.map(() => 0);
  const shares = parts.map((part) => Math.floor((amount * part) / total));
  shares[shares.length - 1] = amount - shares.slice(0, -1).reduce((sum, share) => sum + share, 0);
  for (let index = shares.length - 1; index > 0; index -= 1) {
    const excess = shares[index]! - parts[index]!;
    if (excess > 0) {
      shares[index] = parts[index]!;
      shares[index - 1] = shares[index - 1]! + excess;
    }
  }
  return shares;
}

/**
 * A preview's subtotal over its trips (POST /loyalty/preview gets one subtotal for all): in
 * proportion to each trip's base seat price, rounding down, the remainder on the last trip (equal
 * parts when no trip has a price).
 */
export function previewShares(subtotal: number, seatPrices: readonly number[]): number[] {
  const priceTotal = seatPrices.reduce((sum, price) => sum + price, 0);
  let assigned = 0;
  return seatPrices.map((price, index) => {
    const last = index === seatPrices.length - 1;
    const share = last
      ? subtotal - assigned
      : priceTotal > 0
        ? Math.floor((subtotal * price) / priceTotal)
        : Math.floor(subtotal / seatPrices.length);
    assigned += share;
    return share;
  });
}

function totalOf(lines: readonly VoucherLine[]): number {
  return lines.reduce((sum, line) => sum + line.subtotal, 0);
}

/**
 * Points for a completed booking: floor(amount paid / 100 × points_per_100 × tier multiplier / 100).
 * Integer arithmetic, so 250 SYP at 3 points per 100 and a 150% tier is floor(250·3·150 / 10000) = 11.
 */
export function tripPoints(amountPaid: number, pointsPer100: number, multiplierPercent: number): number {
  if (amountPaid <= 0 || pointsPer100 <= 0 || multiplierPercent <= 0) return 0;
  return Math.floor((amountPaid * pointsPer100 * multiplierPercent) / 10_000);
}

export interface Tier {
  id: string;
  minLifetimePoints: number;
  multiplierPercent: number;
}

/** The highest tier whose threshold the lifetime points reach, or null below every tier. */
export function tierFor<T extends Tier>(lifetimePoints: number, tiers: readonly T[]): T | null {
  let reached: T | null = null;
  for (const tier of tiers) {
    if (
      tier.minLifetimePoints <= lifetimePoints &&
      (reached === null || tier.minLifetimePoints > reached.minLifetimePoints)
    ) {
      reached = tier;
    }
  }
  return reached;
}

/** The lowest tier above the current lifetime points, or null at the top. */
export function nextTierAfter<T extends Tier>(lifetimePoints: number, tiers: readonly T[]): T | null {
  let next: T | null = null;
  for (const tier of tiers) {
    if (
      tier.minLifetimePoints > lifetimePoints &&
      (next === null || tier.minLifetimePoints < next.minLifetimePoints)
    ) {
      next = tier;
    }
  }
  return next;
}

/** A stored voucher (a redemption of a reward) as its checks see it. */
export interface VoucherFacts {
  ownerUserId: string;
  companyId: string;
  /** ISSUED, USED, EXPIRED or CANCELLED. */
  status: string;
  /** expires_at has passed. */
  expired: boolean;
  rewardType: string;
  rewardArchived: boolean;
  terms: RewardTerms;
}

/**
 * Why the caller may not apply this voucher (undefined: no voucher has the code) to these trips,
 * checked in SPEC's order: owner (another traveller's or a cancelled voucher is not found),
 * status, expiry, reward type, configuration, then the conditions (company and routes, days,
 * minimum). Null when it applies.
 */
export function voucherUseRefusal(
  voucher: VoucherFacts | undefined,
  userId: string,
  lines: readonly VoucherLine[],
): { code: VoucherRefusalCode; details?: Record<string, unknown> } | null {
  if (!voucher || voucher.ownerUserId !== userId || voucher.status === 'CANCELLED') {
    return { code: 'LOYALTY_REDEMPTION_NOT_FOUND' };
  }
  if (voucher.status === 'USED') return { code: 'LOYALTY_REDEMPTION_USED' };
  if (voucher.status === 'EXPIRED' || voucher.expired) return { code: 'LOYALTY_REDEMPTION_EXPIRED' };
  if (!isRedeemableType(voucher.rewardType) || voucher.rewardArchived) {
    return { code: 'LOYALTY_REWARD_UNSUPPORTED' };
  }
  if (!rewardConfigurationValid(voucher.terms)) return { code: 'LOYALTY_REWARD_CONFIGURATION_INVALID' };
  const condition = voucherConditionRefusal(voucher.terms, voucher.companyId, lines);
  if (condition === 'LOYALTY_MINIMUM_NOT_MET') {
    return { code: condition, details: { minSubtotal: voucher.terms.minSubtotal } };
  }
  return condition ? { code: condition } : null;
}

export type RedeemRefusalCode =
  | 'LOYALTY_REWARD_NOT_FOUND'
  | 'LOYALTY_REWARD_UNSUPPORTED'
  | 'LOYALTY_REWARD_CONFIGURATION_INVALID'
  | 'LOYALTY_REWARD_EXHAUSTED'
  | 'LOYALTY_INSUFFICIENT_POINTS';

export interface RedeemRefusal {
  status: 404 | 409;
  code: RedeemRefusalCode;
  message: string;
  details?: Record<string, unknown>;
}

/** A catalogue reward as redeeming it sees it. */
export interface RedeemableReward {
  active: boolean;
  terms: RewardTerms;
  pointsCost: number;
  /** null: unlimited. */
  maxRedemptions: number | null;
  redemptionCount: number;
}

/**
 * Why points cannot buy this reward (undefined: no reward of the program has the code), or null:
 * it is active, of a redeemable type, sanely configured (spending points on a voucher no booking
 * could accept would take them for nothing), not sold out, and the balance covers its cost.
 */
export function redeemRefusal(reward: RedeemableReward | undefined, balance: number): RedeemRefusal | null {
  if (!reward || !reward.active) {
    return {
      status: 404,
      code: 'LOYALTY_REWARD_NOT_FOUND',
      message: 'No active reward with this code in this program',
    };
  }
  if (!isRedeemableType(reward.terms.type)) {
    return {
      status: 409,
      code: 'LOYALTY_REWARD_UNSUPPORTED',
      message: 'This reward cannot be redeemed for a voucher',
    };
  }
  if (!rewardConfigurationValid(reward.terms)) {
    const code = 'LOYALTY_REWARD_CONFIGURATION_INVALID';
    return { status: 409, code, message: VOUCHER_REFUSAL_TEXT[code] };
  }
  if (reward.maxRedemptions !== null && reward.redemptionCount >= reward.maxRedemptions) {
    return {
      status: 409,
      code: 'LOYALTY_REWARD_EXHAUSTED',
      message: 'This reward has been redeemed as often as the company allows',
    };
  }
  if (balance < reward.pointsCost) {
    return {
      status: 409,
      code: 'LOYALTY_INSUFFICIENT_POINTS',
      message: 'Not enough points for this reward',
      details: { balance, pointsCost: reward.pointsCost },
    };
  }
  return null;
}

// The points ledger's rules (kinds, the account limit, reversals) live in loyalty-ledger.ts.
export * from './loyalty-ledger.js';
