import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createStaffSession } from '../../api/auth/staff-session.js';
import type { Database } from '../../db/orm.js';
import { bookableTrip, createBooking, type BookableTripFixture } from './bookings.js';
import { atDamascus, createBus, createTrip, futureDay } from './factories.js';
import { openShift } from './finance.js';
import type { TestApp, TestResponse } from './harness.js';
import { collectCash } from './payments.js';
import { staffSession } from './journey-rows.js';
import { mobileTraveller, type Caller } from './journeys.js';
import { createStaffMember, type StaffRole } from './staff.js';

/**
 * Fixtures of the trip operations room and the driver app: a company with a trip, its driver and
 * staff sessions of each role, real bookings made through POST /bookings, and the calls the
 * dashboard and the driver app make.
 */
export interface Session {
  token: string;
  staffUserId: string;
  writeHeaders: Record<string, string>;
  cookie: string;
}

export interface OperationsWorld {
  trip: BookableTripFixture;
  companyId: string;
  driver: Session & { email: string; password: string; sessionId: string; membershipId: string };
  dispatcher: Session;
  sessions: Record<Exclude<StaffRole, 'DRIVER'>, Session>;
}

/**
 * A driver (DRIVER membership) and a driver app token: the session sign-in makes, made in the
 * database. Sign-ins through the API count against the per-IP staff sign-in limit, which every
 * test file of a run shares (30 in 15 minutes by default); test/api/driver/driver-app.test.ts signs
 * drivers in through the API itself.
 */
export async function createDriver(app: TestApp, companyId: string) {
  const member = await createStaffMember(app.db, companyId, 'DRIVER', {
    name: `Driver ${randomUUID().slice(0, 6)}`,
  });
  const { token, sessionId } = await createStaffSession(
    { db: app.db, config: app.config },
    { staffUserId: member.userId, membershipId: member.membershipId },
  );
  return {
    token,
    sessionId,
    membershipId: member.membershipId,
    staffUserId: member.userId,
    email: member.email,
    password: member.password,
    writeHeaders: { Authorization: `Bearer ${token}` },
    cookie: '',
  };
}

/** A company with a 40-seat trip (two stops) whose driver is assigned, and a session of every dashboard role. */
export async function operationsWorld(
  app: TestApp,
  options: { seats?: number; departAt?: Date; companyId?: string } = {},
): Promise<OperationsWorld> {
  const trip = await bookableTrip(app.db, {
    seats: options.seats ?? 40,
    ...(options.departAt ? { departAt: options.departAt } : {}),
    ...(options.companyId ? { companyId: options.companyId } : {}),
  });
  const driver = await createDriver(app, trip.companyId);
  await assignDriver(app.db, trip.tripId, driver.staffUserId);
  const session = (role: Exclude<StaffRole, 'DRIVER'>) =>
    staffSession(app.db, app.config, trip.companyId, role);
  const sessions: OperationsWorld['sessions'] = {
    OWNER: await session('OWNER'),
    ADMIN: await session('ADMIN'),
    DISPATCHER: await session('DISPATCHER'),
    STAFF: await session('STAFF'),
    ACCOUNTANT: await session('ACCOUNTANT'),
  };
  return { trip, companyId: trip.companyId, driver, dispatcher: sessions.DISPATCHER, sessions };
}

/** An operations world of 8 seats whose company has its cash shift open (500,000 SYP), for payments and refunds. */
export async function operationsWorldWithShift(app: TestApp): Promise<OperationsWorld> {
  const world = await operationsWorld(app, { seats: 8 });
  await openShift(app, world.sessions.OWNER, 500_000);
  return world;
}

export async function assignDriver(db: Database, tripId: string, driverId: string | null): Promise<void> {
  await db.query('update trips set driver_id = $2 where id = $1', [tripId, driverId]);
}

/**
 * Another trip on the world's bus, with the same driver, in `days` days. While one of them is
 * BOARDING or DEPARTED the others cannot board or depart (BUS_ON_ANOTHER_TRIP): a trip moved
 * through the state table takes tripOfItsOwn.
 */
export async function anotherTrip(app: TestApp, world: OperationsWorld, days = 5): Promise<string> {
  return (await tripOn(app, world, world.trip.busId, world.driver.staffUserId, days)).id;
}

/** A trip of the world's company on a bus of its own (with an active layout) and a driver of its own. */
export async function tripOfItsOwn(
  app: TestApp,
  world: OperationsWorld,
  days = 5,
): Promise<{ tripId: string; busId: string; driverId: string }> {
  const bus = await createBus(app.db, world.companyId);
  const driver = await createStaffMember(app.db, world.companyId, 'DRIVER');
  const trip = await tripOn(app, world, bus.id, driver.userId, days);
  return { tripId: trip.id, busId: bus.id, driverId: driver.userId };
}

async function tripOn(app: TestApp, world: OperationsWorld, busId: string, driverId: string, days: number) {
  const trip = await createTrip(app.db, {
    companyId: world.companyId,
    busId,
    departAt: atDamascus(futureDay(days), '07:00'),
    calls: [
      { stop: world.trip.from, at: 0 },
      { stop: world.trip.to, at: 180 },
    ],
  });
  await assignDriver(app.db, trip.id, driverId);
  return trip;
}

/** Sets a trip's status directly: test set-up for the state table (the API moves it one step at a time). */
export async function setTripStatus(db: Database, tripId: string, status: string): Promise<void> {
  await db.query('update trips set status = $2 where id = $1', [tripId, status]);
}

export interface BookedTraveller {
  caller: Caller;
  bookingId: string;
  bookingCode: string;
  ticketIds: string[];
  credentials: { ticketId: string; payload: Record<string, unknown>; signature: string }[];
}

/** A traveller books `seats` seats of the trip through POST /bookings (tickets signed, seats allocated). */
export async function bookSeats(
  app: TestApp,
  trip: BookableTripFixture,
  seatNumbers: string[],
  caller?: Caller,
): Promise<BookedTraveller> {
  const traveller = caller ?? (await mobileTraveller(app));
  const booking = await createBooking(app, traveller, { tripId: trip.tripId, seatNumbers });
  const credentials = await app.db.query<BookedTraveller['credentials'][number]>(
    `select k.id as "ticketId", k.payload, k.signature from journey_tickets k
     where k.journey_id = $1 and k.status = 'VALID' order by k.traveller_index`,
    [booking.journey_id],
  );
  return {
    caller: traveller,
    bookingId: booking.id,
    bookingCode: booking.booking_code,
    ticketIds: credentials.map((credential) => credential.ticketId),
    credentials,
  };
}

export function dispatch(
  app: TestApp,
  session: Pick<Session, 'writeHeaders'>,
  tripId: string,
  body: Record<string, unknown>,
): Promise<TestResponse> {
  return app.request(`/dashboard/api/trips/${tripId}/dispatch`, {
    method: 'POST',
    headers: session.writeHeaders,
    json: body,
  });
}

/**
 * A boarding trip's traveller boards (the operations room's CHECK_IN of the booking's first
 * ticket, 200) and pays the driver in cash: a booking COMPLETE will credit.
 */
export async function boardAndPay(
  app: TestApp,
  world: Pick<OperationsWorld, 'dispatcher' | 'trip'>,
  booked: Pick<BookedTraveller, 'bookingId' | 'ticketIds'>,
): Promise<void> {
  const checkIn = await dispatch(app, world.dispatcher, world.trip.tripId, {
    action: 'CHECK_IN',
    manifest_item_id: booked.ticketIds[0],
    manifest_item_type: 'JOURNEY_TICKET',
  });
  expect(checkIn.status, checkIn.text).toBe(200);
  await collectCash(app.db, booked.bookingId, { source: 'driver' });
}

/**
 * The operations room announces a delay of `minutes` on the trip, as a traveller's reads must show
 * it: first a MARK_DELAYED it refuses (no delay_minutes: 400), after which `unchanged` checks that
 * nothing was announced, then the delay itself (200).
 */
export async function announceDelay(
  app: TestApp,
  session: Pick<Session, 'writeHeaders'>,
  tripId: string,
  minutes: number,
  unchanged: () => Promise<void>,
): Promise<void> {
  const refused = await dispatch(app, session, tripId, { action: 'MARK_DELAYED', reason: 'Road closed' });
  expect(refused.status, refused.text).toBe(400);
  await unchanged();
  const delayed = await dispatch(app, session, tripId, {
    action: 'MARK_DELAYED',
    reason: 'Road closed',
    delay_minutes: minutes,
  });
  expect(delayed.status, delayed.text).toBe(200);
}

/** A traveller action (CHECK_IN, MARK_NO_SHOW, RESTORE) on ticket `ticketId` of the trip, as the operations room sends it. */
export function travellerAction(
  app: TestApp,
  session: Pick<Session, 'writeHeaders'>,
  tripId: string,
  action: 'CHECK_IN' | 'MARK_NO_SHOW' | 'RESTORE',
  ticketId: string,
): Promise<TestResponse> {
  return dispatch(app, session, tripId, {
    action,
    manifest_item_id: ticketId,
    manifest_item_type: 'JOURNEY_TICKET',
  });
}

export function dispatchView(
  app: TestApp,
  session: Pick<Session, 'cookie'>,
  tripId: string,
): Promise<TestResponse> {
  return app.request(`/dashboard/api/trips/${tripId}/dispatch`, { headers: { Cookie: session.cookie } });
}

/** POST /driver/api/trips/{id}/scan with a credential; a new client scan id unless given. */
export function scan(
  app: TestApp,
  token: string,
  tripId: string,
  credential: { payload: unknown; signature: string },
  options: { clientScanId?: string; deviceId?: string; scannedAt?: string } = {},
): Promise<TestResponse> {
  return app.request(`/driver/api/trips/${tripId}/scan`, {
    method: 'POST',
    token,
    json: {
      client_scan_id: options.clientScanId ?? randomUUID(),
      payload: credential.payload,
      signature: credential.signature,
      ...(options.deviceId ? { device_id: options.deviceId } : {}),
      ...(options.scannedAt ? { scanned_at: options.scannedAt } : {}),
    },
  });
}

/** Takes the trip through the given actions, each expected to succeed. */
export async function advance(
  app: TestApp,
  session: Session,
  tripId: string,
  ...actions: string[]
): Promise<void> {
  for (const action of actions) {
    const body = action === 'MARK_DELAYED' ? { action, reason: 'Traffic', delay_minutes: 15 } : { action };
    const response = await dispatch(app, session, tripId, body);
    expect(response.status, `${action}: ${response.text}`).toBe(200);
  }
}

/** Everything a dispatch action may change, to prove a refused one changed nothing. */
export async function operationsSnapshot(db: Database, tripId: string) {
  const [trip] = await db.query('select * from trips where id = $1', [tripId]);
  const tickets = await db.query('select * from journey_tickets where trip_id = $1 order by id', [tripId]);
  const bookings = await db.query('select * from bookings where trip_id = $1 order by id', [tripId]);
  const allocations = await db.query('select * from seat_allocations where trip_id = $1 order by id', [
    tripId,
  ]);
  const events = await db.query('select * from trip_operation_events where trip_id = $1 order by id', [
    tripId,
  ]);
  // The events, not the relay's marker: the webhook relay sets dispatched_at on its own clock.
  const outbox = await db.query(
    'select id, company_id, event, booking_id, trip_id, data, occurred_at from outbox_events where trip_id = $1 order by id',
    [tripId],
  );
  const payments = await db.query(
    'select p.* from payment_operations p join bookings b on b.id = p.booking_id where b.trip_id = $1 order by p.id',
    [tripId],
  );
  return { trip, tickets, bookings, allocations, events, outbox, payments };
}
