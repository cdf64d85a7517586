/**
 * Loyalty writes, one module per use case: the account and its ledger (account.ts), vouchers used
 * on bookings and previews (voucher.ts), redeeming points for a voucher (redeem.ts), referrals
 * (referral.ts), points earned when a trip completes (earn.ts) and taken back when its booking is
 * refunded (reversal.ts).
 */
export { adjustPoints, adjustPointsWithin, ensureAccount, openAccount } from './account.js';
export { awardTripPoints, settleTripEarning, type TripPointsResult } from './earn.js';
export { redeemReward, type Redemption } from './redeem.js';
export { storedRedemption } from './redeem-key.js';
export { recordReferral } from './referral.js';
export { reverseBookingPoints, type ReversedPoints } from './reversal.js';
export { LoyaltyRefusal, type LoyaltyErrorCode } from './refusal.js';
export { consumeVoucher, previewVoucher, type AppliedVoucher, type VoucherUse } from './voucher.js';
