import { Migration } from '@mikro-orm/migrations';

/**
 * Since this release a refund that keeps its booking (a compensation) revokes the booking's VALID
 * tickets with reason BOOKING_COMPENSATED, not BOOKING_REFUNDED (db/writes/payment-decisions.ts), so
 * a trip CANCEL ending that booking later is read as its end (db/queries/booking-ending.ts). Entries
 * written before it are relabelled where they can be told apart for sure: a BOOKING_REFUNDED entry
 * of a ticket of a booking still live on that ticket's trip is a compensation's, since a refund that
 * ends its booking cancels it in the same transaction. A kept booking a trip CANCEL has already
 * ended looks like one a refund ended (both CANCELLED, tickets CANCELLED, the refund's entry first)
 * and keeps its entry: its confirmation and analytics still read the refund.
 */
export const RELABEL_COMPENSATIONS = `update credential_revocations cr set reason = 'BOOKING_COMPENSATED'
  from journey_tickets k join bookings b on b.journey_id = k.journey_id and b.trip_id = k.trip_id
  where cr.ticket_id = k.id and cr.reason = 'BOOKING_REFUNDED' and b.status not in ('CANCELLED', 'EXPIRED')`;

export class Migration20261206142100_compensation_revocation_reason extends Migration {
  override up(): void {
    this.addSql(RELABEL_COMPENSATIONS);
  }

  override down(): void {
    // The entries keep BOOKING_COMPENSATED (README "Rolling back"): relabelled BOOKING_REFUNDED, a kept
    // booking a trip CANCEL ended since could never be told apart again (up() relabels live bookings
    // only). The code before this release reads a revocation's reason only as TRIP_CANCELLED or not
    // (a booking's ending, a voucher's return) and REISSUED or not (document shares), so it reads them
    // as the BOOKING_REFUNDED it writes itself; the column is free text, no check or enum forbids it.
  }
}
