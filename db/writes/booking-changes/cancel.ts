import type { PoolClient } from 'pg';
import {
  bookingNotFound,
  cancellationDecision,
  refusalOfBooking,
  settledByTravel,
  type BookingFacts,
} from '../../../domain/booking-rules.js';
import { cancellationCutoffMinutes } from '../../../domain/company-settings.js';
import { companyCancellationCutoff } from '../../queries/company-settings.js';
import type { Database } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { forfeitVouchers } from '../loyalty/voucher-return.js';
import { writeTime } from '../write-time.js';
import { endJourneyBooking } from './end-booking.js';
import {
  inTurnWithTrips,
  lockedFactsOf,
  lockOwnAggregate,
  refuseWith,
  type BookingCaller,
  type LockedBooking,
  type LockTurn,
} from './own-booking.js';

interface CancelOptions {
  cutoffMinutes: number;
  now: Date;
}

/** Statuses of a booking of the aggregate that has already ended: nothing is left to cancel. */
const ENDED: readonly string[] = ['CANCELLED', 'EXPIRED'];

/**
 * A booking of the aggregate the cancel leaves as it is: ended, or settled by travel (boarded,
 * missed, its bus gone: settledByTravel), so the return of a round trip whose outbound ran is
 * cancelled alone. Its journey and order stay while it does (endJourneyBooking).
 */
function leftAsItIs(booking: LockedBooking, facts: BookingFacts, now: Date): boolean {
  return ENDED.includes(booking.status) || settledByTravel(facts, now);
}

/**
 * POST /bookings/{id}/cancel: the booking and every other booking of its aggregate (its journey
 * order's, else its journey's: a round trip, a connection, an order of several journeys) end
 * together in ONE transaction, all or nothing. Each booking must pass the rules a single cancel
 * applies (the caller's, CONFIRMED, unpaid, not checked in, its company's cut-off before its own
 * announced departure): the first refusal met (the booking asked for first, then the others in id
 * order) is answered, its details naming the other booking (details.booking_id), and nothing is
 * written. Bookings of the aggregate already CANCELLED or EXPIRED, or settled by travel (CHECKED_IN,
 * NO_SHOW, COMPLETED, or on a bus that has left), are left as they are: all or nothing holds for
 * the legs still ahead. Then each ends as endJourneyBooking ends it (seats, tickets and
 * credentials, pending cash, booking.cancelled), and the journeys and the order once nothing of
 * them is left (a settled booking keeps its journey and order standing). A voucher used stays
 * spent for good (forfeitVouchers: a trip CANCEL of a booking it also paid for never gives it back).
 * Cancelling a cancelled booking changes nothing. The cut-off is the company's own (dashboard
 * settings), else `options.cutoffMinutes` (BOOKING_CANCEL_CUTOFF_MINUTES); once the company sent
 * DEPART the departure has happened, whatever the timetable says. Locks (lockOwnAggregate): the
 * order, its journeys in id order, their bookings in id order, then every booking's trip FOR SHARE
 * NOWAIT in id order. A DEPART or a trip CANCEL locks its trip before the journeys and bookings on
 * it; when one holds a trip the cancel runs again taking the trips first (inTurnWithTrips), so the
 * two take turns on the trip instead of deadlocking (test/api/dashboard/cancel-lock-order.test.ts).
 * Answers the ids of the other bookings this request cancelled.
 */
export async function cancelBooking(
  db: Database,
  caller: BookingCaller,
  bookingId: string,
  options: { cutoffMinutes: number; now?: Date },
): Promise<string[]> {
  const now = options.now ?? new Date();
  return withDeadlockRetry(() =>
    inTurnWithTrips((turn) => endAggregate(db, caller, bookingId, { ...options, now }, turn)),
  );
}

async function endAggregate(
  db: Database,
  caller: BookingCaller,
  bookingId: string,
  options: CancelOptions,
  turn: LockTurn,
): Promise<string[]> {
  return db.transaction(async (client) => {
    const { bookings, trips } = await lockOwnAggregate(client, caller.userId, bookingId, turn);
    const facts = await lockedFactsOf(client, bookings, trips);
    const ending = await bookingsToEnd(client, bookings, bookingId, facts, options);
    // Read once the locks are held: a cancel that waited for a company's approval is dated after it.
    const at = await writeTime(client);
    for (const booking of ending) {
      // An imported booking (no journey) was refused (cancellationDecision).
      await endJourneyBooking(client, booking, 'BOOKING_CANCELLED', at);
    }
    // Every booking ended here was live. The vouchers last: no lock is taken after theirs.
    const ended = ending.map((booking) => booking.id);
    await forfeitVouchers(client, ended, at);
    return ending.filter((booking) => booking.id !== bookingId).map((booking) => booking.id);
  });
}

/**
 * The bookings of the aggregate to end, in id order: none when the booking asked for is already
 * cancelled; else it and every other one not left as it is (leftAsItIs), once each passed the rules
 * (the first refusal is thrown).
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
  const others = bookings.filter(
    (booking) => booking.id !== bookingId && !leftAsItIs(booking, facts.get(booking.id)!, options.now),
  );
  for (const other of others) {
    const refusal = other.owned ? await decide(other) : bookingNotFound();
    if (refusal && refusal !== 'ALREADY_CANCELLED') throw refusalOfBooking(refusal, other.id);
  }
  return bookings.filter((booking) => booking.id === bookingId || others.includes(booking));
}
