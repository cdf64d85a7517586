/**
 * The points ledger's rules without I/O: the kinds of movement, the most an account holds, and
 * how a movement changes the balance and the lifetime points (domain/loyalty.ts re-exports them).
 */

/**
 * Kinds of points movement in a traveller's ledger. VOUCHER_REFUND returns the points of a voucher
 * cancelled because the company withdrew its reward; EARN_REVERSAL takes back the points a booking
 * earned once it is refunded in full (earnReversal).
 */
export type LedgerKind = 'EARN' | 'REDEEM' | 'ADJUST' | 'REFERRAL_BONUS' | 'VOUCHER_REFUND' | 'EARN_REVERSAL';

export interface EarnReversal {
  /** Points taken off the balance (≥ 0). */
  taken: number;
  /** Points of the booking already spent, which cannot be taken back. */
  shortfall: number;
  lifetimeAfter: number;
}

/**
 * Taking back the `earned` points of a booking refunded in full (README: points go only to bookings
 * not refunded): the balance gives back what it still holds of them, never going below zero (points
 * already spent stay spent: the shortfall), and the lifetime total, which decides the tier, loses
 * all of them.
 */
export function earnReversal(
  account: { balance: number; lifetimePoints: number },
  earned: number,
): EarnReversal {
  const taken = Math.min(Math.max(earned, 0), account.balance);
  return {
    taken,
    shortfall: Math.max(earned, 0) - taken,
    lifetimeAfter: Math.max(0, account.lifetimePoints - Math.max(earned, 0)),
  };
}

/** The most points an account holds, as balance or lifetime total (a 32-bit column each). */
export const MAX_ACCOUNT_POINTS = 2_147_483_647;

/**
 * How many earned points (they add to the balance and the lifetime total) an account can still take
 * before either reaches the limit.
 */
export const pointsRoom = (account: { balance: number; lifetimePoints: number }): number =>
  MAX_ACCOUNT_POINTS - Math.max(account.balance, account.lifetimePoints);

/**
 * How many points that are not earned (a refunded voucher's: they add to the balance only) an
 * account can still take; its lifetime total does not limit them.
 */
export const balanceRoom = (balance: number): number => MAX_ACCOUNT_POINTS - balance;

/**
 * A movement of `points` (signed) on a balance: the balance after it and the points it adds to
 * the lifetime total (points earned: a positive EARN, REFERRAL_BONUS or ADJUST; never a
 * redemption or a refunded voucher). Null when the balance would go negative.
 */
export function ledgerChange(
  balance: number,
  kind: LedgerKind,
  points: number,
): { balanceAfter: number; earned: number } | null {
  const balanceAfter = balance + points;
  if (balanceAfter < 0) return null;
  const earns = kind !== 'REDEEM' && kind !== 'VOUCHER_REFUND' && kind !== 'EARN_REVERSAL';
  return { balanceAfter, earned: earns && points > 0 ? points : 0 };
}
