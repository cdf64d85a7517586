import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { bookJourney, connection, mobileTraveller } from '../../support/journeys.js';
import { dispatch } from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

/**
 * Company A cancels its trip, which carries the first leg of a connection whose second leg is on
 * company B's trip. The dispatcher's reason is A's own free text: B's collected cash, owed back
 * now, says why in the fixed code alone, as B's cancelled lines name no staff user of A.
 */
describe("cancelling a trip: the other company's cash owed back", () => {
  const app = useTestApp();

  it("gives the other company's REFUND_DUE line TRIP_CANCELLED alone; the trip's company keeps its reason", async () => {
    const world = await connection(app.db);
    const traveller = await mobileTraveller(app);
    const booked = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }], 1);
    expect(booked.confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    const legs = await app.db.query<{ id: string; trip_id: string }>(
      `select id, trip_id from bookings where journey_id = $1`,
      [booked.journeyId],
    );
    for (const leg of legs) await collectCash(app.db, leg.id);
    const dispatcherA = await staffSession(app.db, app.config, world.first.companyId, 'DISPATCHER');
    const cancelled = await dispatch(app, dispatcherA, world.first.tripId, {
      action: 'CANCEL',
      reason: 'Driver of A suspended after complaint #88',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data.effects).toMatchObject({ cancelled_bookings: 2, refund_due_payments: 2 });

    const ledgerOf = async (companyId: string) => {
      const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
      const response = await app.request('/dashboard/api/payments', { headers: { Cookie: owner.cookie } });
      expect(response.status, response.text).toBe(200);
      const lines = response.body.data as {
        booking: { id: string };
        status: string;
        refund_due_reason: string;
      }[];
      return lines.map(({ booking, status, refund_due_reason }) => ({
        booking_id: booking.id,
        status,
        refund_due_reason,
      }));
    };
    const legA = legs.find((leg) => leg.trip_id === world.first.tripId)!;
    const legB = legs.find((leg) => leg.trip_id === world.second.tripId)!;
    expect(await ledgerOf(world.first.companyId)).toEqual([
      {
        booking_id: legA.id,
        status: 'REFUND_DUE',
        refund_due_reason: 'TRIP_CANCELLED: Driver of A suspended after complaint #88',
      },
    ]);
    expect(await ledgerOf(world.second.companyId)).toEqual([
      { booking_id: legB.id, status: 'REFUND_DUE', refund_due_reason: 'TRIP_CANCELLED' },
    ]);
  });
});
