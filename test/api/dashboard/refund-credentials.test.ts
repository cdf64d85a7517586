import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import {
  advance,
  bookSeats,
  operationsWorldWithShift,
  type BookedTraveller,
  type OperationsWorld,
  travellerAction,
} from '../../support/operations.js';
import { refundInFull } from '../../support/finance.js';
import { collectCash } from '../../support/payments.js';

/**
 * A full refund that keeps its booking (a compensation: the bus has left, or the traveller was
 * checked in or marked a no-show) still gives the money back, so the booking's credential no longer
 * boards: the driver app's verify answers REVOKED, the revocation list names it, and the traveller's
 * reads show no QR code. The ticket keeps its status.
 */
describe('a compensation refund and its boarding credential', () => {
  const app = useTestApp();

  const collected = async (traveller: BookedTraveller) =>
    (await collectCash(app.db, traveller.bookingId, { source: 'office' })).paymentId;

  /** The driver app's verify of the traveller's credential at the trip's door. */
  const verify = async (world: OperationsWorld, traveller: BookedTraveller) => {
    const credential = traveller.credentials[0]!;
    const response = await app.request('/driver/api/verify', {
      method: 'POST',
      token: world.driver.token,
      json: { payload: credential.payload, signature: credential.signature, tripId: world.trip.tripId },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.data;
  };

  /**
   * Which of these travellers' tickets the revocation list of the world's driver names since `since`
   * (other test files may revoke credentials of their own meanwhile).
   */
  const listedOf = async (world: OperationsWorld, since: string, travellers: BookedTraveller[]) => {
    const list = await app.request(`/driver/api/revocations?since=${encodeURIComponent(since)}`, {
      token: world.driver.token,
    });
    expect(list.status, list.text).toBe(200);
    const listed = new Set(list.body.data.revocations.map((entry: { ticketId: string }) => entry.ticketId));
    return travellers.flatMap((traveller) => traveller.ticketIds.filter((id) => listed.has(id)));
  };

  /** What the traveller's own booking read shows of its ticket's credential (the QR code). */
  const shownTicket = async (traveller: BookedTraveller) => {
    const own = await app.request(`/api/bookings/${traveller.bookingId}`, {
      headers: traveller.caller.headers,
    });
    expect(own.status, own.text).toBe(200);
    const [ticket] = own.body.data.tickets;
    return {
      boarding_authorized: own.body.data.boarding_authorized,
      ticket: {
        status: ticket.status,
        boarding_authorized: ticket.boarding_authorized,
        signed: ticket.signature !== null,
      },
    };
  };

  /** The stored ticket and its revocation entry. */
  const storedTicket = async (traveller: BookedTraveller) =>
    app.db.query<{ status: string; reason: string | null }>(
      `select k.status, r.reason from journey_tickets k left join credential_revocations r on r.ticket_id = k.id
        where k.id = $1`,
      [traveller.ticketIds[0]],
    );

  it('revokes a refunded no-show’s credential while the bus boards: verify REVOKED, listed, no QR; the ticket stays VALID', async () => {
    const world = await operationsWorldWithShift(app);
    const refunded = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const kept = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    const paymentId = await collected(refunded);
    await collected(kept);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    for (const traveller of [refunded, kept]) {
      const noShow = await travellerAction(
        app,
        world.dispatcher,
        world.trip.tripId,
        'MARK_NO_SHOW',
        traveller.ticketIds[0]!,
      );
      expect(noShow.status, noShow.text).toBe(200);
    }
    const shownQr = {
      boarding_authorized: true,
      ticket: { status: 'VALID', boarding_authorized: true, signed: true },
    };
    expect(await shownTicket(refunded)).toEqual(shownQr);
    const since = new Date().toISOString();

    const refund = await refundInFull(app, world.sessions.ACCOUNTANT, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: 'NO_SHOW', payment_status: 'REFUNDED' });

    expect(await verify(world, refunded)).toMatchObject({ valid: false, reason: 'REVOKED' });
    expect(await listedOf(world, since, [refunded, kept])).toEqual(refunded.ticketIds);
    expect(await shownTicket(refunded)).toEqual({
      boarding_authorized: false,
      ticket: { status: 'VALID', boarding_authorized: false, signed: false },
    });
    expect(await storedTicket(refunded)).toEqual([{ status: 'VALID', reason: 'BOOKING_COMPENSATED' }]);
    // The other no-show, not refunded, keeps its credential and its QR code.
    expect(await verify(world, kept)).toMatchObject({ valid: true });
    expect(await shownTicket(kept)).toEqual(shownQr);
  });

  it('revokes the credential of a CONFIRMED booking refunded after its bus left; the ticket stays VALID', async () => {
    const world = await operationsWorldWithShift(app);
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const paymentId = await collected(traveller);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING', 'DEPART');
    const since = new Date().toISOString();

    const refund = await refundInFull(app, world.sessions.ACCOUNTANT, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: 'CONFIRMED', payment_status: 'REFUNDED' });

    expect(await verify(world, traveller)).toMatchObject({ valid: false, reason: 'REVOKED' });
    expect(await listedOf(world, since, [traveller])).toEqual(traveller.ticketIds);
    expect(await shownTicket(traveller)).toEqual({
      boarding_authorized: false,
      ticket: { status: 'VALID', boarding_authorized: false, signed: false },
    });
    expect(await storedTicket(traveller)).toEqual([{ status: 'VALID', reason: 'BOOKING_COMPENSATED' }]);
  });

  it('a CHECKED_IN traveller refunded keeps the ticket USED, with nothing to revoke', async () => {
    const world = await operationsWorldWithShift(app);
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const paymentId = await collected(traveller);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const checkIn = await travellerAction(
      app,
      world.dispatcher,
      world.trip.tripId,
      'CHECK_IN',
      traveller.ticketIds[0]!,
    );
    expect(checkIn.status, checkIn.text).toBe(200);
    const since = new Date().toISOString();

    const refund = await refundInFull(app, world.sessions.ACCOUNTANT, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: 'CHECKED_IN', payment_status: 'REFUNDED' });

    expect(await storedTicket(traveller)).toEqual([{ status: 'USED', reason: null }]);
    expect(await listedOf(world, since, [traveller])).toEqual([]);
    expect(await verify(world, traveller)).toMatchObject({ valid: false, reason: 'TICKET_NOT_VALID' });
  });
});
