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
import { expectedDepartureSql } from '../../queries/leg-boarding.js';

/**
 * The booking a traveller changes, locked. Each change is ONE transaction that locks, in this
 * order, the journey order (when there is one), the journey, the booking row and then the trips
 * involved in id order, the same order the journey transactions lock in, so concurrent changes
 * take turns and each sees what the previous one did. The seat_allocations exclusion constraint
 * stays the capacity truth behind the checks. A trip action (DEPART, CANCEL) locks its trip
 * before the journeys on it, so a change that deadlocks with one runs again (withDeadlockRetry).
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
  /** When the bus is expected to leave the booking's boarding call: the plan plus the announced delay. */
  departure_at: string;
  origin_city_id: string;
  destination_city_id: string;
  journey_bookings: number;
  journey_legs: number;
  order_journeys: number;
  checked_in: boolean;
}

interface OwnBookingRow {
  journey_id: string | null;
  order_id: string | null;
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

/** The caller's booking (owner or canonical passenger), locked with its journey; 404 for anyone else's. */
export async function lockOwnBooking(
  client: PoolClient,
  userId: string,
  bookingId: string,
): Promise<LockedBooking> {
  const { rows: found } = await client.query<OwnBookingRow>(
    `select b.journey_id, j.order_id from bookings b left join journeys j on j.id = b.journey_id
     where b.id = $1 and (b.owner_user_id = $2 or b.passenger_id = (select passenger_id from users where id = $2))`,
    [bookingId, userId],
  );
  if (!found[0]) throw bookingNotFound();
  await lockJourneyOf(client, found[0]);
  const { rows } = await client.query<LockedBooking>(
    `select b.id, b.journey_id, j.order_id, b.company_id, b.trip_id, b.status, b.payment_status, b.seats_count, b.seat_numbers,
            b.subtotal, b.discount, b.total_price, l.sequence as leg_sequence,
            bc.city_id as board_city_id, ac.city_id as alight_city_id,
            ${expectedDepartureSql('t', 'coalesce(bc.departure_at, t.departure_at)')} as departure_at,
            r.origin_city_id, r.destination_city_id,
            (select count(*)::int from bookings o where o.journey_id = b.journey_id) as journey_bookings,
            (select count(*)::int from journey_legs o where o.journey_id = b.journey_id) as journey_legs,
            (select count(*)::int from journeys o where o.order_id = j.order_id) as order_journeys,
            exists (select 1 from journey_tickets x where x.journey_id = b.journey_id and x.status = 'USED') as checked_in
     from bookings b
     join trips t on t.id = b.trip_id
     join routes r on r.id = t.route_id
     left join journeys j on j.id = b.journey_id
     left join journey_legs l on l.journey_id = b.journey_id and l.trip_id = b.trip_id
     left join trip_stop_calls bc on bc.id = l.board_stop_call_id
     left join trip_stop_calls ac on ac.id = l.alight_stop_call_id
     where b.id = $1
     for update of b`,
    [bookingId],
  );
  const booking = rows[0];
  // The booking was moved to another journey between the two reads: nothing a traveller can do.
  if (!booking || booking.journey_id !== found[0].journey_id) throw bookingNotFound();
  return booking;
}

/**
 * Locks the trips in id order (FOR SHARE for a cancel, FOR NO KEY UPDATE for a modify, which
 * moves seats) and answers the status of the booking's trip as it is once locked: a DEPART or a
 * trip CANCEL either committed first, and is seen here, or waits for this transaction.
 */
export async function lockTripsOf(
  client: PoolClient,
  booking: Pick<LockedBooking, 'trip_id'>,
  tripIds: string[],
  mode: 'share' | 'no key update',
): Promise<TripStatus> {
  const { rows } = await client.query<{ id: string; status: TripStatus }>(
    `select id, status from trips where id = any($1::uuid[]) order by id for ${mode}`,
    [[...new Set([booking.trip_id, ...tripIds])].sort()],
  );
  return rows.find((trip) => trip.id === booking.trip_id)!.status;
}

/** What the rules of domain/booking-rules.ts need to know about the booking and its locked trip. */
export function factsOf(booking: LockedBooking, tripStatus: TripStatus): BookingFacts {
  return {
    status: booking.status,
    paymentStatus: booking.payment_status,
    departureAt: new Date(booking.departure_at),
    tripStatus,
    checkedIn: booking.checked_in,
    partOfAggregate: booking.journey_bookings > 1 || booking.journey_legs > 1 || booking.order_journeys > 1,
    imported: booking.journey_id === null || booking.leg_sequence === null,
  };
}

export function refuseWith(refusal: Refusal | null): void {
  if (refusal) throw refusal;
}
