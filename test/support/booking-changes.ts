import type { Database } from '../../db/orm.js';
import { bookableTrip, createBooking, type BookableTripFixture } from './bookings.js';
import type { TestApp, TestResponse } from './harness.js';
import type { Caller } from './journeys.js';

/** Helpers for the tests of a traveller's booking changes (modify, cancel) and reads. */

export const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);

/**
 * A traveller's booking of `seats` (1 and 2 by default) on `trip`, or on a new trip departing at
 * `departAt` (two days ahead by default).
 */
export async function booked(
  app: TestApp,
  caller: Caller,
  options: { departAt?: Date; seats?: string[]; trip?: BookableTripFixture } = {},
) {
  const trip =
    options.trip ?? (await bookableTrip(app.db, { departAt: options.departAt ?? minutesFromNow(48 * 60) }));
  const booking = await createBooking(app, caller, {
    tripId: trip.tripId,
    seatNumbers: options.seats ?? ['1', '2'],
  });
  return { trip, booking };
}

/** Another trip of the same company between the same two stops, departing at `departAt`. */
export function sameRouteTrip(
  db: Database,
  base: BookableTripFixture,
  departAt: Date,
  options: { price?: number } = {},
): Promise<BookableTripFixture> {
  return bookableTrip(db, {
    companyId: base.companyId,
    from: base.from,
    to: base.to,
    departAt,
    ...(options.price ? { price: options.price } : {}),
  });
}

export function modifyBooking(
  app: TestApp,
  caller: Caller,
  bookingId: string,
  body: Record<string, unknown>,
): Promise<TestResponse> {
  return app.request(`/api/bookings/${bookingId}`, { method: 'PATCH', headers: caller.headers, json: body });
}

export const moveTo = (tripId: string, seats: string[]) => ({
  action: 'modify',
  newTripId: tripId,
  newSeatNumbers: seats,
});

export function cancelBooking(app: TestApp, caller: Caller, bookingId: string): Promise<TestResponse> {
  return app.request(`/api/bookings/${bookingId}/cancel`, { method: 'POST', headers: caller.headers });
}

/**
 * Everything a booking change writes, straight from the database: the booking row, its journey
 * and leg, every allocation and ticket of the journey, and its revoked credentials. Two snapshots
 * compare equal when nothing was written.
 */
export async function bookingState(db: Database, bookingId: string) {
  const [booking] = await db.query<Record<string, unknown>>(
    `select id, journey_id, trip_id, status, payment_status, seat_numbers, subtotal::int, discount::int, total_price::int,
            updated_at
     from bookings where id = $1`,
    [bookingId],
  );
  const journeyId = booking!.journey_id as string;
  const [journey] = await db.query<Record<string, unknown>>(
    `select status, total_price::int, updated_at from journeys where id = $1`,
    [journeyId],
  );
  const legs = await db.query<Record<string, unknown>>(
    `select trip_id, board_stop_call_id, alight_stop_call_id, unit_price::int, quantity, subtotal::int
     from journey_legs where journey_id = $1 order by sequence`,
    [journeyId],
  );
  const allocations = await db.query<{ trip_id: string; seat_id: string; status: string }>(
    `select trip_id, seat_id, status from seat_allocations where owner_kind = 'JOURNEY' and owner_id = $1
     order by created_at, trip_id, seat_id, status`,
    [journeyId],
  );
  const tickets = await db.query<{
    id: string;
    trip_id: string;
    seat_number: string;
    status: string;
    traveller_index: number;
    boarding_authorized: boolean;
    payload: Record<string, unknown> | null;
    signature: string | null;
  }>(
    `select id, trip_id, seat_number, status, traveller_index, boarding_authorized, payload, signature
     from journey_tickets where journey_id = $1 order by created_at, traveller_index`,
    [journeyId],
  );
  const revoked = await db.query<{ ticket_id: string; reason: string }>(
    `select r.ticket_id, r.reason from credential_revocations r join journey_tickets t on t.id = r.ticket_id
     where t.journey_id = $1 order by r.ticket_id`,
    [journeyId],
  );
  return { booking: booking!, journey: journey!, legs, allocations, tickets, revoked };
}

/** The booking's seat labels still taken on a trip (live allocations of its journey). */
export async function liveSeatLabels(db: Database, bookingId: string, tripId: string): Promise<string[]> {
  const rows = await db.query<{ seat_number: string }>(
    `select ls.seat_number
     from bookings b
     join seat_allocations a on a.owner_kind = 'JOURNEY' and a.owner_id = b.journey_id
     join trips t on t.id = a.trip_id
     join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
     join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
     where b.id = $1 and a.trip_id = $2 and a.status in ('HELD', 'CONFIRMED')
     order by ls.seat_number`,
    [bookingId, tripId],
  );
  return rows.map((row) => row.seat_number);
}
