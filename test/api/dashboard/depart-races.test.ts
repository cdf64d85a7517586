import { describe, expect, it } from 'vitest';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { confirmJourney, holdForConfirm, mobileTraveller, setConfirmation } from '../../support/journeys.js';
import { advance, dispatch, operationsWorld } from '../../support/operations.js';

/**
 * A journey confirm racing the trip's DEPART. The confirm takes the trip FOR SHARE before its scope
 * (db/writes/journeys/outcome.ts inTripLockedScope), so DEPART, which locks the trip, waits for it and
 * then sees what it wrote: a request still awaiting the company (REQUESTS_PENDING) or a confirmed
 * booking that gets its trip.started event. The test stops the confirm after it has the trip, at the
 * company row it share-locks later (confirm.ts bookableCompanies), and sends DEPART meanwhile.
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
    const [confirmPid] = await waitersOf(app.db, blocker.pid);
    const depart = dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    await answeredOrWaiting(depart, app.db, confirmPid!);
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
