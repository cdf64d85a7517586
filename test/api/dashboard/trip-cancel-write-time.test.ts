import { describe, expect, it } from 'vitest';
import { readBookingFacts } from '../../../db/queries/documents.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { bookSeats, dispatch, operationsWorld } from '../../support/operations.js';
import { announceCashPayment } from '../../support/payments.js';

/**
 * A trip CANCEL dates what it ends when it ends it, once it holds the trip and its bookings, not
 * when its request began: a CANCEL that waited for a lock (here its dispatcher's membership row,
 * taken before the trip) while a traveller booked the trip ends that booking too, and none of the
 * traveller's reads shows it cancelled before it was made.
 */
describe('a trip CANCEL that waited while a traveller booked the trip', () => {
  const app = useTestApp();

  it("dates the booking's cancellation, its confirmation, its cash line and its tickets' revocation after the booking was made", async () => {
    const w = await operationsWorld(app, { seats: 12 });
    const blocker = await holdLock(
      app.db,
      `select 1 from company_memberships where staff_user_id = '${w.dispatcher.staffUserId}' for update`,
    );
    const cancel = dispatch(app, w.dispatcher, w.trip.tripId, { action: 'CANCEL', reason: 'Bus broke down' });
    await waitersOf(app.db, blocker.pid, 1);
    // Long enough that a stamp from the CANCEL's start is visibly earlier than anything made now.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const traveller = await bookSeats(app, w.trip, ['1']);
    const { paymentId } = await announceCashPayment(app.db, traveller.bookingId, traveller.caller.userId);
    await blocker.release();
    const cancelled = await cancel;
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data.effects).toMatchObject({ cancelled_bookings: 1, cancelled_payments: 1 });

    // The traveller's booking: CANCELLED, and last changed after it was created.
    const seen = await app.request(`/api/bookings/${traveller.bookingId}`, {
      headers: traveller.caller.headers,
    });
    expect(seen.status, seen.text).toBe(200);
    const booking = seen.body.data.booking ?? seen.body.data;
    expect(booking.status).toBe('CANCELLED');
    const createdAt = Date.parse(booking.created_at);
    expect(Date.parse(booking.updated_at), 'booking updated before it was created').toBeGreaterThanOrEqual(
      createdAt,
    );

    // The cancellation confirmation prints when it was cancelled: not before the booking.
    const facts = await readBookingFacts(app.db, traveller.bookingId);
    expect(Date.parse(facts!.cancelledAt), 'cancelled before the booking was made').toBeGreaterThanOrEqual(
      createdAt,
    );

    // Its announced cash line ended no earlier than it was announced; its ticket went on the driver
    // app's list no earlier than it was issued, and a poll from the booking's time finds it.
    const [line] = await app.db.query<{ created_at: string; cancelled_at: string }>(
      `select created_at, cancelled_at from payment_operations where id = $1`,
      [paymentId],
    );
    expect(Date.parse(line!.cancelled_at)).toBeGreaterThanOrEqual(Date.parse(line!.created_at));
    const list = await app.request(
      `/driver/api/revocations?since=${encodeURIComponent(new Date(createdAt).toISOString())}`,
      { token: w.driver.token },
    );
    expect(list.status, list.text).toBe(200);
    const revoked = list.body.data.revocations.filter((entry: { ticketId: string }) =>
      traveller.ticketIds.includes(entry.ticketId),
    );
    expect(revoked).toHaveLength(traveller.ticketIds.length);
    for (const entry of revoked) expect(Date.parse(entry.revokedAt)).toBeGreaterThanOrEqual(createdAt);

    // One instant for the whole cancel: the booking, its journey and its revocations.
    const [stamps] = await app.db.query<{ instants: number }>(
      `select count(distinct t)::int as instants from (
         select b.updated_at as t from bookings b where b.id = $1
         union all select j.closed_at from bookings b join journeys j on j.id = b.journey_id where b.id = $1
         union all select r.revoked_at from credential_revocations r where r.ticket_id = any($2::uuid[])
         union all select p.cancelled_at from payment_operations p where p.id = $3) s`,
      [traveller.bookingId, traveller.ticketIds, paymentId],
    );
    expect(stamps).toEqual({ instants: 1 });
  });
});
