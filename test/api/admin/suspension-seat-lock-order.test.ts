import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../db/orm.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import {
  bookableTrip,
  bookingBody,
  lockSeats,
  postBooking,
  requestSeatLock,
  type BookableTripFixture,
} from '../../support/bookings.js';
import { mobileTraveller, type Caller } from '../../support/journeys.js';
import { answeredOrWaiting, holdLock, waitersOf, type HeldLock } from '../../drills/support/blocking.js';
import { expectError, signedInAdmin, type AdminBrowser } from './helpers.js';

/**
 * A seat lock or a booking and an administrator's suspension of the trip's company take turns on
 * the company row (db/writes/seat-locks.ts bookableTrip holds it FOR SHARE from the trip read on;
 * the suspension takes it FOR UPDATE): a suspension waits for a seat lock or booking in flight,
 * which is then one placed before it, and a seat lock or booking meeting a suspension in flight
 * waits for it and is refused as one sent after it (404 TRIP_NOT_FOUND), leaving nothing behind.
 */
describe('seat lock, booking and company suspension in flight', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });
  let browser: AdminBrowser;

  beforeAll(async () => {
    ({ browser } = await signedInAdmin(app, { role: 'ADMIN' }));
  });

  /** The suspension sets SUSPENDED under the company's update lock, then waits here until released. */
  const holdStandingCounter = () =>
    holdLock(app.db, `select 1 from platform_state_versions where name = 'company_standing' for update`);

  const locksOf = (caller: Caller) =>
    app.db.query<{ status: string }>(
      `select status from hold_batches where owner_user_id = $1 and scope_kind = 'SEAT_LOCK'`,
      [caller.userId],
    );
  const bookingsOf = (caller: Caller) =>
    app.db.query<{ status: string }>(`select status from bookings where owner_user_id = $1`, [caller.userId]);

  /**
   * Starts the suspension with `held` in its way (it has the company row and waits there), runs
   * `request` meanwhile, then lets the suspension commit: the request's answer and the suspension's.
   */
  async function duringSuspension(
    companyId: string,
    request: () => Promise<TestResponse>,
    held: HeldLock[] = [],
  ): Promise<{ answer: TestResponse; suspension: TestResponse }> {
    const counterHeld = await holdStandingCounter();
    try {
      const suspension = browser.suspend(companyId);
      const [suspensionPid] = await waitersOf(app.db, counterHeld.pid);
      const sent = request();
      for (const lock of held) await lock.release();
      await answeredOrWaiting(sent, app.db, suspensionPid!);
      await counterHeld.release();
      return { answer: await sent, suspension: await suspension };
    } finally {
      await counterHeld.release();
      for (const lock of held) await lock.release();
    }
  }

  /**
   * Sends `request`, which stops at `held` past its trip read, then the suspension; answers whether
   * the suspension was answered while the request held on, and both answers once `held` is let go.
   */
  async function suspensionDuring(
    companyId: string,
    held: HeldLock,
    request: () => Promise<TestResponse>,
  ): Promise<{ answer: TestResponse; suspension: TestResponse; suspendedFirst: boolean }> {
    let answeredWhileHolding: number | undefined;
    try {
      const sent = request();
      const [requestPid] = await waitersOf(app.db, held.pid);
      const suspension = browser.suspend(companyId);
      void suspension.then((response) => (answeredWhileHolding = response.status));
      await answeredOrWaiting(suspension, app.db, requestPid!);
      const suspendedFirst = answeredWhileHolding !== undefined;
      await held.release();
      return { answer: await sent, suspension: await suspension, suspendedFirst };
    } finally {
      await held.release();
    }
  }

  /** The seat's id on the trip's bus, as seat locks queue for it (db/writes/seat-locks.ts queueForSeats). */
  async function seatIdOf(db: Database, trip: BookableTripFixture, label: string): Promise<string> {
    const [seat] = await db.query<{ seat_id: string }>(
      `select ls.seat_id from layout_seats ls join bus_layouts bl on bl.id = ls.layout_id
       where bl.bus_id = $1 and bl.status = 'active' and ls.seat_number = $2`,
      [trip.busId, label],
    );
    return seat!.seat_id;
  }

  it('a suspension sent while a seat lock is past its trip read waits for the lock, which stays as one placed before it', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    const seat = trip.seatNumbers[0]!;
    // Another seat lock of the same seat in flight: this one reads the trip and its company, then
    // queues behind it (queueForSeats) until it is rolled back.
    const seatQueue = await holdLock(
      app.db,
      `select pg_advisory_xact_lock(hashtextextended('seat-lock:${trip.tripId}:${await seatIdOf(app.db, trip, seat)}', 0))`,
    );

    const { answer, suspension, suspendedFirst } = await suspensionDuring(trip.companyId, seatQueue, () =>
      requestSeatLock(app, traveller, trip.tripId, [seat]),
    );

    // The lock had read the company ACTIVE and not committed: the suspension may not be answered before it.
    expect(suspendedFirst).toBe(false);
    expect(answer.status, answer.text).toBe(201);
    expect(suspension.status).toBe(200);
    // As a lock placed before the suspension: kept, but no booking is made with it.
    const booking = await postBooking(
      app,
      traveller,
      bookingBody({
        tripId: trip.tripId,
        seatNumbers: [seat],
        seatLockSessionId: answer.body.data.seat_lock_session_id,
      }),
    );
    expectError(booking, 404, 'TRIP_NOT_FOUND');
    expect(await locksOf(traveller)).toEqual([{ status: 'ACTIVE' }]);
    expect(await bookingsOf(traveller)).toEqual([]);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });

  it('a seat lock reaching its trip read while a suspension holds the company waits for it and is refused as any lock after it, locking nothing', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);

    const { answer, suspension } = await duringSuspension(trip.companyId, () =>
      requestSeatLock(app, traveller, trip.tripId, [trip.seatNumbers[0]!]),
    );

    expect(suspension.status).toBe(200);
    // The answer of a seat lock sent after the suspension (test/api/admin/suspension.test.ts).
    expectError(answer, 404, 'TRIP_NOT_FOUND');
    expect(await locksOf(traveller)).toEqual([]);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });

  it('a seat lock that waited for its trip and reads it while a suspension holds the company waits for it and is refused, locking nothing', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    // The trip row as a hold placing its seats holds it: the seat lock finds it taken, waits for it,
    // and reads the trip again, with its company, once it is let go while the suspension is in flight.
    const tripHeld = await holdLock(
      app.db,
      `select 1 from trips where id = '${trip.tripId}' for no key update`,
    );
    const lock = requestSeatLock(app, traveller, trip.tripId, [trip.seatNumbers[0]!]);
    await waitersOf(app.db, tripHeld.pid);

    const { answer, suspension } = await duringSuspension(trip.companyId, () => lock, [tripHeld]);

    expect(suspension.status).toBe(200);
    expectError(answer, 404, 'TRIP_NOT_FOUND');
    expect(await locksOf(traveller)).toEqual([]);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });

  it('a suspension sent while a booking is past its trip read waits for the booking, which stays confirmed', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    const seatNumbers = [trip.seatNumbers[0]!];
    const seatLockSessionId = await lockSeats(app, traveller, trip.tripId, seatNumbers);
    // The lock's seats as a writer holds them: the booking checks the trip and its company, then
    // waits to confirm them until this is rolled back.
    const seatsHeld = await holdLock(
      app.db,
      `select 1 from seat_allocations where hold_batch_id = '${seatLockSessionId}' for update`,
    );

    const { answer, suspension, suspendedFirst } = await suspensionDuring(trip.companyId, seatsHeld, () =>
      postBooking(app, traveller, bookingBody({ tripId: trip.tripId, seatNumbers, seatLockSessionId })),
    );

    expect(suspendedFirst).toBe(false);
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.data.booking.status).toBe('CONFIRMED');
    expect(suspension.status).toBe(200);
    expect(await bookingsOf(traveller)).toEqual([{ status: 'CONFIRMED' }]);
    expect(await locksOf(traveller)).toEqual([{ status: 'CONSUMED' }]);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });

  it('a booking reaching its trip read while a suspension holds the company waits for it and is refused, its seat lock left as it was', async () => {
    const trip = await bookableTrip(app.db);
    const traveller = await mobileTraveller(app);
    const seatNumbers = [trip.seatNumbers[0]!];
    const seatLockSessionId = await lockSeats(app, traveller, trip.tripId, seatNumbers);

    const { answer, suspension } = await duringSuspension(trip.companyId, () =>
      postBooking(app, traveller, bookingBody({ tripId: trip.tripId, seatNumbers, seatLockSessionId })),
    );

    expect(suspension.status).toBe(200);
    // The answer of a booking sent after the suspension.
    expectError(answer, 404, 'TRIP_NOT_FOUND');
    expect(await bookingsOf(traveller)).toEqual([]);
    expect(await locksOf(traveller)).toEqual([{ status: 'ACTIVE' }]);
    const seats = await app.db.query(`select status from seat_allocations where hold_batch_id = $1`, [
      seatLockSessionId,
    ]);
    expect(seats).toEqual([{ status: 'HELD' }]);
    expect((await browser.unsuspend(trip.companyId)).status).toBe(200);
  });
});
