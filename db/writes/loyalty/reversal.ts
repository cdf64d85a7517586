import { earnReversal } from '../../../domain/loyalty.js';
import { lockAccount, post, type Queryable } from './account.js';

/**
 * A booking refunded in full gives back the points it earned (README: points go only to bookings
 * not refunded). Runs in the refund's transaction, which already holds the booking row (FOR
 * UPDATE): awardTripPoints takes that row (FOR SHARE) before the account too, so the two meet in
 * one order (booking, then the programme row and the account: lockAccount) and never deadlock; an
 * award waiting behind the refund then finds the booking refunded and credits nothing. A tier change
 * takes the programme row and then accounts, never a booking, so it meets both in that order too.
 */

interface EarnEntry {
  account_id: string;
  company_id: string;
  points: number;
  booking_code: string;
}

export interface ReversedPoints {
  /** Points taken off the balances. */
  pointsTaken: number;
  /** Points of the booking already spent, not taken back. */
  pointsSpent: number;
}

/**
 * Takes back every EARN of `bookingId` not yet reversed: an EARN_REVERSAL entry per account, whose
 * balance loses what it still holds of the points (never below zero; a shortfall already spent is
 * written in the entry's note, and the entry is written even when nothing is left to take) and whose
 * lifetime points lose all of them, the tier following. Referral bonuses stay: they reward the
 * referral, not the fare.
 */
export async function reverseBookingPoints(client: Queryable, bookingId: string): Promise<ReversedPoints> {
  const { rows: entries } = await client.query<EarnEntry>(
    `select e.account_id, e.company_id, e.points, b.booking_code
       from loyalty_transactions e join bookings b on b.id = e.booking_id
      where e.booking_id = $1 and e.kind = 'EARN' and not exists (
              select 1 from loyalty_transactions r
               where r.account_id = e.account_id and r.booking_id = e.booking_id and r.kind = 'EARN_REVERSAL')
      order by e.account_id`,
    [bookingId],
  );
  const reversed: ReversedPoints = { pointsTaken: 0, pointsSpent: 0 };
  for (const entry of entries) {
    const account = await lockAccount(client, entry.account_id);
    const { taken, shortfall, lifetimeAfter } = earnReversal(
      { balance: account.balance, lifetimePoints: account.lifetime_points },
      entry.points,
    );
    const spent = shortfall > 0 ? `; ${shortfall} of them already spent, not taken back` : '';
    await post(client, account, {
      accountId: account.id,
      companyId: entry.company_id,
      kind: 'EARN_REVERSAL',
      points: -taken,
      lifetimeChange: lifetimeAfter - account.lifetime_points,
      bookingId,
      note: `Booking ${entry.booking_code} refunded: its ${entry.points} points taken back${spent}`,
    });
    reversed.pointsTaken += taken;
    reversed.pointsSpent += shortfall;
  }
  return reversed;
}
