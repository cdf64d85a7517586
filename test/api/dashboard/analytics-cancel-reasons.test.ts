import { beforeAll, describe, expect, it } from 'vitest';
import { cancelBooking } from '../../support/booking-changes.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { openShift, payAtOffice, refundInFull } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { bookJourney, connection, mobileTraveller } from '../../support/journeys.js';
import { staffSession } from '../../support/journey-rows.js';
import { bookSeats, dispatch, operationsWorldWithShift } from '../../support/operations.js';

/**
 * GET /analytics/advanced cancellations.byReason counts each cancelled booking by what ended it, as
 * its cancellation confirmation prints it: a trip the company cancels later does not rewrite the
 * reason of a booking its traveller cancelled or the company refunded before.
 */
describe('advanced analytics: cancellations by what ended each booking', () => {
  const app = useTestApp({ ANALYTICS_RATE_LIMIT_PER_MINUTE: 0 });
  // Bookings made now, counted in today's window (Damascus): the file runs inside the one day.
  beforeAll(async () => {
    await dayWithRoom();
  }, dayWithRoomTimeout());
  const byReason = async (cookie: string) => {
    const response = await app.request('/dashboard/api/analytics/advanced?days=7', {
      headers: { Cookie: cookie },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.data.cancellations.byReason;
  };

  it("keeps a traveller's cancel and a refund, and counts only the booking the trip cancel ended as TRIP_CANCELLED", async () => {
    const world = await operationsWorldWithShift(app);
    const owner = world.sessions.OWNER;
    const cancelledByTraveller = await bookSeats(app, world.trip, ['1']);
    const refunded = await bookSeats(app, world.trip, ['2']);
    const live = await bookSeats(app, world.trip, ['3']);
    const cancelled = await cancelBooking(app, cancelledByTraveller.caller, cancelledByTraveller.bookingId);
    expect(cancelled.status, cancelled.text).toBe(200);
    await refundInFull(app, owner, await payAtOffice(app, owner, refunded.bookingId));
    expect(await byReason(owner.cookie)).toEqual([
      { reason: 'CANCELLED_BY_TRAVELLER', count: 1 },
      { reason: 'REFUNDED', count: 1 },
    ]);

    const tripCancel = await dispatch(app, world.dispatcher, world.trip.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    expect(tripCancel.status, tripCancel.text).toBe(200);
    // The trip cancel ended the one live booking, not the two already cancelled.
    expect(tripCancel.body.data.effects).toMatchObject({ cancelled_bookings: 1 });
    expect(await app.db.query(`select status from bookings where id = $1`, [live.bookingId])).toEqual([
      { status: 'CANCELLED' },
    ]);

    expect(await byReason(owner.cookie)).toEqual([
      { reason: 'CANCELLED_BY_TRAVELLER', count: 1 },
      { reason: 'REFUNDED', count: 1 },
      { reason: 'TRIP_CANCELLED', count: 1 },
    ]);
  });

  it("keeps a connection's leg refunded alone REFUNDED when the other company's trip cancel ends the journey", async () => {
    const world = await connection(app.db);
    const traveller = await mobileTraveller(app);
    const { journeyId } = await bookJourney(
      app,
      traveller,
      [{ trip: world.first }, { trip: world.second }],
      1,
    );
    const [firstLeg] = await app.db.query<{ id: string }>(
      `select id from bookings where journey_id = $1 and trip_id = $2`,
      [journeyId, world.first.tripId],
    );
    const firstOwner = await staffSession(app.db, app.config, world.first.companyId, 'OWNER');
    await openShift(app, firstOwner, 500_000);
    await refundInFull(app, firstOwner, await payAtOffice(app, firstOwner, firstLeg!.id));
    expect(await byReason(firstOwner.cookie)).toEqual([{ reason: 'REFUNDED', count: 1 }]);

    const secondDispatcher = await staffSession(app.db, app.config, world.second.companyId, 'DISPATCHER');
    const tripCancel = await dispatch(app, secondDispatcher, world.second.tripId, {
      action: 'CANCEL',
      reason: 'Road closed',
    });
    expect(tripCancel.status, tripCancel.text).toBe(200);
    // That cancel ended the journey (failure_reason TRIP_CANCELLED), not the leg refunded before it.
    const [journey] = await app.db.query<{ status: string; failure_reason: string }>(
      `select status, failure_reason from journeys where id = $1`,
      [journeyId],
    );
    expect(journey).toEqual({ status: 'CANCELLED', failure_reason: 'TRIP_CANCELLED' });

    expect(await byReason(firstOwner.cookie)).toEqual([{ reason: 'REFUNDED', count: 1 }]);
    const secondOwner = await staffSession(app.db, app.config, world.second.companyId, 'OWNER');
    expect(await byReason(secondOwner.cookie)).toEqual([{ reason: 'TRIP_CANCELLED', count: 1 }]);
  });
});
