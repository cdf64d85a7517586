import { describe, expect, it } from 'vitest';
import { inTurnWatchingForCycle } from '../../drills/support/blocking.js';
import { cancelBooking, modifyBooking, moveTo, sameRouteTrip } from '../../support/booking-changes.js';
import { bookRoundTrip } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { mobileTraveller } from '../../support/journeys.js';
import { payAtOffice, paymentAction } from '../../support/finance.js';
import {
  bookSeats,
  dispatch,
  operationsWorld,
  operationsWorldWithShift,
  type OperationsWorld,
} from '../../support/operations.js';

/**
 * The order in which a trip CANCEL and a traveller's cancel or a company's refund of a booking on
 * the trip take their locks. The CANCEL takes its trip, then the orders, journeys and bookings on it
 * (test/api/dashboard/cancel-races.test.ts pins that). The refund takes the booking's trip FOR SHARE
 * before its order, journey and booking; the traveller's cancel takes its trips last but without
 * waiting, and finding one held runs again taking the trips first. So the two queue on the trip
 * instead of each holding what the other waits for (a deadlock PostgreSQL ended after
 * deadlock_timeout, aborting one, which withDeadlockRetry ran again).
 *
 * Each case makes the traveller's request (or the refund) go first and stop on a row the test
 * holds (its journey, order or trip); the other starts while it waits, then the test lets go and watches
 * the two backends: they never wait on each other (pg_stat_database's deadlock count would say the
 * same, but it counts every test file of the run, two at a time).
 */
describe("a trip cancel and a traveller's cancel or a refund of a booking on the trip", () => {
  const app = useTestApp();

  const cancelTrip = (world: Pick<OperationsWorld, 'dispatcher'>, tripId: string) =>
    dispatch(app, world.dispatcher, tripId, { action: 'CANCEL', reason: 'Road closed' });

  /** `first` stopped on the row `blockerSql` locks, `second` waiting too, then watched for a cycle. */
  const inTurn = <T>(blockerSql: string, first: () => Promise<T>, second: () => Promise<T>) =>
    inTurnWatchingForCycle(app.db, blockerSql, first, second);

  /** Nothing of the booking is left on the trip: booking and journey CANCELLED, no seat held, no valid ticket. */
  async function bookingEnded(bookingId: string) {
    const [row] = await app.db.query<{ booking: string; journey: string; seats: number; tickets: number }>(
      `select b.status as booking, j.status as journey,
              (select count(*)::int from seat_allocations a
                where a.owner_kind = 'JOURNEY' and a.owner_id = j.id and a.status in ('HELD', 'CONFIRMED')) as seats,
              (select count(*)::int from journey_tickets k
                where k.journey_id = j.id and k.status in ('VALID', 'PENDING_CONFIRMATION')) as tickets
         from bookings b join journeys j on j.id = b.journey_id where b.id = $1`,
      [bookingId],
    );
    expect(row).toEqual({ booking: 'CANCELLED', journey: 'CANCELLED', seats: 0, tickets: 0 });
  }

  it("a traveller's cancel that holds its journey when the trip's cancel holds the trip gives way and runs again, without a deadlock", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);

    const {
      answers: [own, trip],
      deadlocked,
    } = await inTurn(
      `select id from journeys where id = (select journey_id from bookings where id = '${booked.bookingId}') for update`,
      () => cancelBooking(app, booked.caller, booked.bookingId),
      () => cancelTrip(world, world.trip.tripId),
    );

    expect(deadlocked).toBe(false);
    expect(own.status, own.text).toBe(200);
    expect(trip.status, trip.text).toBe(200);
    await bookingEnded(booked.bookingId);
  });

  it("a traveller's cancel of a round trip that holds the order when the outbound trip's cancel holds the trip gives way, without a deadlock", async () => {
    const traveller = await mobileTraveller(app);
    const { pair, outbound, inbound } = await bookRoundTrip(app, traveller);
    const dispatcher = await staffSession(app.db, app.config, pair.outbound.companyId, 'DISPATCHER');

    const {
      answers: [own, trip],
      deadlocked,
    } = await inTurn(
      `select o.id from journey_orders o join journeys j on j.order_id = o.id where j.id = '${outbound.journey_id}' for update of o`,
      () => cancelBooking(app, traveller, outbound.id),
      () => cancelTrip({ dispatcher }, pair.outbound.tripId),
    );

    expect(deadlocked).toBe(false);
    expect(own.status, own.text).toBe(200);
    expect(trip.status, trip.text).toBe(200);
    // The trip's cancel went first: it ended the outbound journey; the traveller's cancel, run again,
    // found its booking cancelled and changed nothing. The return journey and the order stand.
    await bookingEnded(outbound.id);
    const [rest] = await app.db.query<{ booking: string; order: string }>(
      `select b.status as booking, o.status as order from bookings b join journeys j on j.id = b.journey_id
         join journey_orders o on o.id = j.order_id where b.id = $1`,
      [inbound.id],
    );
    expect(rest).toEqual({ booking: 'CONFIRMED', order: 'CONFIRMED' });
  });

  it("a company's refund holding the trip waits for the journey; the trip's cancel waits for it, without a deadlock", async () => {
    const world = await operationsWorldWithShift(app);
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const paymentId = await payAtOffice(app, world.sessions.ACCOUNTANT, booked.bookingId);

    const {
      answers: [refund, trip],
      deadlocked,
    } = await inTurn(
      `select id from journeys where id = (select journey_id from bookings where id = '${booked.bookingId}') for update`,
      () => paymentAction(app, world.sessions.ACCOUNTANT, paymentId, 'refund'),
      () => cancelTrip(world, world.trip.tripId),
    );

    expect(deadlocked).toBe(false);
    expect(refund.status, refund.text).toBe(200);
    expect(trip.status, trip.text).toBe(200);
    await bookingEnded(booked.bookingId);
    // The refund came first: the cash went back from the till, nothing is left owed (REFUND_DUE).
    const [line] = await app.db.query<{ status: string }>(
      `select status from payment_operations where id = $1`,
      [paymentId],
    );
    expect(line).toEqual({ status: 'REFUNDED' });
  });

  it("a traveller's cancel and a modify of the same booking take turns, the cancel finding the booking on its new trip", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const other = await sameRouteTrip(
      app.db,
      world.trip,
      new Date(world.trip.departAt.getTime() + 86_400_000),
    );
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);

    // The modify takes both trips and the journey, then waits for the booking (held by the test); the
    // cancel waits for the journey. Once let go, the modify commits and the cancel finds the booking
    // on the other trip, which it takes without waiting (a trip action holding it would make the
    // cancel run again trips first). A cancel that found its trip busy first and waits for it comes
    // before a modify arriving after it (modify-lock-order.test.ts).
    const {
      answers: [modified, own],
      deadlocked,
    } = await inTurn(
      `select id from bookings where id = '${booked.bookingId}' for update`,
      () =>
        modifyBooking(app, booked.caller, booked.bookingId, moveTo(other.tripId, [other.seatNumbers[0]!])),
      () => cancelBooking(app, booked.caller, booked.bookingId),
    );

    expect(deadlocked).toBe(false);
    expect(modified.status, modified.text).toBe(200);
    expect(own.status, own.text).toBe(200);
    const [row] = await app.db.query<{ status: string; trip_id: string }>(
      `select status, trip_id from bookings where id = $1`,
      [booked.bookingId],
    );
    expect(row).toEqual({ status: 'CANCELLED', trip_id: other.tripId });
    await bookingEnded(booked.bookingId);
  });
});
