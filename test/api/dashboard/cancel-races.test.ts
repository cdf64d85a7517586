import { describe, expect, it } from 'vitest';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { modifyBooking, moveTo, sameRouteTrip } from '../../support/booking-changes.js';
import {
  bookableTrip,
  bookingBody,
  bookRoundTrip,
  createBooking,
  lockSeats,
  postBooking,
  requestSeatLock,
} from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { holdJourney, mobileTraveller, quote } from '../../support/journeys.js';
import { bookSeats, dispatch } from '../../support/operations.js';

/**
 * A dispatch CANCEL of a trip racing a traveller who takes its seats. The cancel locks the trip, then
 * gathers and ends the trip's live journeys. A hold or a booking arriving meanwhile must either be
 * refused (the trip reads CANCELLED once the cancel commits) or be ended with the others: never a
 * HELD seat or a CONFIRMED booking with a VALID ticket on a cancelled trip. A ticket re-issued
 * meanwhile takes its turn before or after the cancel, never a deadlock with it.
 *
 * Each case stops the cancel mid-way, after it holds the trip: the test's own transaction locks the
 * journey already booked on the trip, which the cancel gathers next. The traveller's request is sent
 * while the cancel waits there, and the test then lets the cancel go.
 */
describe("a trip cancel racing a hold, a booking, a re-issue, a modify or a traveller's cancel", () => {
  const app = useTestApp();

  /**
   * A company's trip and its dispatcher's session (made in the database: sign-ins through the API
   * count against the per-IP limit every test file of the run shares).
   */
  async function cancellableTrip() {
    const trip = await bookableTrip(app.db, { seats: 8 });
    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    return { trip, dispatcher };
  }
  type World = Awaited<ReturnType<typeof cancellableTrip>>;

  /** A trip with one booked traveller, whose journey the cancel will gather. */
  async function bookedWorld() {
    const world = await cancellableTrip();
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const [row] = await app.db.query<{ journey_id: string }>(
      `select journey_id from bookings where id = $1`,
      [booked.bookingId],
    );
    return { world, booked, bookedJourneyId: row!.journey_id };
  }

  /** Sends the trip's CANCEL and stops it after it has locked the trip, on the booked journey's lock. */
  async function cancelInFlight(world: World, bookedJourneyId: string) {
    const blocker = await holdLock(
      app.db,
      `select id from journeys where id = '${bookedJourneyId}' for update`,
    );
    const cancel = dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    const [cancelPid] = await waitersOf(app.db, blocker.pid);
    return { blocker, cancel, cancelPid: cancelPid! };
  }

  /** Nothing live is left on the cancelled trip: no held or confirmed seat, no valid ticket, no live booking. */
  async function nothingLiveOn(world: World) {
    const [trip] = await app.db.query<{ status: string }>(`select status from trips where id = $1`, [
      world.trip.tripId,
    ]);
    expect(trip!.status).toBe('CANCELLED');
    expect(
      await app.db.query(
        `select status from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
        [world.trip.tripId],
      ),
    ).toEqual([]);
    expect(
      await app.db.query(
        `select status from journey_tickets where trip_id = $1 and status in ('VALID', 'PENDING_CONFIRMATION')`,
        [world.trip.tripId],
      ),
    ).toEqual([]);
    expect(
      await app.db.query(`select status from bookings where trip_id = $1 and status <> 'CANCELLED'`, [
        world.trip.tripId,
      ]),
    ).toEqual([]);
  }

  it('a hold that read the trip before the cancel committed is refused once it has the trip', async () => {
    const { world, bookedJourneyId } = await bookedWorld();
    const traveller = await mobileTraveller(app);
    const quoted = await quote(app, traveller, [{ trip: { ...world.trip, seatCount: 8 } }]);
    const { blocker, cancel, cancelPid } = await cancelInFlight(world, bookedJourneyId);
    const hold = holdJourney(app, traveller, quoted.journey_id, { quote_id: quoted.quote_id });
    // The hold has read its legs (the trip still SCHEDULED to it) and waits for the trip's lock.
    await waitersOf(app.db, cancelPid);
    await blocker.release();

    const cancelled = await cancel;
    expect(cancelled.status, cancelled.text).toBe(200);
    const held = await hold;
    expect([held.status, held.body.errorCode], held.text).toEqual([409, 'TRIP_NOT_BOOKABLE']);
    // A refused hold writes no journey (its draft goes with the refusal).
    expect(await app.db.query(`select status from journeys where id = $1`, [quoted.journey_id])).toEqual([]);
    await nothingLiveOn(world);
  });

  it('a seat lock asked for while the cancel runs waits for it and is refused, instead of granted and then released', async () => {
    const { world, bookedJourneyId } = await bookedWorld();
    const traveller = await mobileTraveller(app);
    const { blocker, cancel, cancelPid } = await cancelInFlight(world, bookedJourneyId);
    const seatLock = requestSeatLock(app, traveller, world.trip.tripId, [world.trip.seatNumbers[1]!]);
    await answeredOrWaiting(seatLock, app.db, cancelPid);
    await blocker.release();

    const cancelled = await cancel;
    expect(cancelled.status, cancelled.text).toBe(200);
    const locked = await seatLock;
    expect([locked.status, locked.body.errorCode], locked.text).toEqual([409, 'TRIP_NOT_BOOKABLE']);
    await nothingLiveOn(world);
  });

  it('a booking from a seat lock waits for the cancel and finds its lock released, instead of staying CONFIRMED', async () => {
    const { world, bookedJourneyId } = await bookedWorld();
    const traveller = await mobileTraveller(app);
    const seat = world.trip.seatNumbers[1]!;
    const seatLockSessionId = await lockSeats(app, traveller, world.trip.tripId, [seat]);
    const { blocker, cancel, cancelPid } = await cancelInFlight(world, bookedJourneyId);
    const booking = postBooking(
      app,
      traveller,
      bookingBody({ tripId: world.trip.tripId, seatNumbers: [seat], seatLockSessionId }),
    );
    // Either the booking waits for the cancel's lock on the trip, or (without that lock) it is done.
    await answeredOrWaiting(booking, app.db, cancelPid);
    await blocker.release();

    const cancelled = await cancel;
    expect(cancelled.status, cancelled.text).toBe(200);
    // The cancel released the seat lock with the trip's other seats; the booking finds that first.
    const booked = await booking;
    expect([booked.status, booked.body.errorCode], booked.text).toEqual([409, 'SEAT_LOCK_RELEASED']);
    await nothingLiveOn(world);
  });

  it('a ticket re-issued while the cancel runs waits for it, instead of deadlocking with it', async () => {
    const { world, booked } = await bookedWorld();
    const [{ ms }] = (await app.db.query<{ ms: number }>(
      `select setting::int as ms from pg_settings where name = 'deadlock_timeout'`,
    )) as [{ ms: number }];
    // The cancel will stop at the booking, after it holds the trip and the journey; the re-issue at its
    // revocation-list entry, after it holds the old ticket.
    const booking = await holdLock(
      app.db,
      `select id from bookings where id = '${booked.bookingId}' for update`,
    );
    const revocations = await holdLock(app.db, 'lock table credential_revocations in share mode');
    const reissue = app.request('/api/tickets', {
      method: 'POST',
      headers: booked.caller.headers,
      json: { ticket_id: booked.ticketIds[0], reason: 'LOST_DEVICE' },
    });
    await waitersOf(app.db, revocations.pid);
    const cancel = dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    await waitersOf(app.db, [revocations.pid, booking.pid], 2);
    // The re-issue goes on. Had it not waited for the cancel's journey, its new ticket now waits there
    // (the row it refers to), and the cancel, let go at once, waits for the old ticket: a deadlock
    // whose check, deadlock_timeout after the re-issue began waiting, aborts the re-issue.
    await revocations.release();
    await answeredOrWaiting(reissue, app.db, booking.pid, 2, ms / 2);
    await booking.release();

    const reissued = await reissue;
    expect(reissued.status, reissued.text).toBe(201);
    const cancelled = await cancel;
    expect(cancelled.status, cancelled.text).toBe(200);
    // The cancel came after the re-issue, so it cancelled the new ticket with the others.
    const [fresh] = await app.db.query<{ status: string; boarding_authorized: boolean; revoked: boolean }>(
      `select status, boarding_authorized,
              exists (select 1 from credential_revocations r where r.ticket_id = k.id) as revoked
       from journey_tickets k where id = $1`,
      [reissued.body.data.ticket.id],
    );
    expect(fresh).toEqual({ status: 'CANCELLED', boarding_authorized: false, revoked: true });
    await nothingLiveOn(world);
  });

  it('a modify waiting for the trip it moves to lets the cancel go on, and finds its booking cancelled', async () => {
    const world = await cancellableTrip();
    const other = await sameRouteTrip(
      app.db,
      world.trip,
      new Date(world.trip.departAt.getTime() + 86_400_000),
    );
    // The modify locks the trips in id order: moving to the trip that sorts first, it takes that one
    // before the trip being cancelled, which the cancel already holds.
    const [to, from] = [world.trip, other].sort((a, b) => a.tripId.localeCompare(b.tripId));
    const traveller = await mobileTraveller(app);
    const booking = await createBooking(app, traveller, {
      tripId: from!.tripId,
      seatNumbers: [from!.seatNumbers[0]!],
    });
    const [{ ms }] = (await app.db.query<{ ms: number }>(
      `select setting::int as ms from pg_settings where name = 'deadlock_timeout'`,
    )) as [{ ms: number }];

    // 1. The modify waits for the target trip (held by the test), the first of its trips in id order,
    //    before it locks its journey and booking (it locked them first once, and the steps below
    //    closed a cycle PostgreSQL broke by aborting the modify, which ran again).
    const target = await holdLock(app.db, `select id from trips where id = '${to!.tripId}' for share`);
    const modify = modifyBooking(app, traveller, booking.id, moveTo(to!.tripId, [to!.seatNumbers[0]!]));
    const [modifyPid] = await waitersOf(app.db, target.pid);
    // 2. The cancel locks the booked trip and the journey the modify has not taken, and commits
    //    (a cancel waiting on the modify would wait here, deadlock_timeout and more).
    const cancel = dispatch(app, world.dispatcher, from!.tripId, { action: 'CANCEL', reason: 'Road closed' });
    await answeredOrWaiting(cancel, app.db, modifyPid!);
    await new Promise((resolve) => setTimeout(resolve, ms * 1.5));
    // 3. The modify gets both trips, then its journey, and finds the booking cancelled.
    await target.release();

    const cancelled = await cancel;
    expect(cancelled.status, cancelled.text).toBe(200);
    const modified = await modify;
    expect([modified.status, modified.body.errorCode], modified.text).toEqual([
      409,
      'BOOKING_NOT_MODIFIABLE',
    ]);
    expect(modified.body.details).toEqual({ status: 'CANCELLED' });
    const [row] = await app.db.query<{ status: string; trip_id: string }>(
      `select status, trip_id from bookings where id = $1`,
      [booking.id],
    );
    expect(row).toEqual({ status: 'CANCELLED', trip_id: from!.tripId });
    expect(
      await app.db.query(
        `select 1 from seat_allocations where trip_id = $1 and status in ('HELD', 'CONFIRMED')`,
        [to!.tripId],
      ),
    ).toEqual([]);
  });
  it('a traveller cancelling a journey of an order the cancel ends waits for it, instead of deadlocking with it', async () => {
    const traveller = await mobileTraveller(app);
    const { pair, outbound } = await bookRoundTrip(app, traveller);
    const dispatcher = await staffSession(app.db, app.config, pair.outbound.companyId, 'DISPATCHER');
    // The return trip is cancelled first: the order stays CONFIRMED with one live journey, which the
    // outbound trip's cancel ends with the order.
    const first = await dispatch(app, dispatcher, pair.inbound.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    expect(first.status, first.text).toBe(200);

    const blocker = await holdLock(
      app.db,
      `select id from journeys where id = '${outbound.journey_id}' for update`,
    );
    const cancelTrip = dispatch(app, dispatcher, pair.outbound.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    await waitersOf(app.db, blocker.pid);
    const cancelOwn = app.request(`/api/bookings/${outbound.id}/cancel`, {
      method: 'POST',
      headers: traveller.headers,
    });
    await waitersOf(app.db, blocker.pid, 2);
    await blocker.release();

    const tripAnswer = await cancelTrip;
    expect(tripAnswer.status, tripAnswer.text).toBe(200);
    // The trip's cancel came first and ended the order; the traveller's cancel then finds it ended.
    const own = await cancelOwn;
    expect([200, 409], `${own.status} ${own.text}`).toContain(own.status);
    const orders = await app.db.query<{ status: string }>(
      `select o.status from journey_orders o join journeys j on j.order_id = o.id where j.id = $1`,
      [outbound.journey_id],
    );
    expect(orders).toEqual([{ status: 'CANCELLED' }]);
  });
});
