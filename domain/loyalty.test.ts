import { describe, expect, it } from 'vitest';
import {
  damascusIsoWeekday,
  ledgerChange,
  nextTierAfter,
  previewShares,
  redeemRefusal,
  rewardConfigurationValid,
  splitProportionally,
  tierFor,
  tripPoints,
  voucherCodeFrom,
  voucherConditionRefusal,
  voucherDiscount,
  voucherUseRefusal,
  VOUCHER_CODE_PATTERN,
  type RewardTerms,
  type VoucherFacts,
  type VoucherLine,
} from './loyalty.js';

const COMPANY = 'c0000000-0000-4000-8000-000000000001';
const ROUTE = 'r0000000-0000-4000-8000-000000000001';
// 2030-01-05 is a Saturday; 08:00 in Damascus.
const SATURDAY = new Date('2030-01-05T08:00:00+03:00');
const MONDAY = new Date('2030-01-07T08:00:00+03:00');

const percent = (overrides: Partial<RewardTerms> = {}): RewardTerms => ({
  type: 'discount',
  discountPercent: 10,
  discountAmount: null,
  maxDiscount: null,
  freeSeats: null,
  minSubtotal: null,
  routeIds: [],
  allowedDays: [],
  ...overrides,
});

const line = (subtotal: number, overrides: Partial<VoucherLine> = {}): VoucherLine => ({
  tripId: 't',
  companyId: COMPANY,
  routeId: ROUTE,
  departureAt: MONDAY,
  subtotal,
  ...overrides,
});

describe('voucher codes', () => {
  it('are RWD- and 8 characters without look-alikes', () => {
    const code = voucherCodeFrom(new Uint8Array([0, 1, 8, 14, 31, 255, 100, 200]));
    expect(code).toMatch(VOUCHER_CODE_PATTERN);
    expect(code).not.toMatch(/[01IO]/);
  });
});

describe('reward configuration', () => {
  it('accepts a percent discount, an amount discount and a free trip with a seat count', () => {
    expect(rewardConfigurationValid(percent())).toBe(true);
    expect(rewardConfigurationValid(percent({ discountPercent: null, discountAmount: 5000 }))).toBe(true);
    expect(
      rewardConfigurationValid(percent({ type: 'free_trip', discountPercent: null, freeSeats: 1 })),
    ).toBe(true);
  });

  it('refuses a percent outside 1..100, an amount ≤ 0, both or neither, and a free trip without seats', () => {
    expect(rewardConfigurationValid(percent({ discountPercent: 0 }))).toBe(false);
    expect(rewardConfigurationValid(percent({ discountPercent: 101 }))).toBe(false);
    expect(rewardConfigurationValid(percent({ discountPercent: null, discountAmount: 0 }))).toBe(false);
    expect(rewardConfigurationValid(percent({ discountAmount: 100 }))).toBe(false);
    expect(rewardConfigurationValid(percent({ discountPercent: null }))).toBe(false);
    expect(rewardConfigurationValid(percent({ type: 'free_trip', discountPercent: null }))).toBe(false);
    expect(rewardConfigurationValid(percent({ type: 'merchandise' }))).toBe(false);
  });
});

describe('voucher conditions', () => {
  it('refuses another company, a route outside the restriction, a day not allowed, a total below the minimum — in that order', () => {
    expect(voucherConditionRefusal(percent(), COMPANY, [line(100, { companyId: 'other' })])).toBe(
      'LOYALTY_ROUTE_NOT_ELIGIBLE',
    );
    expect(voucherConditionRefusal(percent({ routeIds: ['elsewhere'] }), COMPANY, [line(100)])).toBe(
      'LOYALTY_ROUTE_NOT_ELIGIBLE',
    );
    expect(
      voucherConditionRefusal(percent({ allowedDays: [5, 6], minSubtotal: 1000 }), COMPANY, [line(100)]),
    ).toBe('LOYALTY_DAY_NOT_ELIGIBLE');
    expect(voucherConditionRefusal(percent({ minSubtotal: 1000 }), COMPANY, [line(600), line(300)])).toBe(
      'LOYALTY_MINIMUM_NOT_MET',
    );
  });

  it('accepts a weekend reward on a Saturday departure and a minimum reached by both directions together', () => {
    expect(
      voucherConditionRefusal(percent({ allowedDays: [5, 6] }), COMPANY, [
        line(100, { departureAt: SATURDAY }),
      ]),
    ).toBeNull();
    expect(
      voucherConditionRefusal(percent({ minSubtotal: 900 }), COMPANY, [line(600), line(300)]),
    ).toBeNull();
  });

  it('reads the weekday in Damascus, not UTC', () => {
    // 23:30 UTC on Friday is 02:30 on Saturday in Damascus.
    expect(damascusIsoWeekday(new Date('2030-01-04T23:30:00Z'))).toBe(6);
  });
});

describe('voucher discount', () => {
  it('takes a percent rounded down, capped by maxDiscount', () => {
    expect(voucherDiscount(percent({ discountPercent: 15 }), [line(10_001)]).discount).toBe(1500);
    expect(
      voucherDiscount(percent({ discountPercent: 50, maxDiscount: 2000 }), [line(10_000)]).discount,
    ).toBe(2000);
  });

  it('never takes more than the subtotal', () => {
    expect(
      voucherDiscount(percent({ discountPercent: null, discountAmount: 50_000 }), [line(12_000)]).discount,
    ).toBe(12_000);
  });

  it('makes the seats of a free trip free on the cheapest trip', () => {
    const terms = percent({ type: 'free_trip', discountPercent: null, freeSeats: 1 });
    expect(
      voucherDiscount(terms, [
        line(30_000, { seatPrices: [10_000, 10_000, 10_000] }),
        line(16_000, { seatPrices: [8_000, 8_000] }),
      ]).discount,
    ).toBe(8_000);
    expect(voucherDiscount(terms, [line(9_000), line(12_000)]).discount).toBe(9_000);
  });

  it("frees a free trip's cheapest seats at their own fares, never an average seat", () => {
    const free = (freeSeats: number) => percent({ type: 'free_trip', discountPercent: null, freeSeats });
    const mixed = line(25_000, { seatPrices: [15_000, 10_000] });
    expect(voucherDiscount(free(1), [mixed]).discount).toBe(10_000);
    expect(voucherDiscount(free(2), [mixed]).discount).toBe(25_000);
    expect(voucherDiscount(free(3), [mixed]).discount).toBe(25_000);
    // A round trip: the cheaper trip's cheapest seat, 10 000 against 12 000.
    expect(voucherDiscount(free(1), [mixed, line(32_000, { seatPrices: [12_000, 20_000] })]).discount).toBe(
      10_000,
    );
    // A preview knows no seats: freeSeats at the base fare, never more than the line.
    expect(voucherDiscount(free(2), [line(25_000, { baseSeatPrice: 10_000 })]).discount).toBe(20_000);
    expect(voucherDiscount(free(3), [line(25_000, { baseSeatPrice: 10_000 })]).discount).toBe(25_000);
  });

  it('splits the discount over the trips in proportion, the parts summing exactly', () => {
    const { discount, lineDiscounts } = voucherDiscount(
      percent({ discountPercent: null, discountAmount: 1000 }),
      [line(3333), line(6667)],
    );
    expect(discount).toBe(1000);
    expect(lineDiscounts).toEqual([333, 667]);
  });

  it('never gives a part more than its own subtotal', () => {
    const parts = splitProportionally(3, [1, 1, 1]);
    expect(parts).toEqual([1, 1, 1]);
    expect(splitProportionally(5, [2, 3])).toEqual([2, 3]);
    expect(splitProportionally(0, [2, 3])).toEqual([0, 0]);
    // The rounding remainder would land on the small last part: what exceeds it moves to the one before.
    expect(splitProportionally(6, [3, 3, 1])).toEqual([2, 3, 1]);
  });

  it('a fixed 4 999 SYP voucher on trips of 2 500 + 2 500 + 0: no booking total goes below zero', () => {
    const lines = [line(2500), line(2500), line(0)];
    const { discount, lineDiscounts } = voucherDiscount(
      percent({ discountPercent: null, discountAmount: 4999 }),
      lines,
    );
    expect(discount).toBe(4999);
    expect(lineDiscounts).toEqual([2499, 2500, 0]);
    expect(lines.map((l, index) => l.subtotal - lineDiscounts[index]!)).toEqual([1, 0, 0]);
  });
});

describe('points earning', () => {
  it('is floor(paid / 100 × points_per_100 × multiplier / 100)', () => {
    expect(tripPoints(250, 3, 150)).toBe(11);
    expect(tripPoints(25_000, 1, 100)).toBe(250);
    expect(tripPoints(99, 1, 100)).toBe(0);
    expect(tripPoints(0, 5, 100)).toBe(0);
  });

  it('places a traveller in the highest tier reached and names the next one', () => {
    const tiers = [
      { id: 'bronze', minLifetimePoints: 0, multiplierPercent: 100 },
      { id: 'gold', minLifetimePoints: 5000, multiplierPercent: 150 },
      { id: 'silver', minLifetimePoints: 1000, multiplierPercent: 120 },
    ];
    expect(tierFor(999, tiers)?.id).toBe('bronze');
    expect(tierFor(1000, tiers)?.id).toBe('silver');
    expect(nextTierAfter(1000, tiers)?.id).toBe('gold');
    expect(nextTierAfter(9000, tiers)).toBeNull();
  });
});

describe('using a voucher', () => {
  const USER = 'u1';
  const voucher = (overrides: Partial<VoucherFacts> = {}): VoucherFacts => ({
    ownerUserId: USER,
    companyId: COMPANY,
    status: 'ISSUED',
    expired: false,
    rewardType: 'discount',
    rewardArchived: false,
    terms: percent(),
    ...overrides,
  });
  const codeOf = (facts: VoucherFacts | undefined, lines = [line(100)]) =>
    voucherUseRefusal(facts, USER, lines)?.code ?? null;

  it('accepts the owner’s issued voucher on an eligible trip', () => {
    expect(codeOf(voucher())).toBeNull();
  });

  it('treats a missing, another traveller’s or a cancelled voucher as not found', () => {
    expect(codeOf(undefined)).toBe('LOYALTY_REDEMPTION_NOT_FOUND');
    expect(codeOf(voucher({ ownerUserId: 'u2' }))).toBe('LOYALTY_REDEMPTION_NOT_FOUND');
    expect(codeOf(voucher({ status: 'CANCELLED' }))).toBe('LOYALTY_REDEMPTION_NOT_FOUND');
  });

  it('checks status, expiry, reward type, configuration, then the conditions — in that order', () => {
    expect(codeOf(voucher({ status: 'USED', expired: true }))).toBe('LOYALTY_REDEMPTION_USED');
    expect(codeOf(voucher({ expired: true, rewardArchived: true }))).toBe('LOYALTY_REDEMPTION_EXPIRED');
    expect(codeOf(voucher({ status: 'EXPIRED' }))).toBe('LOYALTY_REDEMPTION_EXPIRED');
    expect(codeOf(voucher({ rewardType: 'merchandise' }))).toBe('LOYALTY_REWARD_UNSUPPORTED');
    expect(codeOf(voucher({ rewardArchived: true }))).toBe('LOYALTY_REWARD_UNSUPPORTED');
    expect(codeOf(voucher({ terms: percent({ discountPercent: 0 }) }))).toBe(
      'LOYALTY_REWARD_CONFIGURATION_INVALID',
    );
    expect(codeOf(voucher({ companyId: 'other' }))).toBe('LOYALTY_ROUTE_NOT_ELIGIBLE');
  });

  it('names the minimum when the total is below it', () => {
    expect(voucherUseRefusal(voucher({ terms: percent({ minSubtotal: 500 }) }), USER, [line(100)])).toEqual({
      code: 'LOYALTY_MINIMUM_NOT_MET',
      details: { minSubtotal: 500 },
    });
  });
});

describe('redeeming points for a voucher', () => {
  const reward = (overrides: Partial<Parameters<typeof redeemRefusal>[0] & object> = {}) => ({
    active: true,
    terms: percent(),
    pointsCost: 100,
    maxRedemptions: null,
    redemptionCount: 0,
    ...overrides,
  });

  it('accepts an active, sane, available reward the balance covers', () => {
    expect(redeemRefusal(reward(), 100)).toBeNull();
  });

  it('refuses, in order, a missing or inactive reward (404), an unsupported type, a bad configuration, a sold-out reward and too few points', () => {
    expect(redeemRefusal(undefined, 100)).toMatchObject({ status: 404, code: 'LOYALTY_REWARD_NOT_FOUND' });
    expect(redeemRefusal(reward({ active: false }), 100)?.code).toBe('LOYALTY_REWARD_NOT_FOUND');
    expect(redeemRefusal(reward({ terms: percent({ type: 'merchandise' }) }), 100)?.code).toBe(
      'LOYALTY_REWARD_UNSUPPORTED',
    );
    expect(redeemRefusal(reward({ terms: percent({ discountPercent: 101 }) }), 100)?.code).toBe(
      'LOYALTY_REWARD_CONFIGURATION_INVALID',
    );
    expect(redeemRefusal(reward({ maxRedemptions: 3, redemptionCount: 3 }), 0)?.code).toBe(
      'LOYALTY_REWARD_EXHAUSTED',
    );
    expect(redeemRefusal(reward(), 99)).toEqual({
      status: 409,
      code: 'LOYALTY_INSUFFICIENT_POINTS',
      message: 'Not enough points for this reward',
      details: { balance: 99, pointsCost: 100 },
    });
  });
});

describe('the points ledger', () => {
  it('counts points earned towards the lifetime total, never a redemption', () => {
    expect(ledgerChange(10, 'EARN', 5)).toEqual({ balanceAfter: 15, earned: 5 });
    expect(ledgerChange(10, 'REFERRAL_BONUS', 5)).toEqual({ balanceAfter: 15, earned: 5 });
    expect(ledgerChange(10, 'ADJUST', -4)).toEqual({ balanceAfter: 6, earned: 0 });
    expect(ledgerChange(10, 'REDEEM', -10)).toEqual({ balanceAfter: 0, earned: 0 });
  });

  it('never lets a balance go negative', () => {
    expect(ledgerChange(10, 'REDEEM', -11)).toBeNull();
    expect(ledgerChange(0, 'ADJUST', -1)).toBeNull();
  });
});

describe('a preview subtotal over its trips', () => {
  it('splits in proportion to the base seat prices, the remainder on the last trip', () => {
    expect(previewShares(1000, [1000])).toEqual([1000]);
    expect(previewShares(1000, [1000, 2000])).toEqual([333, 667]);
  });

  it('splits equally when no trip has a price', () => {
    expect(previewShares(1001, [0, 0])).toEqual([500, 501]);
  });
});
