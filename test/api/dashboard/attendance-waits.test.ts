import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import { payAtOffice, paymentAction } from '../../support/finance.js';
import { bookSeats, dispatch, operationsWorld, operationsWorldWithShift } from '../../support/operations.js';

/**
 * A traveller action of the operations room that waits for the traveller's booking row (another
 * write of the booking holds it: an office payment, a refund, a traveller's change) is judged on
 * the ticket and the booking as they stand once the booking is ours, not as they were when the
 * action began to wait.
 */
describe('a traveller action that waited for its booking', () => {
  const app = useTestApp();

  it('a RESTORE of a ticket re-issued while it waited is MANIFEST_ITEM_NOT_FOUND, and the traveller stays a no-show', async () => {
    const w = await operationsWorld(app, { seats: 8 });
    const traveller = await bookSeats(app, w.trip, [w.trip.seatNumbers[0]!]);
    const [oldTicket] = traveller.ticketIds as [string];
    const item = { manifest_item_id: oldTicket, manifest_item_type: 'JOURNEY_TICKET' };
    expect((await dispatch(app, w.dispatcher, w.trip.tripId, { action: 'START_BOARDING' })).status).toBe(200);
    const noShow = await dispatch(app, w.dispatcher, w.trip.tripId, {
      action: 'MARK_NO_SHOW',
      reason: 'Did not show up',
      ...item,
    });
    expect(noShow.status, noShow.text).toBe(200);

    // Another write holds the booking: the dispatcher's RESTORE of the ticket on the manifest waits.
    const held = await holdLock(
      app.db,
      `select 1 from bookings where id = '${traveller.bookingId}' for update`,
    );
    let reissued: TestResponse, restored: TestResponse;
    try {
      const restore = dispatch(app, w.dispatcher, w.trip.tripId, { action: 'RESTORE', ...item });
      await waitersOf(app.db, held.pid);
      // The traveller re-issues the ticket meanwhile (the journey and the ticket, not the booking).
      reissued = await app.request('/api/tickets', {
        method: 'POST',
        headers: traveller.caller.headers,
        json: { ticket_id: oldTicket, reason: 'LOST_DEVICE' },
      });
      await held.release();
      restored = await restore;
    } finally {
      await held.release();
    }

    expect(reissued.status, reissued.text).toBe(201);
    // The old ticket is history now: the RESTORE names no traveller of the trip, as it would have after.
    expect([restored.status, restored.body.errorCode], restored.text).toEqual([
      404,
      'MANIFEST_ITEM_NOT_FOUND',
    ]);
    const tickets = await app.db.query<{ id: string; status: string; attendance: string }>(
      `select id, status, attendance from journey_tickets where journey_id =
         (select journey_id from journey_tickets where id = $1) order by created_at`,
      [oldTicket],
    );
    expect(tickets).toEqual([
      { id: oldTicket, status: 'REISSUED', attendance: 'NO_SHOW' },
      { id: reissued.body.data.ticket.id, status: 'VALID', attendance: 'NO_SHOW' },
    ]);
    const [booking] = await app.db.query(`select status from bookings where id = $1`, [traveller.bookingId]);
    expect(booking).toEqual({ status: 'NO_SHOW' });
  });

  it('a RESTORE of a no-show whose refund committed while it waited is TRAVELLER_REFUNDED, and the traveller stays a no-show', async () => {
    const w = await operationsWorldWithShift(app);
    const traveller = await bookSeats(app, w.trip, [w.trip.seatNumbers[0]!]);
    const paymentId = await payAtOffice(app, w.sessions.ACCOUNTANT, traveller.bookingId);
    const item = { manifest_item_id: traveller.ticketIds[0], manifest_item_type: 'JOURNEY_TICKET' };
    expect((await dispatch(app, w.dispatcher, w.trip.tripId, { action: 'START_BOARDING' })).status).toBe(200);
    const noShow = await dispatch(app, w.dispatcher, w.trip.tripId, { action: 'MARK_NO_SHOW', ...item });
    expect(noShow.status, noShow.text).toBe(200);

    // The refund holds the booking while the test holds the till; the dispatcher's RESTORE waits for it.
    const till = await holdLock(
      app.db,
      `select id from cash_shifts where company_id = '${w.companyId}' and status = 'OPEN' for share`,
    );
    let refunded: TestResponse, restored: TestResponse;
    try {
      const refund = paymentAction(app, w.sessions.ACCOUNTANT, paymentId, 'refund');
      const [refundPid] = await waitersOf(app.db, till.pid);
      const restore = dispatch(app, w.dispatcher, w.trip.tripId, { action: 'RESTORE', ...item });
      await waitersOf(app.db, refundPid!);
      await till.release();
      [refunded, restored] = await Promise.all([refund, restore]);
    } finally {
      await till.release();
    }

    expect(refunded.status, refunded.text).toBe(200);
    expect([restored.status, restored.body.errorCode], restored.text).toEqual([409, 'TRAVELLER_REFUNDED']);
    const [booking] = await app.db.query(
      `select b.status, b.payment_status, k.status as ticket, k.attendance
         from bookings b join journey_tickets k on k.journey_id = b.journey_id where b.id = $1`,
      [traveller.bookingId],
    );
    expect(booking).toEqual({
      status: 'NO_SHOW',
      payment_status: 'REFUNDED',
      ticket: 'VALID',
      attendance: 'NO_SHOW',
    });
  });
});
