import {
  VOUCHER_REFUSAL_TEXT,
  type RedeemRefusal,
  type RedeemRefusalCode,
  type VoucherRefusalCode,
} from '../../../domain/loyalty.js';
import { Refusal } from '../../../domain/refusal.js';

export type LoyaltyErrorCode =
  | VoucherRefusalCode
  | RedeemRefusalCode
  | 'LOYALTY_PROGRAM_NOT_FOUND'
  | 'LOYALTY_REFERRAL_NOT_FOUND'
  | 'LOYALTY_REFERRAL_SELF'
  | 'LOYALTY_REFERRAL_ALREADY_USED'
  | 'LOYALTY_REFERRAL_NOT_NEW'
  | 'LOYALTY_REFERRAL_MUTUAL'
  | 'LOYALTY_BALANCE_LIMIT';

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

  /** The refusal the redeem rule answered with. */
  static of(refusal: RedeemRefusal): LoyaltyRefusal {
    return new LoyaltyRefusal(refusal.code, refusal.message, refusal.details, refusal.status);
  }
}

export const voucherRefusal = (code: VoucherRefusalCode, details?: Record<string, unknown>) =>
  new LoyaltyRefusal(code, VOUCHER_REFUSAL_TEXT[code], details);
