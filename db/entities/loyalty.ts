import { p } from '@mikro-orm/core';
import {
  baseEntity,
  bilingualName,
  companyEntity,
  entity,
  stampedNow,
  updatedAt,
  usableOnceUntil,
} from './base.js';

/**
 * Loyalty: one program per company with its tiers and reward catalogue, one account per traveller
 * and company, the points ledger, vouchers (redemptions) and referrals. A program's key is its
 * company, so the other tables' company_id points at the program.
 */
export const LoyaltyProgram = entity('LoyaltyProgram', 'loyalty_programs', {
  companyId: p.uuid().primary(),
  ...bilingualName(),
  active: p.boolean().default(true),
  pointsPer100: p.integer().fieldName('points_per_100').default(1),
  referralPoints: p.integer().default(0),
  createdAt: stampedNow(),
  updatedAt: updatedAt(),
});

export const LoyaltyTier = companyEntity('LoyaltyTier', 'loyalty_tiers', {
  ...bilingualName(),
  minLifetimePoints: p.integer(),
  multiplierPercent: p.integer().default(100),
  updatedAt: updatedAt(),
});

/** A catalogue entry; whether its fields fit its type is checked when a voucher is used. */
export const LoyaltyReward = companyEntity('LoyaltyReward', 'loyalty_rewards', {
  code: p.text(),
  ...bilingualName(),
  type: p.text(),
  discountPercent: p.integer().nullable(),
  discountAmount: p.bigint('number').nullable(),
  maxDiscount: p.bigint('number').nullable(),
  freeSeats: p.integer().nullable(),
  pointsCost: p.integer(),
  minSubtotal: p.bigint('number').nullable(),
  routeIds: p.array().columnType('uuid[]').default([]),
  /** ISO weekdays, 1 (Monday) to 7; empty: every day. */
  allowedDays: p.array<number>(Number, String).columnType('integer[]').default([]),
  voucherValidDays: p.integer().default(30),
  active: p.boolean().default(true),
  maxRedemptions: p.integer().nullable(),
  redemptionCount: p.integer().default(0),
  /** Deleted while vouchers still point at it: those vouchers stop working. */
  archivedAt: p.datetime().nullable(),
  updatedAt: updatedAt(),
});

export const LoyaltyAccount = companyEntity('LoyaltyAccount', 'loyalty_accounts', {
  userId: p.uuid(),
  passengerId: p.uuid().nullable(),
  balance: p.integer().default(0),
  lifetimePoints: p.integer().default(0),
  tierId: p.uuid().nullable(),
  referralCode: p.text().unique(),
  updatedAt: updatedAt(),
});

/** A voucher (RWD- code) bought with points. */
export const LoyaltyRedemption = baseEntity('LoyaltyRedemption', 'loyalty_redemptions', {
  code: p.text().unique(),
  accountId: p.uuid(),
  companyId: p.uuid(),
  rewardId: p.uuid(),
  userId: p.uuid(),
  pointsUsed: p.integer(),
  status: p.enum(['ISSUED', 'USED', 'EXPIRED', 'CANCELLED'] as const).default('ISSUED'),
  ...usableOnceUntil(),
  usedBookingIds: p.array().columnType('uuid[]').default([]),
  discount: p.bigint('number').nullable(),
  /**
   * When a refund or its traveller's cancel touched a live booking the voucher paid for: it stays
   * spent for good, and a later trip CANCEL never gives it back (only while USED).
   */
  forfeitedAt: p.datetime().nullable(),
  /** The reward's terms when the voucher was issued (a trigger copies them); later edits never change them. */
  terms: p.json<Record<string, unknown>>(),
});

/** The points ledger; clock_timestamp() keeps entries of one transaction in order. */
export const LoyaltyTransaction = baseEntity('LoyaltyTransaction', 'loyalty_transactions', {
  accountId: p.uuid(),
  companyId: p.uuid(),
  kind: p.enum(['EARN', 'REDEEM', 'ADJUST', 'REFERRAL_BONUS', 'VOUCHER_REFUND', 'EARN_REVERSAL'] as const),
  points: p.integer(),
  balanceAfter: p.integer(),
  bookingId: p.uuid().nullable(),
  redemptionId: p.uuid().nullable(),
  note: p.text().nullable(),
  /** The company user who adjusted the balance by hand, with the reason they gave. */
  actorStaffUserId: p.uuid().nullable(),
  reason: p.text().nullable(),
  createdAt: p.datetime().defaultRaw('clock_timestamp()'),
});

export const LoyaltyReferral = companyEntity('LoyaltyReferral', 'loyalty_referrals', {
  referrerAccountId: p.uuid(),
  refereeAccountId: p.uuid(),
  status: p.enum(['PENDING', 'REWARDED'] as const).default('PENDING'),
  rewardedAt: p.datetime().nullable(),
});
