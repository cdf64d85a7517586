import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { bookJourney, connection, mobileTraveller, type Caller } from '../../support/journeys.js';
import { dispatch } from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

/**
 * A trip CANCEL ends the journeys still booked on the trip. A connection whose leg on the trip its
 * company already refunded (which ended that leg alone, its other leg kept) is no longer on it: the
 * CANCEL leaves its other leg, ticket and money as they are. A connection still booked on the trip
 * ends on both legs, as before.
 */
describe("a trip CANCEL after the company refunded a connection's leg on it", () => {
  const app = useTestApp();

  it("keeps the other company's leg of the refunded connection, and still ends a connection live on the trip", async () => {
    const world = await connection(app.db);
    const ownerA = await staffSession(app.db, app.config, world.first.companyId, 'OWNER');
    const refunded = await paidConnection(app, world);
    const live = await paidConnection(app, world);

    const open = await app.request('/dashboard/api/payments/cash-shifts', {
      method: 'POST',
      headers: ownerA.writeHeaders,
      json: { action: 'OPEN', opening_balance: 500_000 },
    });
    expect(open.status, open.text).toBe(201);
    const refund = await app.request(`/dashboard/api/payments/${refunded.first.paymentId}/refund`, {
      method: 'POST',
      headers: ownerA.writeHeaders,
    });
    expect(refund.status, refund.text).toBe(200);
    const refundedBefore = await journeyState(app, refunded);
    expect(refundedBefore).toMatchObject({
      journey: 'CONFIRMED',
      first: {
        booking: 'CANCELLED',
        payment: 'REFUNDED',
        tickets: ['CANCELLED'],
        events: ['booking.cancelled'],
      },
      second: { booking: 'CONFIRMED', payment: 'COMPLETED', tickets: ['VALID'], events: [] },
    });

    const cancelled = await dispatch(app, ownerA, world.first.tripId, {
      action: 'CANCEL',
      reason: 'Breakdown',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    // Only the connection still on the trip counts: its journey and both its bookings.
    expect(cancelled.body.data.effects).toMatchObject({
      cancelled_journeys: 1,
      cancelled_bookings: 2,
      revoked_credentials: 2,
      refund_due_payments: 2,
      events: 2,
    });

    // The refunded connection: nothing changed, and B's traveller still boards with a valid ticket.
    expect(await journeyState(app, refunded)).toEqual(refundedBefore);
    const projection = await app.request(`/api/journeys/${refunded.journeyId}`, {
      headers: refunded.traveller.headers,
    });
    expect(projection.status, projection.text).toBe(200);
    expect(projection.body.data.confirmation.status).toBe('CONFIRMED');

    // The connection still on the trip ends whole, as before: both legs, tickets and money.
    expect(await journeyState(app, live)).toEqual({
      journey: 'CANCELLED',
      first: {
        booking: 'CANCELLED',
        payment: 'REFUND_DUE',
        tickets: ['CANCELLED'],
        events: ['booking.cancelled'],
      },
      second: {
        booking: 'CANCELLED',
        payment: 'REFUND_DUE',
        tickets: ['CANCELLED'],
        events: ['booking.cancelled'],
      },
    });
  });
});

type World = Awaited<ReturnType<typeof connection>>;

interface PaidLeg {
  bookingId: string;
  paymentId: string;
}

interface PaidConnection {
  traveller: Caller;
  journeyId: string;
  first: PaidLeg;
  second: PaidLeg;
}

/** A one-traveller connection over both trips, each leg paid in cash at its company's office. */
async function paidConnection(app: TestApp, world: World): Promise<PaidConnection> {
  const traveller = await mobileTraveller(app);
  const { journeyId } = await bookJourney(app, traveller, [{ trip: world.first }, { trip: world.second }]);
  const paidLeg = async (tripId: string): Promise<PaidLeg> => {
    const [booking] = await app.db.query<{ id: string }>(
      `select id from bookings where journey_id = $1 and trip_id = $2`,
      [journeyId, tripId],
    );
    const { paymentId } = await collectCash(app.db, booking!.id, { source: 'office' });
    return { bookingId: booking!.id, paymentId };
  };
  return {
    traveller,
    journeyId,
    first: await paidLeg(world.first.tripId),
    second: await paidLeg(world.second.tripId),
  };
}

/** The journey's status and, per leg: booking, payment line, tickets and the booking's cancellation events. */
async function journeyState(app: TestApp, paid: PaidConnection) {
  const legState = async (leg: PaidLeg) => {
    const [row] = await app.db.query<{
      booking: string;
      payment: string;
      tickets: string[];
      events: string[];
    }>(
      `select b.status as booking,
              (select p.status from payment_operations p where p.id = $2) as payment,
              array(select k.status from journey_tickets k
                     where k.journey_id = b.journey_id and k.trip_id = b.trip_id and k.status <> 'REISSUED'
                     order by k.id) as tickets,
              array(select e.event from outbox_events e where e.booking_id = b.id and e.event = 'booking.cancelled') as events
         from bookings b where b.id = $1`,
      [leg.bookingId, leg.paymentId],
    );
    return row!;
  };
  const [journey] = await app.db.query<{ status: string }>(`select status from journeys where id = $1`, [
    paid.journeyId,
  ]);
  return { journey: journey!.status, first: await legState(paid.first), second: await legState(paid.second) };
}
