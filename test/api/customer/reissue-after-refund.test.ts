import { describe, expect, it } from 'vitest';
import { refundInFull } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { collectCash } from '../../support/payments.js';
import {
  advance,
  bookSeats,
  operationsWorldWithShift,
  type BookedTraveller,
  travellerAction,
} from '../../support/operations.js';

/**
 * README (Tickets, re-issue; Payments, refund): a refund that keeps its booking (a compensation of a
 * no-show) revokes its tickets' credentials (BOOKING_COMPENSATED), so that traveller no longer boards. A
 * re-issue (POST /tickets) of such a ticket is refused with 409 TICKET_NOT_VALID and writes nothing:
 * no new ticket or credential, and the traveller's reads still show no QR code. A live ticket on the
 * same boarding trip still re-issues.
 */
describe('re-issue of a ticket a compensation refund revoked', () => {
  const app = useTestApp();

  const reissue = (traveller: BookedTraveller) =>
    app.request('/api/tickets', {
      method: 'POST',
      headers: traveller.caller.headers,
      json: { ticket_id: traveller.ticketIds[0], reason: 'LOST_DEVICE' },
    });

  /** The traveller's journey tickets and their credentials' revocations, to prove a refusal wrote nothing. */
  const journeyState = (ticketId: string) =>
    app.db.query<{ id: string; status: string; reason: string | null }>(
      `select k.id, k.status, r.reason from journey_tickets k
         left join credential_revocations r on r.ticket_id = k.id
        where k.journey_id = (select journey_id from journey_tickets where id = $1)
        order by k.created_at, k.id`,
      [ticketId],
    );

  it('refuses to re-issue a refunded no-show’s revoked ticket, writing nothing; a live ticket still re-issues', async () => {
    const world = await operationsWorldWithShift(app);
    const [noShowSeat, liveSeat] = world.trip.seatNumbers;
    const refunded = await bookSeats(app, world.trip, [noShowSeat!]);
    const live = await bookSeats(app, world.trip, [liveSeat!]);
    const { paymentId } = await collectCash(app.db, refunded.bookingId, { source: 'office' });
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const noShow = await travellerAction(
      app,
      world.dispatcher,
      world.trip.tripId,
      'MARK_NO_SHOW',
      refunded.ticketIds[0]!,
    );
    expect(noShow.status, noShow.text).toBe(200);
    const refund = await refundInFull(app, world.sessions.ACCOUNTANT, paymentId);
    expect(refund.body.data.booking).toMatchObject({ status: 'NO_SHOW', payment_status: 'REFUNDED' });
    const before = await journeyState(refunded.ticketIds[0]!);
    expect(before).toEqual([{ id: refunded.ticketIds[0], status: 'VALID', reason: 'BOOKING_COMPENSATED' }]);

    const refused = await reissue(refunded);
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'TICKET_NOT_VALID']);
    expect(await journeyState(refunded.ticketIds[0]!)).toEqual(before);
    const own = await app.request(`/api/bookings/${refunded.bookingId}`, {
      headers: refunded.caller.headers,
    });
    expect(own.body.data.boarding_authorized).toBe(false);
    const ticket = await app.request(`/api/tickets/${refunded.ticketIds[0]}`, {
      headers: refunded.caller.headers,
    });
    expect(ticket.body.data.ticket).toMatchObject({ boarding_authorized: false, qr_text: null });

    const replaced = await reissue(live);
    expect(replaced.status, replaced.text).toBe(201);
    expect(replaced.body.data.ticket).toMatchObject({ status: 'VALID', boarding_authorized: true });
    const verify = await app.request('/driver/api/verify', {
      method: 'POST',
      token: world.driver.token,
      json: { ...JSON.parse(replaced.body.data.ticket.qr_text), tripId: world.trip.tripId },
    });
    expect(verify.body.data.valid, verify.text).toBe(true);
    expect(await journeyState(live.ticketIds[0]!)).toEqual([
      { id: live.ticketIds[0], status: 'REISSUED', reason: 'REISSUED:LOST_DEVICE' },
      { id: replaced.body.data.ticket.id, status: 'VALID', reason: null },
    ]);
  });
});
