import { expect } from 'vitest';
import type { Database } from '../../db/orm.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createStop,
  createTrip,
  futureDay,
  type CompanyScopeKind,
} from './factories.js';
import type { TestApp, TestResponse } from './harness.js';
import type { Caller } from './journeys.js';

/**
 * Fixtures for bookings made with seat locks (POST /seat-locks, POST /bookings): a bookable trip,
 * a lock and a booking through the real API. Callers are the `Caller`s of test/support/journeys.ts
 * (webTraveller: cookies + CSRF; mobileTraveller: bearer).
 */
export interface BookableTripFixture {
  companyId: string;
  tripId: string;
  routeId: string;
  busId: string;
  stopCallIds: string[];
  /** Seat labels of the active layout in order: '1', '2', ... (or A1, A2, ... with labels 'letters'). */
  seatNumbers: string[];
  from: { id: string; cityId: string };
  to: { id: string; cityId: string };
  departAt: Date;
}

/**
 * A company (production and published by default) that confirms automatically, a bus with an
 * active layout of `seats` seats (rows of 2+2, rounded up to whole rows), and a direct trip
 * from `from` to `to` (new stops in new cities by default) three hours long.
 */
export async function bookableTrip(
  db: Database,
  options: {
    companyId?: string;
    scope?: CompanyScopeKind;
    price?: number;
    priceVip?: number | null;
    departAt?: Date;
    seats?: number;
    /** Rows (0-based) of VIP seats. */
    vipRows?: number[];
    labels?: 'numeric' | 'letters';
    from?: { id: string; cityId: string };
    to?: { id: string; cityId: string };
    mode?: 'AUTO_CONFIRM' | 'MANUAL_CONFIRM';
  } = {},
): Promise<BookableTripFixture> {
  const companyId =
    options.companyId ?? (await createCompany(db, { scope: options.scope ?? 'PRODUCTION' })).id;
  await db.query(
    `insert into company_booking_settings (company_id, mode) values ($1, $2)
     on conflict (company_id) do update set mode = excluded.mode`,
    [companyId, options.mode ?? 'AUTO_CONFIRM'],
  );
  const bus = await createBus(db, companyId, {
    rows: Math.ceil((options.seats ?? 40) / 4),
    pattern: '2+2',
    ...(options.vipRows ? { vipRows: options.vipRows } : {}),
    ...(options.labels ? { labels: options.labels } : {}),
  });
  const from = options.from ?? (await createStop(db, (await createCity(db)).id));
  const to = options.to ?? (await createStop(db, (await createCity(db)).id));
  const departAt = options.departAt ?? atDamascus(futureDay(3), '08:00');
  const trip = await createTrip(db, {
    companyId,
    busId: bus.id,
    departAt,
    priceBase: options.price ?? 10_000,
    priceVip: options.priceVip === undefined ? 15_000 : options.priceVip,
    calls: [
      { stop: from, at: 0 },
      { stop: to, at: 180 },
    ],
  });
  const labels = await db.query<{ seat_number: string }>(
    `select seat_number from layout_seats where layout_id = $1 order by deck, seat_id`,
    [bus.layoutId],
  );
  return {
    companyId,
    tripId: trip.id,
    routeId: trip.routeId,
    busId: bus.id,
    stopCallIds: trip.stopCallIds,
    seatNumbers: sortLabels(labels.map((row) => row.seat_number)),
    from,
    to,
    departAt,
  };
}

/** Numeric labels in number order, others alphabetically. */
const sortLabels = (labels: string[]) =>
  [...labels].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

/** POST /seat-locks; returns the raw answer (status 201 on success). */
export function requestSeatLock(
  app: TestApp,
  caller: Caller,
  tripId: string,
  seatNumbers: string[],
): Promise<TestResponse> {
  return app.request('/api/seat-locks', {
    method: 'POST',
    headers: caller.headers,
    json: { trip_id: tripId, seat_numbers: seatNumbers },
  });
}

/** Locks the seats and returns the seat_lock_session_id (fails the test otherwise). */
export async function lockSeats(
  app: TestApp,
  caller: Caller,
  tripId: string,
  seatNumbers: string[],
): Promise<string> {
  const response = await requestSeatLock(app, caller, tripId, seatNumbers);
  expect(response.status, response.text).toBe(201);
  return response.body.data.seat_lock_session_id as string;
}

export interface BookingRequest {
  tripId: string;
  seatNumbers: string[];
  seatLockSessionId: string;
  passengerName?: string;
  passengerPhone?: string;
  rewardCode?: string;
}

/** The POST /bookings body of a request, with a default passenger. */
export const bookingBody = (request: BookingRequest) => ({
  trip_id: request.tripId,
  passenger_name: request.passengerName ?? 'Sami Haddad',
  passenger_phone: request.passengerPhone ?? '+963944123456',
  seats_count: request.seatNumbers.length,
  seat_numbers: request.seatNumbers,
  seat_lock_session_id: request.seatLockSessionId,
  ...(request.rewardCode ? { reward_code: request.rewardCode } : {}),
});

export function postBooking(
  app: TestApp,
  caller: Caller,
  body: Record<string, unknown>,
): Promise<TestResponse> {
  return app.request('/api/bookings', { method: 'POST', headers: caller.headers, json: body });
}

/**
 * Locks `seatNumbers` of the trip (unless a seatLockSessionId is given) and books them through
 * POST /bookings; returns the booking (the answer's data.booking) and fails the test otherwise.
 */
export async function createBooking(
  app: TestApp,
  caller: Caller,
  request: Omit<BookingRequest, 'seatLockSessionId'> & { seatLockSessionId?: string },
): Promise<{
  id: string;
  journey_id: string;
  booking_code: string;
  total_price: number;
  [field: string]: unknown;
}> {
  const seatLockSessionId =
    request.seatLockSessionId ?? (await lockSeats(app, caller, request.tripId, request.seatNumbers));
  const response = await postBooking(app, caller, bookingBody({ ...request, seatLockSessionId }));
  expect(response.status, response.text).toBe(201);
  return response.body.data.booking;
}

/**
 * Two trips of one company that make a round trip: A → B, then B → A two days later; each seat at
 * bookableTrip's price unless `prices` says otherwise.
 */
export async function roundTripPair(
  app: TestApp,
  companyId?: string,
  prices: { outbound?: number; inbound?: number } = {},
) {
  const a = await createStop(app.db, (await createCity(app.db)).id);
  const b = await createStop(app.db, (await createCity(app.db)).id);
  const outbound = await bookableTrip(app.db, {
    ...(companyId ? { companyId } : {}),
    from: a,
    to: b,
    departAt: atDamascus(futureDay(3), '08:00'),
    ...(prices.outbound === undefined ? {} : { price: prices.outbound }),
  });
  const inbound = await bookableTrip(app.db, {
    companyId: outbound.companyId,
    from: b,
    to: a,
    departAt: atDamascus(futureDay(5), '08:00'),
    ...(prices.inbound === undefined ? {} : { price: prices.inbound }),
  });
  return { outbound, inbound };
}

/**
 * A round trip booked by `caller` through POST /bookings/round-trip (seat 1 of each of roundTripPair's
 * trips; fails the test otherwise): the trips, and the two bookings with their journeys.
 */
export async function bookRoundTrip(app: TestApp, caller: Caller, companyId?: string) {
  const pair = await roundTripPair(app, companyId);
  const created = await app.request('/api/bookings/round-trip', {
    method: 'POST',
    headers: caller.headers,
    json: {
      outbound_seat_lock_session_id: await lockSeats(app, caller, pair.outbound.tripId, ['1']),
      return_seat_lock_session_id: await lockSeats(app, caller, pair.inbound.tripId, ['1']),
      passenger_name: 'Lina Khoury',
      passenger_phone: '+963955111222',
    },
  });
  expect(created.status, created.text).toBe(201);
  const [outbound, inbound] = created.body.data.bookings as { id: string; journey_id: string }[];
  return { pair, outbound: outbound!, inbound: inbound! };
}
