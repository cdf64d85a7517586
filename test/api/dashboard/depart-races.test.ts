import { describe, expect, it } from 'vitest';
import {
  answeredOrWaiting,
  cancelAndDepartInTurn,
  holdLock,
  waitersOf,
} from '../../drills/support/blocking.js';
import { createBooking, lockSeats } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import {
  bookJourney,
  confirmJourney,
  connection,
  holdForConfirm,
  mobileTraveller,
  setConfirmation,
} from '../../support/journeys.js';
import { advance, assignDriver, createDriver, dispatch, operationsWorld } from '../../support/operations.js';
import { announceCashPayment } from '../../support/payments.js';

/**
 * A journey confirm racing the trip's DEPART. The confirm takes the trip FOR SHARE before its scope
 * (db/writes/journeys/outcome.ts inTripLockedScope), so DEPART, which locks the trip, waits for it and
 * then sees what it wrote: a request still awaiting the company (REQUESTS_PENDING) or a confirmed
 * booking that gets its trip.started event. The test stops the confirm after it has the trip, at the
 * company row it share-locks later (confirm.ts bookableCompanies), and sends DEPART meanwhile, which
 * waits at the same company row (it share-locks it before the trip, db/writes/active-company.ts);
 * once the row is free, DEPART still waits for the confirm's trip lock.
 */
describe('a journey confirm racing DEPART', () => {
  const app = useTestApp();

  async function race(mode: 'AUTO_CONFIRM' | 'MANUAL_CONFIRM') {
    const world = await operationsWorld(app, { seats: 8 });
    await setConfirmation(app.db, world.companyId, { mode });
    const traveller = await mobileTraveller(app);
    const trip = { ...world.trip, seatCount: 8 };
    const { confirmBody, journeyId } = await holdForConfirm(app, traveller, [{ trip }]);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');

    const blocker = await holdLock(
      app.db,
      `select id from companies where id = '${world.companyId}' for no key update`,
    );
    const confirm = confirmJourney(app, traveller, journeyId, confirmBody);
    await waitersOf(app.db, blocker.pid);
    const depart = dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    await answeredOrWaiting(depart, app.db, blocker.pid, 2);
    await blocker.release();
    const [confirmed, departed] = await Promise.all([confirm, depart]);
    const [tripRow] = await app.db.query<{ status: string }>('select status from trips where id = $1', [
      world.trip.tripId,
    ]);
    const bookings = await app.db.query<{ id: string; status: string; started: boolean }>(
      `select b.id, b.status,
              exists (select 1 from outbox_events e where e.booking_id = b.id and e.event = 'trip.started') as started
       from bookings b where b.trip_id = $1`,
      [world.trip.tripId],
    );
    return { confirmed, departed, trip: tripRow!, bookings };
  }

  it('never leaves a DEPARTED trip with a journey request still awaiting the company (REQUESTS_PENDING)', async () => {
    const { confirmed, departed, trip, bookings } = await race('MANUAL_CONFIRM');
    const summary = {
      confirm: `${confirmed.status} ${confirmed.body?.data?.confirmation?.status ?? confirmed.body?.errorCode}`,
      depart: `${departed.status} ${departed.body?.data?.status ?? departed.body?.errorCode}`,
      trip: trip.status,
      bookings: bookings.map((b) => b.status),
    };
    // Correct: either the DEPART waited and was refused TRIP_NOT_READY (REQUESTS_PENDING), or the
    // confirm was refused TRIP_NOT_BOOKABLE. Never both through.
    const pendingOnDeparted =
      trip.status === 'DEPARTED' && bookings.some((b) => b.status === 'PENDING_CONFIRMATION');
    expect(pendingOnDeparted, JSON.stringify(summary)).toBe(false);
  });

  it('never confirms a booking on a trip that departed without it (no trip.started for it)', async () => {
    const { confirmed, departed, trip, bookings } = await race('AUTO_CONFIRM');
    const summary = {
      confirm: `${confirmed.status} ${confirmed.body?.data?.confirmation?.status ?? confirmed.body?.errorCode}`,
      depart: `${departed.status} ${departed.body?.data?.status ?? departed.body?.errorCode}`,
      trip: trip.status,
      bookings,
    };
    const liveWithoutEvent = bookings.filter((b) => b.status !== 'CANCELLED' && !b.started);
    expect(trip.status === 'DEPARTED' ? liveWithoutEvent : [], JSON.stringify(summary)).toEqual([]);
  });
});

/**
 * Company B CANCELs its trip (leg 2 of a connection) while company A DEPARTs the trip of leg 1. The
 * cancel ends the journey's legs on trips that have not departed (a leg already travelled keeps its
 * record), and takes those trips FOR SHARE before it reads their status (cancel-trip.ts
 * lockLegTrips): whichever comes first, the other sees it. Either leg 1 departed first and keeps its
 * booking, tickets and trip.started, or the cancel ended it first and DEPART sends no trip.started
 * for it; never a booking cancelled on a bus that had already left with it.
 */
describe('a trip CANCEL of leg 2 racing the DEPART of leg 1', () => {
  const app = useTestApp();

  async function legOneWorld() {
    const world = await connection(app.db);
    const traveller = await mobileTraveller(app);
    const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }]);
    expect(booked.confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    const [legOne] = await app.db.query<{ id: string }>(
      'select id from bookings where journey_id = $1 and trip_id = $2',
      [booked.journeyId, world.first.tripId],
    );
    const { paymentId } = await announceCashPayment(app.db, legOne!.id, traveller.userId);
    const driver = await createDriver(app, world.first.companyId);
    await assignDriver(app.db, world.first.tripId, driver.staffUserId);
    const dispatcherA = await staffSession(app.db, app.config, world.first.companyId, 'DISPATCHER');
    const dispatcherB = await staffSession(app.db, app.config, world.second.companyId, 'DISPATCHER');
    await advance(app, dispatcherA, world.first.tripId, 'START_BOARDING');
    return {
      bookingId: legOne!.id,
      paymentId,
      journeyId: booked.journeyId,
      cancel: () =>
        dispatch(app, dispatcherB, world.second.tripId, { action: 'CANCEL', reason: 'Breakdown' }),
      depart: () => dispatch(app, dispatcherA, world.first.tripId, { action: 'DEPART' }),
      tripId: world.first.tripId,
    };
  }

  /** Leg 1 as the race left it; `cancelledAfterDeparture`: its booking.cancelled written after DEPART was logged. */
  async function legOne(leg: Awaited<ReturnType<typeof legOneWorld>>) {
    const [row] = await app.db.query<{
      trip: string;
      status: string;
      events: string[];
      cancelled_after_departure: boolean;
    }>(
      `select t.status as trip, b.status,
              array(select e.event from outbox_events e where e.booking_id = b.id order by e.occurred_at, e.event) as events,
              coalesce((select min(e.occurred_at) from outbox_events e where e.booking_id = b.id and e.event = 'booking.cancelled')
                       > (select min(o.created_at) from trip_operation_events o where o.trip_id = t.id and o.action = 'DEPART'),
                       false) as cancelled_after_departure
       from bookings b join trips t on t.id = b.trip_id where b.id = $1`,
      [leg.bookingId],
    );
    const tickets = await app.db.query<{ status: string }>(
      'select status from journey_tickets where journey_id = $1 and trip_id = $2',
      [leg.journeyId, leg.tripId],
    );
    return { ...row!, tickets: tickets.map((ticket) => ticket.status) };
  }

  /**
   * `first` starts and stops at the row `blockerSql` holds, `second` starts and waits behind it, then
   * both go on: their answers, leg 1 as they left it, and a summary for failure messages.
   */
  async function staged(
    leg: Awaited<ReturnType<typeof legOneWorld>>,
    blockerSql: string,
    order: 'cancel first' | 'depart first',
  ) {
    const { cancelled, departed } = await cancelAndDepartInTurn(app.db, blockerSql, order, leg);
    const after = await legOne(leg);
    const summary = {
      cancel: `${cancelled.status} ${cancelled.body?.data?.status ?? cancelled.body?.errorCode}`,
      depart: `${departed.status} ${departed.body?.data?.status ?? departed.body?.errorCode}`,
      legOne: after,
    };
    return { cancelled, departed, after, summary };
  }

  it('the CANCEL first: DEPART waits for it, then leaves without the booking and sends it no trip.started', async () => {
    const leg = await legOneWorld();
    // The cancel stops after it has read leg 1's trip, at the pending cash it settles later (settlePayments).
    const { after, summary } = await staged(
      leg,
      `select id from payment_operations where id = '${leg.paymentId}' for update`,
      'cancel first',
    );
    const startedThenCancelled =
      after.events.includes('trip.started') && after.events.includes('booking.cancelled');
    const cancelledOnDeparted =
      after.trip === 'DEPARTED' && after.status === 'CANCELLED' && after.cancelled_after_departure;
    expect({ startedThenCancelled, cancelledOnDeparted }, JSON.stringify(summary)).toEqual({
      startedThenCancelled: false,
      cancelledOnDeparted: false,
    });
  });

  it('the DEPART first: the CANCEL waits for it and leaves the travelled leg its booking, tickets and trip.started', async () => {
    const leg = await legOneWorld();
    // DEPART stops after it has the trip, at the booking its trip.started references (outbox_events' key).
    const { cancelled, departed, after, summary } = await staged(
      leg,
      `select id from bookings where id = '${leg.bookingId}' for update`,
      'depart first',
    );
    expect(
      {
        cancel: cancelled.status,
        depart: departed.status,
        trip: after.trip,
        status: after.status,
        events: after.events,
        tickets: after.tickets,
      },
      JSON.stringify(summary),
    ).toEqual({
      cancel: 200,
      depart: 200,
      trip: 'DEPARTED',
      status: 'CONFIRMED',
      events: ['booking.created', 'booking.confirmed', 'trip.started'],
      tickets: ['VALID'],
    });
  });
});

/**
 * A notification's timestamp (outbox_events.occurred_at) is when its row is written, just before
 * its change commits (db/writes/outbox.ts), not when the transaction began: receivers order by it.
 * A DEPART that waits for a booking in flight (which holds the trip FOR SHARE, as every POST /bookings
 * does) lets a booking that starts after it commit first and then sends it trip.started, which must
 * not carry an earlier time than that booking's booking.created; and the booking.created and
 * booking.confirmed of one POST /bookings, written by one statement, sort in that order.
 */
describe('event timestamps of a booking made while DEPART waits', () => {
  const app = useTestApp();

  it('trip.started is timed after booking.created, and booking.created strictly before booking.confirmed', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const traveller = await mobileTraveller(app);
    const seatLock = await lockSeats(app, traveller, world.trip.tripId, [world.trip.seatNumbers[0]!]);

    const inFlight = await holdLock(
      app.db,
      `select id from trips where id = '${world.trip.tripId}' for share`,
    );
    const depart = dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    await waitersOf(app.db, inFlight.pid);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const booking = await createBooking(app, traveller, {
      tripId: world.trip.tripId,
      seatNumbers: [world.trip.seatNumbers[0]!],
      seatLockSessionId: seatLock,
    });
    await inFlight.release();
    const departed = await depart;
    expect(departed.status, departed.text).toBe(200);

    const events = await app.db.query<{ event: string; occurred_at: string }>(
      `select event, to_char(occurred_at at time zone 'UTC', 'HH24:MI:SS.US') as occurred_at
       from outbox_events where booking_id = $1 order by occurred_at, event`,
      [booking.id],
    );
    const at = (name: string) => events.find((event) => event.event === name)?.occurred_at ?? '';
    expect(at('trip.started') >= at('booking.created'), JSON.stringify(events)).toBe(true);
    expect(at('booking.created') < at('booking.confirmed'), JSON.stringify(events)).toBe(true);
    expect(events.map((event) => event.event)).toEqual([
      'booking.created',
      'booking.confirmed',
      'trip.started',
    ]);
  });
});
