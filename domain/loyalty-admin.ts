import { isRedeemableType, rewardConfigurationValid, type RewardTerms } from './loyalty.js';
import { Refusal } from './refusal.js';

/**
 * The company's side of its loyalty programme (SPEC "Company dashboard API", loyalty program
 * writes): what a reward, a tier and a manual adjustment may be. The writes in
 * db/writes/loyalty/admin-*.ts check these before they change anything.
 */

/** discount and free_trip become vouchers; merchandise is handed out at the office and never redeemed online. */
export const REWARD_TYPES = ['discount', 'free_trip', 'merchandise'] as const;
export type RewardType = (typeof REWARD_TYPES)[number];

/** A reward as the company defines it (POST and PUT /loyalty/rewards). */
export interface RewardDefinition extends RewardTerms {
  code: string;
  nameAr: string;
  nameEn: string;
  type: RewardType;
  pointsCost: number;
  voucherValidDays: number;
  active: boolean;
  maxRedemptions: number | null;
}

/** Catalogue codes are what a company prints; voucher codes (RWD-...) are made by redeeming only. */
export const REWARD_CODE_PATTERN = /^(?!RWD-)[A-Z0-9][A-Z0-9_-]{1,31}$/;

export class LoyaltyAdminRefusal extends Refusal {}

/**
 * Why a reward definition cannot be saved, or null. A redeemable reward's fields must fit its
 * type exactly as a voucher of it is checked (a discount has exactly one of a percent and an
 * amount, a free trip a seat count), so no voucher is ever issued that no booking could accept;
 * merchandise carries no voucher terms at all.
 */
export function rewardDefinitionRefusal(reward: RewardDefinition): Refusal | null {
  if (isRedeemableType(reward.type)) {
    if (rewardConfigurationValid(reward)) return null;
    return new LoyaltyAdminRefusal(
      400,
      'LOYALTY_REWARD_CONFIGURATION_INVALID',
      'A discount needs exactly one of discountPercent and discountAmount; a free trip needs freeSeats',
    );
  }
  const voucherTerms = [reward.discountPercent, reward.discountAmount, reward.maxDiscount, reward.freeSeats];
  if (
    voucherTerms.some((term) => term !== null) ||
    reward.minSubtotal !== null ||
    reward.routeIds.length > 0
  ) {
    return new LoyaltyAdminRefusal(
      400,
      'LOYALTY_REWARD_CONFIGURATION_INVALID',
      'Merchandise is not redeemed for a voucher: it takes no discount, seats, minimum or routes',
    );
  }
  return null;
}

/** SPEC: no reward for a route the company does not run (another company's, unknown or inactive). */
export function routesNotRunRefusal(routeIds: readonly string[]): Refusal {
  return new LoyaltyAdminRefusal(
    422,
    'LOYALTY_ROUTE_NOT_OWNED',
    'A reward may only name routes the company runs',
    {
      routeIds: [...routeIds],
    },
  );
}

/** A reward's redemption limit cannot drop below the vouchers already issued. */
export function redemptionLimitRefusal(maxRedemptions: number | null, redeemed: number): Refusal | null {
  if (maxRedemptions === null || maxRedemptions >= redeemed) return null;
  return new LoyaltyAdminRefusal(
    409,
    'LOYALTY_REWARD_LIMIT_BELOW_REDEEMED',
    'maxRedemptions is below the number of vouchers already issued',
    { maxRedemptions, redeemed },
  );
}

/** Largest points one manual adjustment may move, either way. */
export const MAX_ADJUSTMENT_POINTS = 1_000_000;
