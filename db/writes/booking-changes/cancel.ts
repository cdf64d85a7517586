import type { PoolClient } from 'pg';
import {
  bookingNotFound,
  cancellationDecision,
  refusalOfBooking,
  type BookingFacts,
} from '../../../domain/booking-rules.js';
import { cancellationCutoffMinutes } from '../../../domain/company-settings.js';
import { companyCancellationCutoff } from '../../queries/company-settings.js';
import type { Database } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { endJourneyBooking } from './end-booking.js';
import {
  lockedFactsOf,
  lockOwnAggregate,
  lockTrips,
  refuseWith,
  type BookingCaller,
  type LockedBooking,
} from './own-booking.js';

interface CancelOptions {
  cutoffMinutes: number;
  now: Date;
}

/** Statuses of a booking of the aggregate that has already ended: nothing is left to cancel. */
const ENDED: readonly string[] = ['CANCELLED', 'EXPIRED'];

/**
 * POST /bookings/{id}/cancel: the booking and every other booking of its aggregate (its journey
 * order's, else its journey's: a round trip, a connection, an order of several journeys) end
 * together in ONE transaction, all or nothing. Each booking must pass the rules a single cancel
 * applies (the caller's, CONFIRMED, unpaid, not checked in, its company's cut-off before its own
 * announced departure): the first refusal met (the booking asked for first, then the others in id
 * order) is answered, its details naming the other booking (details.booking_id), and nothing is
 * written. Bookings of the aggregate already CANCELLED or EXPIRED are left as they are. Then each
 * ends as endJourneyBooking ends it (seats, tickets and credentials, pending cash, booking.cancelled),
 * and the journeys and the order once nothing of them is left. A voucher used stays spent.
 * Cancelling a cancelled booking changes nothing. The cut-off is the company's own (dashboard
 * settings), else `options.cutoffMinutes` (BOOKING_CANCEL_CUTOFF_MINUTES); once the company sent
 * DEPART the departure has happened, whatever the timetable says. Locks (lockOwnAggregate): the
 * order, its journeys in id order, their bookings in id order, then every booking's trip FOR SHARE
 * in id order, so a DEPART and this cancel take turns; a DEPART or a trip CANCEL locks its trip
 * before the bookings, and when the two deadlock PostgreSQL aborts one and it runs again.
 * Answers the ids of the other bookings this request cancelled.
 */
export async function cancelBooking(
  db: Database,
  caller: BookingCaller,
  bookingId: string,
  options: { cutoffMinutes: number; now?: Date },
): Promise<string[]> {
  const now = options.now ?? new Date();
  return withDeadlockRetry(() => endAggregate(db, caller, bookingId, { ...options, now }));
}

async function endAggregate(
  db: Database,
  caller: BookingCaller,
  bookingId: string,
  options: CancelOptions,
): Promise<string[]> {
  return db.transaction(async (client) => {
    const bookings = await lockOwnAggregate(client, caller.userId, bookingId);
    const trips = await lockTrips(
      client,
      bookings.map((booking) => booking.trip_id),
      'share',
    );
    const facts = await lockedFactsOf(client, bookings, trips);
    const ending = await bookingsToEnd(client, bookings, bookingId, facts, options);
    for (const booking of ending) {
      // An imported booking (no journey) was refused (cancellationDecision).
      await endJourneyBooking(client, { ...booking, journey_id: booking.journey_id! }, 'BOOKING_CANCELLED');
    }
    return ending.filter((booking) => booking.id !== bookingId).map((booking) => booking.id);
  });
}

/**
 * The bookings of the aggregate to end, in id order: none when the booking asked for is already
 * cancelled; else every live one, once each passed the rules (the first refusal is thrown).
 */
async function bookingsToEnd(
  client: PoolClient,
  bookings: LockedBooking[],
  bookingId: string,
  facts: Map<string, BookingFacts>,
  options: CancelOptions,
): Promise<LockedBooking[]> {
  const cutoffs = new Map<string, number>();
  const decide = async (booking: LockedBooking) => {
    if (!cutoffs.has(booking.company_id)) {
      const companyCutoff = await companyCancellationCutoff(client, booking.company_id);
      cutoffs.set(booking.company_id, cancellationCutoffMinutes(companyCutoff, options.cutoffMinutes));
    }
    return cancellationDecision(facts.get(booking.id)!, options.now, cutoffs.get(booking.company_id)!);
  };
  const asked = bookings.find((booking) => booking.id === bookingId)!;
  const decision = await decide(asked);
  if (decision === 'ALREADY_CANCELLED') return [];
  refuseWith(decision);
  const others = bookings.filter((booking) => booking.id !== bookingId && !ENDED.includes(booking.status));
  for (const other of others) {
    const refusal = other.owned ? await decide(other) : bookingNotFound();
    if (refusal && refusal !== 'ALREADY_CANCELLED') throw refusalOfBooking(refusal, other.id);
  }
  return bookings.filter((booking) => booking.id === bookingId || others.includes(booking));
}
