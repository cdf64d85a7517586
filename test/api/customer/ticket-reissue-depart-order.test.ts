import { describe, expect, it } from 'vitest';
import {
  answeredOrWaiting,
  holdLock,
  inTurnWatchingForCycle,
  waitersOf,
} from '../../drills/support/blocking.js';
import { modifyBooking, moveTo, sameRouteTrip } from '../../support/booking-changes.js';
import { useTestApp } from '../../support/harness.js';
import {
  advance,
  bookSeats,
  dispatch,
  operationsWorld,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';

/**
 * A traveller's re-issue (POST /api/tickets) and the trip actions that end boarding. The re-issue
 * takes the ticket's trip FOR SHARE before its journey and ticket, as a trip action (DEPART, ARRIVE,
 * CANCEL) takes the trip before what is on it: the two take turns on the trip. Read without that
 * lock, a DEPART committing between the re-issue's read of the trip and its commit left a fresh
 * credential signed for a bus that had gone.
 *
 * Each case stops one request on a row the test holds in its own open transaction, starts the
 * other, shows where it waits (pg_locks), then lets go.
 */
describe('a ticket re-issue and a DEPART, CANCEL or modify of its trip at the same time', () => {
  const app = useTestApp();

  const reissue = (booked: BookedTraveller) =>
    app.request('/api/tickets', {
      method: 'POST',
      headers: booked.caller.headers,
      json: { ticket_id: booked.ticketIds[0], reason: 'LOST_DEVICE' },
    });

  /** A traveller with one seat on a fresh trip of its own (8 seats, its driver assigned). */
  async function bookedWorld(): Promise<{ world: OperationsWorld; booked: BookedTraveller }> {
    const world = await operationsWorld(app, { seats: 8 });
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    return { world, booked };
  }

  const journeyOf = (booked: BookedTraveller) =>
    `select id from journeys where id = (select journey_id from bookings where id = '${booked.bookingId}') for update`;

  /** The booking's tickets and their revocations, in the order they were issued. */
  async function ticketsOf(booked: BookedTraveller) {
    return app.db.query<{
      id: string;
      trip_id: string;
      status: string;
      signature: string;
      revoked: string | null;
    }>(
      `select k.id, k.trip_id, k.status, k.signature,
              (select string_agg(r.reason, ',') from credential_revocations r where r.ticket_id = k.id) as revoked
       from journey_tickets k where k.journey_id = (select journey_id from bookings where id = $1)
       order by k.created_at, k.id`,
      [booked.bookingId],
    );
  }

  /** The tables whose row the backends waiting on backend `pid` queue for (their tuple locks). */
  async function rowsWaitedFor(pid: number): Promise<string[]> {
    const [row] = await app.db.query<{ tables: string[] }>(
      `select coalesce(array_agg(distinct l.relation::regclass::text), '{}') as tables
       from pg_stat_activity a join pg_locks l on l.pid = a.pid and l.locktype = 'tuple'
       where $1 = any(pg_blocking_pids(a.pid))`,
      [pid],
    );
    return row!.tables;
  }

  it('a re-issue arriving while a DEPART holds the trip waits for it and is refused, changing nothing', async () => {
    const { world, booked } = await bookedWorld();
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const before = await ticketsOf(booked);

    // The test holds the trip's bus as another trip of the bus leaving would (trip-actions.ts
    // lockBusAndDriver): the DEPART stops there, its trip locked, its status not yet written.
    const blocker = await holdLock(
      app.db,
      `select pg_advisory_xact_lock(hashtextextended('trip-out:bus:' || bus_id, 0)) from trips
       where id = '${world.trip.tripId}'`,
    );
    const departing = dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    const [departPid] = await waitersOf(app.db, blocker.pid);
    const reissuing = reissue(booked);
    await answeredOrWaiting(reissuing, app.db, departPid!);
    const waitedFor = await rowsWaitedFor(departPid!);
    await blocker.release();
    const [departed, reissued] = await Promise.all([departing, reissuing]);

    expect(departed.status, departed.text).toBe(200);
    expect([reissued.status, reissued.body.errorCode], reissued.text).toEqual([409, 'TRIP_ALREADY_DEPARTED']);
    expect(waitedFor).toEqual(['trips']);
    // No new ticket, the old one VALID with its credential and not revoked (DEPART leaves tickets be).
    expect(await ticketsOf(booked)).toEqual(before);
    expect(before).toEqual([expect.objectContaining({ status: 'VALID', revoked: null })]);
  });

  it('a DEPART arriving while a re-issue holds the trip waits for it, and the new ticket then no longer boards', async () => {
    const { world, booked } = await bookedWorld();
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');

    // The test holds the journey: the re-issue stops there, its trip taken.
    const blocker = await holdLock(app.db, journeyOf(booked));
    const reissuing = reissue(booked);
    const [reissuePid] = await waitersOf(app.db, blocker.pid);
    const departing = dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    await answeredOrWaiting(departing, app.db, reissuePid!);
    const waitedFor = await rowsWaitedFor(reissuePid!);
    await blocker.release();
    const [reissued, departed] = await Promise.all([reissuing, departing]);

    expect(reissued.status, reissued.text).toBe(201);
    expect(departed.status, departed.text).toBe(200);
    expect(waitedFor).toEqual(['trips']);
    const fresh = reissued.body.data.ticket;
    expect(await ticketsOf(booked)).toEqual([
      expect.objectContaining({
        id: booked.ticketIds[0],
        status: 'REISSUED',
        revoked: 'REISSUED:LOST_DEVICE',
      }),
      expect.objectContaining({ id: fresh.id, status: 'VALID', revoked: null }),
    ]);
    // Issued before the bus left, the new ticket then expires with it, as any ticket boarding there.
    const shown = await app.request(`/api/tickets/${fresh.id}`, { headers: booked.caller.headers });
    expect(shown.body.data.ticket).toMatchObject({
      status: 'VALID',
      boarding_authorized: false,
      qr_text: null,
    });
  });

  it('a trip CANCEL arriving while a re-issue holds the trip waits for it and cancels the new ticket, without a deadlock', async () => {
    const { world, booked } = await bookedWorld();

    const {
      answers: [reissued, cancelled],
      deadlocked,
    } = await inTurnWatchingForCycle(
      app.db,
      journeyOf(booked),
      () => reissue(booked),
      () => dispatch(app, world.dispatcher, world.trip.tripId, { action: 'CANCEL', reason: 'Road closed' }),
    );

    expect(deadlocked).toBe(false);
    expect(reissued.status, reissued.text).toBe(201);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await ticketsOf(booked)).toEqual([
      expect.objectContaining({
        id: booked.ticketIds[0],
        status: 'REISSUED',
        revoked: 'REISSUED:LOST_DEVICE',
      }),
      expect.objectContaining({
        id: reissued.body.data.ticket.id,
        status: 'CANCELLED',
        revoked: 'TRIP_CANCELLED',
      }),
    ]);
  });

  it('a re-issue arriving while a modify of the booking waits for its journey goes after it and is refused, without a deadlock', async () => {
    const { world, booked } = await bookedWorld();
    const other = await sameRouteTrip(
      app.db,
      world.trip,
      new Date(world.trip.departAt.getTime() + 86_400_000),
    );

    const {
      answers: [modified, reissued],
      deadlocked,
    } = await inTurnWatchingForCycle(
      app.db,
      journeyOf(booked),
      () =>
        modifyBooking(app, booked.caller, booked.bookingId, moveTo(other.tripId, [other.seatNumbers[0]!])),
      () => reissue(booked),
    );

    expect(deadlocked).toBe(false);
    expect(modified.status, modified.text).toBe(200);
    // The modify re-issued the leg's tickets on the new trip: the old one is no longer valid.
    expect([reissued.status, reissued.body.errorCode], reissued.text).toEqual([409, 'TICKET_NOT_VALID']);
    expect(await ticketsOf(booked)).toEqual([
      expect.objectContaining({ id: booked.ticketIds[0], trip_id: world.trip.tripId, revoked: 'REISSUED' }),
      expect.objectContaining({ trip_id: other.tripId, status: 'VALID', revoked: null }),
    ]);
  });
});
