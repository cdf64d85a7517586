import type { PoolClient } from 'pg';
import {
  bookingNotFound,
  type BookingFacts,
  type BookingStatus,
  type PaymentStatus,
} from '../../../domain/booking-rules.js';
import type { InventoryScope } from '../../../domain/inventory-scope.js';
import type { Refusal } from '../../../domain/refusal.js';
import type { TripStatus } from '../../../domain/trip-dispatch.js';
import { PG_LOCK_NOT_AVAILABLE, pgCode } from '../../pg-errors.js';
import { ownBookingSql } from '../../queries/booking-ownership.js';
import { expectedDepartureSql } from '../../queries/leg-boarding.js';

/**
 * The booking a traveller changes, locked. Each change is ONE transaction that locks, in this
 * order, the journey order (when there is one), the journey (a cancel: every journey of the order,
 * in id order), the booking row (a cancel: every booking of those journeys, in id order) and then
 * the trips involved in id order, so concurrent changes take turns and each sees what the previous
 * one did. A trip action (DEPART, CANCEL, a delay) and a refund lock the trip before the journeys
 * and bookings on it: a cancel takes the trips FOR SHARE NOWAIT, and when one is held runs again
 * taking them first (lockOwnAggregate, inTurnWithTrips), so it never waits for a trip while holding
 * a journey. A modify takes its trips first too (lockOwnBookingToMove): its own FOR SHARE and the
 * new one FOR NO KEY UPDATE, in id order (lockModifiedTrips), then the journey and the booking. A
 * trip found only once the journey is held (a modify moved the booking meanwhile) is taken NOWAIT
 * and, held, the change runs again trips first (lockLateTrips). The seat_allocations exclusion
 * constraint stays the capacity truth behind the checks.
 */

export interface BookingCaller {
  userId: string;
  scope: InventoryScope;
}

/** bigint amounts and timestamptz arrive as text. */
export interface LockedBooking {
  id: string;
  journey_id: string | null;
  order_id: string | null;
  company_id: string;
  trip_id: string;
  status: BookingStatus;
  payment_status: PaymentStatus;
  seats_count: number;
  seat_numbers: string[];
  subtotal: string;
  discount: string;
  total_price: string;
  leg_sequence: number | null;
  board_city_id: string | null;
  alight_city_id: string | null;
  origin_city_id: string;
  destination_city_id: string;
  journey_bookings: number;
  journey_legs: number;
  order_journeys: number;
  /** The caller owns the booking or is its canonical passenger (ownBookingSql). */
  owned: boolean;
}

interface OwnBookingRow {
  journey_id: string | null;
  order_id: string | null;
  trip_ids: string[];
}

/**
 * Locks a booking's journey order, then its journey (either may be absent): the order every change
 * of a booking takes them in, before the booking itself (a traveller's change, a refund).
 */
export async function lockJourneyOf(
  client: Pick<PoolClient, 'query'>,
  booking: { journey_id: string | null; order_id: string | null },
): Promise<void> {
  if (booking.order_id) {
    await client.query(`select id from journey_orders where id = $1 for update`, [booking.order_id]);
  }
  if (booking.journey_id) {
    await client.query(`select id from journeys where id = $1 for update`, [booking.journey_id]);
  }
}

/** The trips of the bookings of b's order (else of its journey j), in ownBookingOf. */
const AGGREGATE_TRIPS = `array(select distinct a.trip_id from bookings a
  where a.id = b.id or a.journey_id in (select k.id from journeys k where k.id = b.journey_id or k.order_id = j.order_id))`;

/**
 * The caller's booking (owner or canonical passenger) as read before any lock: its journey and
 * order, and with `aggregate` the trips of every booking of its order (else of its journey).
 */
async function ownBookingOf(
  client: PoolClient,
  userId: string,
  bookingId: string,
  aggregate = false,
): Promise<OwnBookingRow> {
  const { rows: found } = await client.query<OwnBookingRow>(
    `select b.journey_id, j.order_id,
            ${aggregate ? AGGREGATE_TRIPS : `array[b.trip_id]`} as trip_ids
     from bookings b left join journeys j on j.id = b.journey_id
     where b.id = $1 and ${ownBookingSql('$2')}`,
    [bookingId, userId],
  );
  if (!found[0]) throw bookingNotFound();
  return found[0];
}

/**
 * The bookings matching `where` ($2 is the caller, the other parameters the condition's), locked FOR
 * UPDATE in id order, with what the rules need to know of each. The trip's announced delay and the
 * tickets' check-ins are not read here: a statement that waited for a booking row sees the rows it
 * joins as they were when it began (only the locked row is read again), so those are read once the
 * trips are locked too (lockedFactsOf).
 */
function lockBookings(client: PoolClient, where: string, params: [string, string, ...unknown[]]) {
  return client.query<LockedBooking>(
    `select b.id, b.journey_id, j.order_id, b.company_id, b.trip_id, b.status, b.payment_status, b.seats_count, b.seat_numbers,
            b.subtotal, b.discount, b.total_price, l.sequence as leg_sequence,
            bc.city_id as board_city_id, ac.city_id as alight_city_id,
            r.origin_city_id, r.destination_city_id,
            (select count(*)::int from bookings o where o.journey_id = b.journey_id) as journey_bookings,
            (select count(*)::int from journey_legs o where o.journey_id = b.journey_id) as journey_legs,
            (select count(*)::int from journeys o where o.order_id = j.order_id) as order_journeys,
            ${ownBookingSql('$2')} as owned
     from bookings b
     join trips t on t.id = b.trip_id
     join routes r on r.id = t.route_id
     left join journeys j on j.id = b.journey_id
     left join journey_legs l on l.journey_id = b.journey_id and l.trip_id = b.trip_id
     left join trip_stop_calls bc on bc.id = l.board_stop_call_id
     left join trip_stop_calls ac on ac.id = l.alight_stop_call_id
     where ${where}
     order by b.id
     for update of b`,
    params,
  );
}

/** The booking to modify, locked, and its trips, locked, with their status. */
export interface LockedMove {
  booking: LockedBooking;
  trips: Map<string, TripStatus>;
}

/**
 * The caller's booking to move to `newTripId` (PATCH /bookings/{id} action modify), trips first, as
 * a trip's CANCEL, DEPART or delay takes its trip before the journeys on it: the booking's trip (a
 * plain read) and the new one (lockModifiedTrips), then its journey order and journey, then the
 * booking; 404 for anyone else's. Taken after the journey, the trips deadlocked with a trip CANCEL
 * holding one of them and waiting for the journey (test/api/dashboard/modify-lock-order.test.ts).
 * A booking another modify moved meanwhile is on a trip not locked yet: taken as late trips are
 * (lockLateTrips).
 */
export async function lockOwnBookingToMove(
  client: PoolClient,
  userId: string,
  bookingId: string,
  newTripId: string,
  turn: LockTurn,
): Promise<LockedMove> {
  const found = await ownBookingOf(client, userId, bookingId);
  const trips = await lockModifiedTrips(client, found.trip_ids[0]!, newTripId);
  await lockJourneyOf(client, found);
  const { rows } = await lockBookings(client, `b.id = $1`, [bookingId, userId]);
  const booking = rows[0];
  // The booking was moved to another journey between the two reads: nothing a traveller can do.
  if (!booking || booking.journey_id !== found.journey_id) throw bookingNotFound();
  await lockLateTrips(client, [booking.trip_id], trips, turn);
  return { booking, trips };
}

/** The bookings of an aggregate, locked, and their trips, locked FOR SHARE, with their status. */
export interface LockedAggregate {
  bookings: LockedBooking[];
  trips: Map<string, TripStatus>;
}

/**
 * Which a traveller's cancel locks first: the journeys (then the trips, without waiting), or, when
 * a trip was busy, the trips (inTurnWithTrips). A modify and a refund take the trips first always.
 */
export type LockOrder = 'journeys first' | 'trips first';

/** One attempt of a change (inTurnWithTrips): its lock order, and whether it is the last attempt. */
export interface LockTurn {
  order: LockOrder;
  last: boolean;
}

/**
 * The trips of `tripIds` not in `trips` yet, FOR SHARE, added to `trips`: trips found once the
 * journeys are locked (a modify moved a booking while the change waited for its journey). A trip
 * action may hold such a trip and wait for that journey, so they are taken NOWAIT (one held fails
 * the statement with lock_not_available and inTurnWithTrips runs the change again, trips first),
 * except on the last attempt, which waits (a deadlock then is withDeadlockRetry's).
 */
async function lockLateTrips(
  client: PoolClient,
  tripIds: string[],
  trips: Map<string, TripStatus>,
  turn: LockTurn,
): Promise<void> {
  const late = tripIds.filter((tripId) => !trips.has(tripId));
  if (!late.length) return;
  const locked = await lockTrips(client, late, 'share', { nowait: !turn.last });
  for (const [id, status] of locked) trips.set(id, status);
}

/**
 * The caller's booking and every booking of its aggregate, locked (POST /bookings/{id}/cancel): the
 * journey order, then all its journeys in id order (the booking's journey alone when it has no
 * order), then every booking of those journeys in id order, then their trips FOR SHARE in id order;
 * 404 when the booking is not the caller's. A trip's CANCEL, DEPART or delay takes its trip (FOR NO
 * KEY UPDATE) before the journeys and bookings on it, so `journeys first` takes the trips NOWAIT:
 * one held that way fails the statement (lock_not_available) instead of waiting, holding the
 * journey the trip action may be waiting for (a deadlock PostgreSQL broke after deadlock_timeout,
 * test/api/dashboard/cancel-lock-order.test.ts), and inTurnWithTrips runs the cancel again
 * `trips first`: the trips of the aggregate (a plain read) FOR SHARE, waiting for the trip action,
 * then the rest as above (a trip found late, lockLateTrips). Answers the bookings in id order
 * (`owned` says which of them are the caller's too) and the trips' status as it is once locked.
 */
export async function lockOwnAggregate(
  client: PoolClient,
  userId: string,
  bookingId: string,
  turn: LockTurn,
): Promise<LockedAggregate> {
  const found = await ownBookingOf(client, userId, bookingId, turn.order === 'trips first');
  const trips =
    turn.order === 'trips first'
      ? await lockTrips(client, found.trip_ids, 'share')
      : new Map<string, TripStatus>();
  if (found.order_id) {
    await client.query(`select id from journey_orders where id = $1 for update`, [found.order_id]);
  }
  const { rows: journeys } = await client.query<{ id: string }>(
    `select id from journeys where (order_id = $1 or id = $2) order by id for update`,
    [found.order_id, found.journey_id],
  );
  const journeyIds = journeys.map((journey) => journey.id);
  const { rows } = await lockBookings(client, `(b.id = $1 or b.journey_id = any($3::uuid[]))`, [
    bookingId,
    userId,
    journeyIds,
  ]);
  const booking = rows.find((row) => row.id === bookingId);
  // The booking was moved to another journey between the two reads: nothing a traveller can do.
  if (!booking || booking.journey_id !== found.journey_id) throw bookingNotFound();
  // Journeys first: every trip. Trips first: a booking a modify moved to another trip meanwhile.
  await lockLateTrips(
    client,
    rows.map((row) => row.trip_id),
    trips,
    turn,
  );
  return { bookings: rows, trips };
}

/** Attempts of a change whose trips were held (lockLateTrips) before the last one waits for them. */
const TRIP_TURNS = 3;

/**
 * Runs a change `first` (a traveller's cancel `journeys first`, a modify `trips first`), and again
 * `trips first` when a trip it found only once it held a journey was held by a trip action
 * (lockLateTrips): the attempt wrote nothing, and the next waits for the trip before it takes a
 * journey. The last of TRIP_TURNS attempts waits for late trips too.
 */
export async function inTurnWithTrips<T>(
  change: (turn: LockTurn) => Promise<T>,
  first: LockOrder = 'journeys first',
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const last = attempt === TRIP_TURNS;
      return await change({ order: attempt === 1 ? first : 'trips first', last });
    } catch (error) {
      if (pgCode(error) !== PG_LOCK_NOT_AVAILABLE || attempt === TRIP_TURNS) throw error;
    }
  }
}

/**
 * Locks the trips in id order (FOR SHARE for a cancel and a refund, FOR NO KEY UPDATE for the trip
 * a modify takes seats on) and answers the status of each as it is once locked: a DEPART or a trip CANCEL
 * either committed first, and is seen here, or waits for this transaction (with `nowait`, a trip
 * so held fails the statement with lock_not_available instead).
 */
export async function lockTrips(
  client: PoolClient,
  tripIds: string[],
  mode: 'share' | 'no key update',
  options: { nowait?: boolean } = {},
): Promise<Map<string, TripStatus>> {
  const { rows } = await client.query<{ id: string; status: TripStatus }>(
    `select id, status from trips where id = any($1::uuid[]) order by id for ${mode}${options.nowait ? ' nowait' : ''}`,
    [[...new Set(tripIds)].sort()],
  );
  return new Map(rows.map((trip) => [trip.id, trip.status]));
}

/**
 * A modify's trips, in id order: the booking's own trip FOR SHARE, the new one FOR NO KEY UPDATE
 * (its seats are taken, as a hold takes them, and holds on a trip take turns). FOR SHARE is enough
 * where seats are only released, and still makes a DEPART or a trip CANCEL of that trip (FOR NO KEY
 * UPDATE) take turns with the modify; a traveller's cancel of the same booking that took the trip
 * FOR SHARE first holds it alongside, and the two take turns on the journey, in the order they came
 * (test/api/dashboard/modify-lock-order.test.ts). Answers the status of each.
 */
export async function lockModifiedTrips(
  client: PoolClient,
  fromTripId: string,
  toTripId: string,
): Promise<Map<string, TripStatus>> {
  if (fromTripId === toTripId) return lockTrips(client, [toTripId], 'no key update');
  const locks = [
    { id: fromTripId, mode: 'share' as const },
    { id: toTripId, mode: 'no key update' as const },
  ].sort((a, b) => (a.id < b.id ? -1 : 1));
  const trips = new Map<string, TripStatus>();
  for (const lock of locks) {
    for (const [id, status] of await lockTrips(client, [lock.id], lock.mode)) trips.set(id, status);
  }
  return trips;
}

/** lockTrips, answering the status of the booking's trip. */
export async function lockTripsOf(
  client: PoolClient,
  booking: Pick<LockedBooking, 'trip_id'>,
  tripIds: string[],
  mode: 'share' | 'no key update',
): Promise<TripStatus> {
  return (await lockTrips(client, [booking.trip_id, ...tripIds], mode)).get(booking.trip_id)!;
}

/**
 * What the rules of domain/booking-rules.ts need to know about each booking, read in a statement of
 * its own once the bookings and their trips are locked (lockBookings, lockTrips), so that a delay
 * announced or a check-in undone while the change waited for a lock counts: the bus's expected
 * departure from the booking's boarding call (the plan plus the announced delay) and whether a
 * ticket of its journey on its own trip is checked in (a connection's first leg boarded is not its
 * second leg's check-in). Keyed by booking id.
 */
export async function lockedFactsOf(
  client: PoolClient,
  bookings: LockedBooking[],
  trips: Map<string, TripStatus>,
): Promise<Map<string, BookingFacts>> {
  const { rows } = await client.query<{ id: string; departure_at: string; checked_in: boolean }>(
    `select b.id, ${expectedDepartureSql('t', 'coalesce(bc.departure_at, t.departure_at)')} as departure_at,
            exists (select 1 from journey_tickets x where x.journey_id = b.journey_id and x.trip_id = b.trip_id
                      and x.status = 'USED') as checked_in
     from bookings b
     join trips t on t.id = b.trip_id
     left join journey_legs l on l.journey_id = b.journey_id and l.trip_id = b.trip_id
     left join trip_stop_calls bc on bc.id = l.board_stop_call_id
     where b.id = any($1::uuid[])`,
    [bookings.map((booking) => booking.id)],
  );
  const read = new Map(rows.map((row) => [row.id, row]));
  return new Map(
    bookings.map((booking) => {
      const { departure_at, checked_in } = read.get(booking.id)!;
      const facts: BookingFacts = {
        status: booking.status,
        paymentStatus: booking.payment_status,
        departureAt: new Date(departure_at),
        tripStatus: trips.get(booking.trip_id)!,
        checkedIn: checked_in,
        partOfAggregate:
          booking.journey_bookings > 1 || booking.journey_legs > 1 || booking.order_journeys > 1,
        imported: booking.journey_id === null || booking.leg_sequence === null,
      };
      return [booking.id, facts];
    }),
  );
}

export function refuseWith(refusal: Refusal | null): void {
  if (refusal) throw refusal;
}
