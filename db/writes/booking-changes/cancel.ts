import { cancellationDecision } from '../../../domain/booking-rules.js';
import { cancellationCutoffMinutes } from '../../../domain/company-settings.js';
import { companyCancellationCutoff } from '../../queries/company-settings.js';
import type { Database } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { endJourneyBooking } from './end-booking.js';
import { factsOf, lockOwnBooking, lockTripsOf, refuseWith, type BookingCaller } from './own-booking.js';

/**
 * POST /bookings/{id}/cancel: the booking, its journey (and the journey's single-journey order),
 * tickets and seats end together; signed credentials go on the revocation list. A voucher the
 * booking used stays spent. booking.cancelled is recorded in the same transaction (the steps are
 * endJourneyBooking's, which a full refund of a booking that has not travelled takes too). Cancelling a
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
    // An imported booking (no journey) was refused above (cancellationDecision).
    await endJourneyBooking(client, { ...booking, journey_id: booking.journey_id! }, 'BOOKING_CANCELLED');
  });
}
