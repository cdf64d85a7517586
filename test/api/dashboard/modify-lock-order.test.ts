import { describe, expect, it } from 'vitest';
import { holdLock, inTurnWatchingForCycle, waitersOf, watchForCycle } from '../../drills/support/blocking.js';
import { cancelBooking, modifyBooking, moveTo, sameRouteTrip } from '../../support/booking-changes.js';
import { payAtOffice, paymentAction } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import {
  bookSeats,
  dispatch,
  operationsWorld,
  operationsWorldWithShift,
  type OperationsWorld,
} from '../../support/operations.js';

/**
 * The order in which a traveller's modify (PATCH /api/bookings/{id} action modify) and a trip CANCEL
 * or a company's refund take their locks. The CANCEL takes its trip, then the orders, journeys and
 * bookings on it; the refund the booking's trip FOR SHARE, then its journey and booking. The modify
 * takes its trips first too (its own FOR SHARE, the new one FOR NO KEY UPDATE, in id order), then
 * its journey and booking, so the two queue on a trip. Taken after the journey, the trips made a
 * cycle: PostgreSQL broke it after deadlock_timeout (1 s), aborting one, which withDeadlockRetry ran
 * again.
 *
 * Each case makes one request go first and stop on a row the test holds; the other starts while it
 * waits (and waits too, or answers), then the test lets go and watches the two backends every 20 ms
 * until both answered: they never wait on each other (the technique of cancel-lock-order.test.ts).
 * A traveller's cancel that took its trip first and a modify queue on the journey in the order they
 * came; a modify that finds its booking moved to a trip a trip action holds runs again behind it.
 */
describe('a modify and a trip cancel or a refund of the booking', () => {
  const app = useTestApp();

  const cancelTrip = (world: OperationsWorld, tripId: string) =>
    dispatch(app, world.dispatcher, tripId, { action: 'CANCEL', reason: 'Road closed' });

  /**
   * `first` stopped on the row `blockerSql` locks, `second` waiting too or answered, then watched
   * for a cycle (inTurnWatchingForCycle).
   */
  const inTurn = <T>(blockerSql: string, first: () => Promise<T>, second: () => Promise<T>) =>
    inTurnWatchingForCycle(app.db, blockerSql, first, second, { secondMayAnswer: true });

  const journeyOf = (bookingId: string) =>
    `select id from journeys where id = (select journey_id from bookings where id = '${bookingId}') for update`;

  /** A booked traveller on the world's trip, and another trip of the route the next day. */
  async function bookedWithAnotherTrip() {
    const world = await operationsWorld(app, { seats: 8 });
    const other = await sameRouteTrip(
      app.db,
      world.trip,
      new Date(world.trip.departAt.getTime() + 86_400_000),
    );
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    return { world, other, booked };
  }

  const bookingRow = async (bookingId: string) =>
    (
      await app.db.query<{ status: string; trip_id: string; seat_numbers: string[] }>(
        `select status, trip_id, seat_numbers from bookings where id = $1`,
        [bookingId],
      )
    )[0];

  it("a modify waiting for its journey holds its trips: the old trip's cancel waits for it, without a deadlock", async () => {
    const { world, other, booked } = await bookedWithAnotherTrip();

    const {
      answers: [modified, cancelled],
      deadlocked,
    } = await inTurn(
      journeyOf(booked.bookingId),
      () =>
        modifyBooking(app, booked.caller, booked.bookingId, moveTo(other.tripId, [other.seatNumbers[0]!])),
      () => cancelTrip(world, world.trip.tripId),
    );

    expect(deadlocked).toBe(false);
    // The modify came first: the booking left the trip before the trip was cancelled.
    expect(modified.status, modified.text).toBe(200);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await bookingRow(booked.bookingId)).toEqual({
      status: 'CONFIRMED',
      trip_id: other.tripId,
      seat_numbers: [other.seatNumbers[0]],
    });
    expect(
      await app.db.query(
        `select 1 from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
        [world.trip.tripId],
      ),
    ).toEqual([]);
  });

  it("a modify waiting for the new trip holds no journey: the old trip's cancel goes on, and the modify finds the booking cancelled", async () => {
    const { world, other, booked } = await bookedWithAnotherTrip();
    // The blocker holds the new trip as another hold would; the modify takes the trips in id order.
    const [to, from] = [world.trip, other].sort((a, b) => a.tripId.localeCompare(b.tripId));
    // The booking is on `from`: moved there first when the world's trip sorts first.
    if (from!.tripId !== world.trip.tripId) {
      const moved = await modifyBooking(
        app,
        booked.caller,
        booked.bookingId,
        moveTo(from!.tripId, [from!.seatNumbers[0]!]),
      );
      expect(moved.status, moved.text).toBe(200);
    }

    const {
      answers: [modified, cancelled],
      deadlocked,
    } = await inTurn(
      `select id from trips where id = '${to!.tripId}' for share`,
      () => modifyBooking(app, booked.caller, booked.bookingId, moveTo(to!.tripId, [to!.seatNumbers[1]!])),
      () => cancelTrip(world, from!.tripId),
    );

    expect(deadlocked).toBe(false);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect([modified.status, modified.body.errorCode], modified.text).toEqual([
      409,
      'BOOKING_NOT_MODIFIABLE',
    ]);
    expect(modified.body.details).toEqual({ status: 'CANCELLED' });
    expect(await bookingRow(booked.bookingId)).toMatchObject({ status: 'CANCELLED', trip_id: from!.tripId });
    expect(
      await app.db.query(
        `select 1 from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
        [to!.tripId],
      ),
    ).toEqual([]);
  });

  it("a seat change waiting for its journey holds the trip: the company's refund waits for it, without a deadlock", async () => {
    const world = await operationsWorldWithShift(app);
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const paymentId = await payAtOffice(app, world.sessions.ACCOUNTANT, booked.bookingId);

    const {
      answers: [modified, refund],
      deadlocked,
    } = await inTurn(
      journeyOf(booked.bookingId),
      () =>
        modifyBooking(
          app,
          booked.caller,
          booked.bookingId,
          moveTo(world.trip.tripId, [world.trip.seatNumbers[1]!]),
        ),
      () => paymentAction(app, world.sessions.ACCOUNTANT, paymentId, 'refund'),
    );

    expect(deadlocked).toBe(false);
    // The seat change came first and was refused (the company handles a paid booking); the refund
    // then ended the booking.
    expect([modified.status, modified.body.errorCode], modified.text).toEqual([409, 'BOOKING_ALREADY_PAID']);
    expect(refund.status, refund.text).toBe(200);
    expect(await bookingRow(booked.bookingId)).toEqual({
      status: 'CANCELLED',
      trip_id: world.trip.tripId,
      seat_numbers: [world.trip.seatNumbers[0]],
    });
    const [line] = await app.db.query<{ status: string }>(
      `select status from payment_operations where id = $1`,
      [paymentId],
    );
    expect(line).toEqual({ status: 'REFUNDED' });
  });

  it("a seat change arriving while a traveller's cancel of the booking waits for its busy trip waits behind it, without a deadlock", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);

    // The test holds the trip as a trip action would: the cancel finds it held, gives way and waits
    // for it, trips first (its second attempt); the seat change waits for it too, behind the cancel.
    const {
      answers: [cancelled, modified],
      deadlocked,
    } = await inTurn(
      `select id from trips where id = '${world.trip.tripId}' for no key update`,
      () => cancelBooking(app, booked.caller, booked.bookingId),
      () =>
        modifyBooking(
          app,
          booked.caller,
          booked.bookingId,
          moveTo(world.trip.tripId, [world.trip.seatNumbers[1]!]),
        ),
    );

    expect(deadlocked).toBe(false);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect([modified.status, modified.body.errorCode], modified.text).toEqual([
      409,
      'BOOKING_NOT_MODIFIABLE',
    ]);
    expect(modified.body.details).toEqual({ status: 'CANCELLED' });
    expect(await bookingRow(booked.bookingId)).toEqual({
      status: 'CANCELLED',
      trip_id: world.trip.tripId,
      seat_numbers: [world.trip.seatNumbers[0]],
    });
  });

  it("a traveller's cancel that found its trip busy and a modify arriving after it queue on the trip in that order: the modify finds the booking cancelled", async () => {
    const { world, other, booked } = await bookedWithAnotherTrip();
    // The test holds the trip as a trip action would: the cancel finds it held, gives way and waits
    // for it, trips first. The modify's new trip is held too (as another hold would), so that the
    // modify, whichever of its trips it takes first, reaches the journey after the cancel.
    const trip = await holdLock(
      app.db,
      `select id from trips where id = '${world.trip.tripId}' for no key update`,
    );
    const own = cancelBooking(app, booked.caller, booked.bookingId);
    await waitersOf(app.db, trip.pid);
    const target = await holdLock(app.db, `select id from trips where id = '${other.tripId}' for share`);
    const modified = modifyBooking(
      app,
      booked.caller,
      booked.bookingId,
      moveTo(other.tripId, [other.seatNumbers[0]!]),
    );
    await waitersOf(app.db, [trip.pid, target.pid], 2);
    // The journey is held while the cancel, then the modify, get their trips and wait for it.
    const journey = await holdLock(app.db, journeyOf(booked.bookingId));
    await trip.release();
    await waitersOf(app.db, journey.pid);
    await target.release();
    const pids = await waitersOf(app.db, journey.pid, 2);
    await journey.release();

    const {
      answers: [cancelled, modify],
      deadlocked,
    } = await watchForCycle(app.db, pids, Promise.all([own, modified]));

    expect(deadlocked).toBe(false);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect([modify.status, modify.body.errorCode], modify.text).toEqual([409, 'BOOKING_NOT_MODIFIABLE']);
    expect(modify.body.details).toEqual({ status: 'CANCELLED' });
    expect(await bookingRow(booked.bookingId)).toMatchObject({
      status: 'CANCELLED',
      trip_id: world.trip.tripId,
    });
    expect(
      await app.db.query(
        `select 1 from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
        [other.tripId],
      ),
    ).toEqual([]);
  });

  it("a modify that waited for its journey while another modify moved the booking gives way to the new trip's cancel and runs again, without a deadlock", async () => {
    const { world, other, booked } = await bookedWithAnotherTrip();
    const third = await sameRouteTrip(
      app.db,
      world.trip,
      new Date(world.trip.departAt.getTime() + 2 * 86_400_000),
    );
    // The first modify (to `other`) takes its trips and the journey, and waits for the booking row
    // (held by the test); the second (to `third`) takes its trips and waits for the journey; the
    // cancel of `other` waits for the first modify's hold on that trip.
    const row = await holdLock(app.db, `select id from bookings where id = '${booked.bookingId}' for update`);
    const first = modifyBooking(
      app,
      booked.caller,
      booked.bookingId,
      moveTo(other.tripId, [other.seatNumbers[0]!]),
    );
    const [firstPid] = await waitersOf(app.db, row.pid);
    const second = modifyBooking(
      app,
      booked.caller,
      booked.bookingId,
      moveTo(third.tripId, [third.seatNumbers[0]!]),
    );
    await waitersOf(app.db, row.pid, 2);
    const cancel = cancelTrip(world, other.tripId);
    const pids = (await waitersOf(app.db, row.pid, 3)).filter((pid) => pid !== firstPid);
    // Let go: the first modify commits; the second gets the journey and finds the booking on `other`,
    // which the cancel now holds while it waits for the journey. The second takes `other` without
    // waiting, finds it held, and runs again behind the cancel.
    await row.release();

    const {
      answers: [moved, again, cancelled],
      deadlocked,
    } = await watchForCycle(app.db, pids, Promise.all([first, second, cancel]));

    expect(deadlocked).toBe(false);
    expect(moved.status, moved.text).toBe(200);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect([again.status, again.body.errorCode], again.text).toEqual([409, 'BOOKING_NOT_MODIFIABLE']);
    expect(again.body.details).toEqual({ status: 'CANCELLED' });
    expect(await bookingRow(booked.bookingId)).toMatchObject({ status: 'CANCELLED', trip_id: other.tripId });
    expect(
      await app.db.query(
        `select 1 from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
        [third.tripId],
      ),
    ).toEqual([]);
  });
});
