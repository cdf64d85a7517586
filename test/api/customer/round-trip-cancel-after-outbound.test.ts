import { describe, expect, it } from 'vitest';
import { bookingState, cancelBooking } from '../../support/booking-changes.js';
import { bookRoundTrip, createBooking } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { mobileTraveller } from '../../support/journeys.js';
import { advance, assignDriver, createDriver, travellerAction } from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';

/**
 * POST /bookings/{id}/cancel of the return leg of a round trip (POST /bookings/round-trip) once its
 * outbound leg has travelled: the outbound is settled (boarded, missed, or its bus has left) and is
 * left as it is; all or nothing holds for the legs still ahead only.
 */
describe('POST /bookings/{id}/cancel: the return of a round trip whose outbound has travelled', () => {
  const app = useTestApp();

  type Outcome = 'boarded' | 'no-show' | 'on the bus';

  /**
   * A round trip whose outbound trip the operations room ran: the traveller paid the driver and was
   * checked in ('boarded' and 'on the bus') or never came ('no-show'); the trip then DEPARTed, and
   * except 'on the bus' ARRIVEd and COMPLETEd. The return, two days later, is unpaid.
   */
  async function outboundRan(outcome: Outcome) {
    const caller = await mobileTraveller(app);
    const { pair, outbound, inbound } = await bookRoundTrip(app, caller);
    const { tripId, companyId } = pair.outbound;
    const dispatcher = await staffSession(app.db, app.config, companyId, 'DISPATCHER');
    const driver = await createDriver(app, companyId);
    await assignDriver(app.db, tripId, driver.staffUserId);
    await advance(app, dispatcher, tripId, 'START_BOARDING');
    const [ticket] = await app.db.query<{ id: string }>(
      `select id from journey_tickets where journey_id = $1 and status = 'VALID'`,
      [outbound.journey_id],
    );
    if (outcome !== 'no-show') {
      await collectCash(app.db, outbound.id, { source: 'driver', staffUserId: driver.staffUserId });
    }
    const attendance = await travellerAction(
      app,
      dispatcher,
      tripId,
      outcome === 'no-show' ? 'MARK_NO_SHOW' : 'CHECK_IN',
      ticket!.id,
    );
    expect(attendance.status, attendance.text).toBe(200);
    await advance(
      app,
      dispatcher,
      tripId,
      'DEPART',
      ...(outcome === 'on the bus' ? [] : ['ARRIVE', 'COMPLETE']),
    );
    return { caller, pair, outbound, inbound };
  }

  /** The status of the order of `bookingId`'s journey. */
  async function orderStatus(bookingId: string) {
    const [order] = await app.db.query<{ status: string }>(
      `select o.status from journey_orders o join journeys j on j.order_id = o.id
       join bookings b on b.journey_id = j.id where b.id = $1`,
      [bookingId],
    );
    return order!.status;
  }

  const travelled: [Outcome, string][] = [
    ['boarded', 'COMPLETED'],
    ['no-show', 'NO_SHOW'],
    ['on the bus', 'CHECKED_IN'],
  ];

  it.each(travelled)(
    'cancels the unpaid return alone once the outbound was %s (%s): seats freed, the outbound untouched',
    async (outcome, outboundStatus) => {
      const { caller, pair, outbound, inbound } = await outboundRan(outcome);
      const outboundBefore = await bookingState(app.db, outbound.id);
      expect(outboundBefore.booking.status).toBe(outboundStatus);

      const response = await cancelBooking(app, caller, inbound.id);

      expect([response.status, response.body.errorCode], response.text).toEqual([200, undefined]);
      expect(response.body.data).toMatchObject({
        id: inbound.id,
        status: 'CANCELLED',
        cancelled_with_booking_ids: [],
      });
      const state = await bookingState(app.db, inbound.id);
      expect([state.booking.status, state.journey.status]).toEqual(['CANCELLED', 'CANCELLED']);
      expect(state.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED']);
      expect(state.tickets.map((ticket) => ticket.status)).toEqual(['CANCELLED']);
      expect(state.revoked.map((entry) => entry.reason)).toEqual(['BOOKING_CANCELLED']);
      // The travelled leg stands, and so does the order it belongs to.
      expect(await bookingState(app.db, outbound.id)).toEqual(outboundBefore);
      expect(await orderStatus(outbound.id)).toBe('CONFIRMED');
      const events = await app.db.query<{ booking_id: string }>(
        `select booking_id from outbox_events where event = 'booking.cancelled' and booking_id = any($1::uuid[])`,
        [[outbound.id, inbound.id]],
      );
      expect(events.map((event) => event.booking_id)).toEqual([inbound.id]);
      // The return's seat is for sale again.
      await createBooking(app, await mobileTraveller(app), {
        tripId: pair.inbound.tripId,
        seatNumbers: ['1'],
      });
    },
  );

  it('still refuses a cancel of the travelled outbound itself, its message and details naming the same status', async () => {
    const { caller, outbound, inbound } = await outboundRan('boarded');
    const before = await Promise.all([outbound.id, inbound.id].map((id) => bookingState(app.db, id)));

    const response = await cancelBooking(app, caller, outbound.id);

    expect([response.status, response.body.errorCode, response.body.message, response.body.details]).toEqual([
      409,
      'BOOKING_NOT_CANCELLABLE',
      'A COMPLETED booking cannot be cancelled',
      { status: 'COMPLETED' },
    ]);
    expect(await Promise.all([outbound.id, inbound.id].map((id) => bookingState(app.db, id)))).toEqual(
      before,
    );
  });

  it('still refuses the whole round trip while the paid outbound has not travelled, and changes nothing', async () => {
    const caller = await mobileTraveller(app);
    const { outbound, inbound } = await bookRoundTrip(app, caller);
    await collectCash(app.db, outbound.id);
    const before = await Promise.all([outbound.id, inbound.id].map((id) => bookingState(app.db, id)));

    const response = await cancelBooking(app, caller, inbound.id);

    expect([response.status, response.body.errorCode, response.body.details], response.text).toEqual([
      409,
      'BOOKING_ALREADY_PAID',
      { booking_id: outbound.id },
    ]);
    expect(await Promise.all([outbound.id, inbound.id].map((id) => bookingState(app.db, id)))).toEqual(
      before,
    );
    expect(await orderStatus(inbound.id)).toBe('CONFIRMED');
  });
});
