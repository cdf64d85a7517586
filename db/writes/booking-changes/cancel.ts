import { cancellationDecision } from '../../../domain/booking-rules.js';
import { cancellationCutoffMinutes } from '../../../domain/company-settings.js';
import { companyCancellationCutoff } from '../../queries/company-settings.js';
import type { Database } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { allocationsInIdOrder } from '../allocation-locks.js';
import { revokeCredentialsOf } from '../boarding-credentials.js';
import { withBookingEvents } from '../outbox.js';
import { factsOf, lockOwnBooking, lockTripsOf, refuseWith, type BookingCaller } from './own-booking.js';

/**
 * POST /bookings/{id}/cancel: the booking, its journey (and the journey's single-journey order),
 * tickets and seats end together; signed credentials go on the revocation list. A voucher the
 * booking used stays spent. booking.cancelled is recorded in the same transaction. Cancelling a
 * cancelled booking changes nothing. The cut-off is the company's own (dashboard settings), else
 * `options.cutoffMinutes` (BOOKING_CANCEL_CUTOFF_MINUTES); once the company sent DEPART the
 * departure has happened, whatever the timetable says. The booking's trip is taken FOR SHARE after
 * the journey, so a DEPART and this cancel take turns; a trip CANCEL locks the trip before the
 * journeys, and when the two deadlock PostgreSQL aborts one and it runs again.
 */
export async function cancelBooking(
  db: Database,
  caller: BookingCaller,
  bookingId: string,
  options: { cutoffMinutes: number; now?: Date },
): Promise<void> {
  const now = options.now ?? new Date();
  await withDeadlockRetry(() => endBooking(db, caller, bookingId, { ...options, now }));
}

async function endBooking(
  db: Database,
  caller: BookingCaller,
  bookingId: string,
  options: { cutoffMinutes: number; now: Date },
): Promise<void> {
  await db.transaction(async (client) => {
    const booking = await lockOwnBooking(client, caller.userId, bookingId);
    const tripStatus = await lockTripsOf(client, booking, [], 'share');
    const companyCutoff = await companyCancellationCutoff(client, booking.company_id);
    const cutoff = cancellationCutoffMinutes(companyCutoff, options.cutoffMinutes);
    const decision = cancellationDecision(factsOf(booking, tripStatus), options.now, cutoff);
    if (decision === 'ALREADY_CANCELLED') return;
    refuseWith(decision);
    const journeyId = booking.journey_id!;
    await client.query(
      `update seat_allocations set status = 'RELEASED', released_at = now()
       where ${allocationsInIdOrder(`owner_kind = 'JOURNEY' and owner_id = $1 and status in ('HELD', 'CONFIRMED')`)}`,
      [journeyId],
    );
    await client.query(
      `update journey_tickets set status = 'CANCELLED', boarding_authorized = false
       where journey_id = $1 and status <> 'REISSUED'`,
      [journeyId],
    );
    await revokeCredentialsOf(client, { kind: 'JOURNEY', id: journeyId }, 'BOOKING_CANCELLED');
    // Nothing is left to collect for a cancelled booking.
    await client.query(
      `update payment_operations set status = 'CANCELLED', updated_at = now() where booking_id = $1 and status = 'PENDING'`,
      [booking.id],
    );
    await client.query(
      withBookingEvents(`update bookings set status = 'CANCELLED', updated_at = now() where id = $1`, [
        'booking.cancelled',
      ]),
      [booking.id],
    );
    await client.query(
      `update journeys set status = 'CANCELLED', closed_at = now(), updated_at = now() where id = $1`,
      [journeyId],
    );
    if (booking.order_id) {
      await client.query(
        `update journey_orders set status = 'CANCELLED', closed_at = now(), updated_at = now() where id = $1`,
        [booking.order_id],
      );
    }
  });
}
