import { describe, expect, it } from 'vitest';
import { CANCEL_NO_SHOW_PENDING_LINES } from '../../../db/migrations/Migration20261206070000_no_show_pending_lines.js';
import { financeSnapshot, openShift, paymentAction } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { advance, bookSeats, dispatch, operationsWorld, type Session } from '../../support/operations.js';
import { announceCashPayment, collectCash } from '../../support/payments.js';

/**
 * A traveller announces cash (a PENDING `transaction` line) and does not board. The ledger offers
 * only what the server does: `verify` only while the line's booking can still be collected
 * (domain/payment.ts), and COMPLETE, which makes the booking NO_SHOW, cancels the line as a trip
 * CANCEL does (the `trip_completed` move), so it is no longer outstanding.
 */
describe('the announced cash of a traveller who does not board', () => {
  const app = useTestApp();

  const ledger = async (session: Session) => {
    const response = await app.request('/dashboard/api/payments?limit=100', {
      headers: { Cookie: session.cookie },
    });
    expect(response.status, response.text).toBe(200);
    return response.body as { data: any[]; statistics: any };
  };
  const lineOf = async (session: Session, paymentId: string) =>
    (await ledger(session)).data.find((line) => line.id === paymentId);
  const travellerAction = (session: Session, tripId: string, action: string, ticketId: string) =>
    dispatch(app, session, tripId, {
      action,
      manifest_item_id: ticketId,
      manifest_item_type: 'JOURNEY_TICKET',
    });

  /** A boarding trip whose one traveller announced cash and is marked NO_SHOW. */
  const noShowWithAnnouncedCash = async ({ shiftOpen }: { shiftOpen: boolean }) => {
    const world = await operationsWorld(app, { seats: 8 });
    if (shiftOpen) await openShift(app, world.sessions.OWNER, 50_000);
    const missed = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const { paymentId } = await announceCashPayment(app.db, missed.bookingId, missed.caller.userId);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    const marked = await travellerAction(
      world.dispatcher,
      world.trip.tripId,
      'MARK_NO_SHOW',
      missed.ticketIds[0]!,
    );
    expect(marked.status, marked.text).toBe(200);
    return { world, missed, paymentId };
  };

  it('is cancelled by COMPLETE and no longer offered or counted as outstanding', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    await openShift(app, world.sessions.OWNER, 50_000);
    const travelled = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const missed = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    const { paymentId } = await announceCashPayment(app.db, missed.bookingId, missed.caller.userId);
    await advance(app, world.dispatcher, world.trip.tripId, 'START_BOARDING');
    expect(
      (await travellerAction(world.dispatcher, world.trip.tripId, 'CHECK_IN', travelled.ticketIds[0]!))
        .status,
    ).toBe(200);
    await collectCash(app.db, travelled.bookingId, { source: 'driver' });
    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE');
    const before = await ledger(world.sessions.ACCOUNTANT);
    expect(before.statistics.outstanding).toBeGreaterThan(0);

    const completed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'COMPLETE' });
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.data.effects).toMatchObject({
      completed_bookings: 1,
      no_shows: 1,
      cancelled_payments: 1,
    });

    const after = await ledger(world.sessions.ACCOUNTANT);
    const line = after.data.find((row) => row.id === paymentId);
    expect(line).toMatchObject({
      status: 'CANCELLED',
      allowed_actions: [],
      cancelled_by: world.dispatcher.staffUserId,
      booking: { id: missed.bookingId, status: 'NO_SHOW', payment_status: 'UNPAID' },
    });
    expect(line.cancelled_at).not.toBeNull();
    expect(after.statistics).toMatchObject({ outstanding: 0, collected: before.statistics.collected });
    expect(after.statistics.byStatus.CANCELLED).toEqual({ count: 1, amount: line.amount });
    // The statistics come from the daily rollup: it moved with the line.
    const rollup = await app.db.query(
      `select status, source, sum(count)::int as n, sum(amount)::int as amount from payment_ledger_daily
        where company_id = $1 group by 1, 2 having sum(count) > 0 order by 1, 2`,
      [world.companyId],
    );
    const rows = await app.db.query(
      `select status, source, count(*)::int as n, sum(amount)::int as amount from payment_operations
        where company_id = $1 group by 1, 2 order by 1, 2`,
      [world.companyId],
    );
    expect(rollup).toEqual(rows);

    // Verifying it now is refused and changes nothing.
    const snapshot = await financeSnapshot(app, world.companyId);
    const verify = await paymentAction(app, world.sessions.ACCOUNTANT, paymentId, 'verify');
    expect([verify.status, verify.body.errorCode]).toEqual([409, 'PAYMENT_TRANSITION_NOT_ALLOWED']);
    expect(await financeSnapshot(app, world.companyId)).toEqual(snapshot);
  });

  it('is not offered for verify while its traveller is marked no-show, and is again once restored', async () => {
    const { world, missed, paymentId } = await noShowWithAnnouncedCash({ shiftOpen: true });

    const line = await lineOf(world.sessions.ACCOUNTANT, paymentId);
    expect(line).toMatchObject({
      status: 'PENDING',
      booking: { status: 'NO_SHOW' },
      allowed_actions: ['cancel'],
    });
    const snapshot = await financeSnapshot(app, world.companyId);
    const verify = await paymentAction(app, world.sessions.ACCOUNTANT, paymentId, 'verify');
    expect([verify.status, verify.body.errorCode]).toEqual([409, 'BOOKING_NOT_PAYABLE']);
    expect(await financeSnapshot(app, world.companyId)).toEqual(snapshot);

    const restored = await travellerAction(
      world.dispatcher,
      world.trip.tripId,
      'RESTORE',
      missed.ticketIds[0]!,
    );
    expect(restored.status, restored.text).toBe(200);
    expect((await lineOf(world.sessions.ACCOUNTANT, paymentId)).allowed_actions).toEqual([
      'verify',
      'cancel',
    ]);
    const verified = await paymentAction(app, world.sessions.ACCOUNTANT, paymentId, 'verify');
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.data).toMatchObject({ status: 'COMPLETED', allowed_actions: ['refund'] });
  });

  it('left PENDING by a COMPLETE before this release, is cancelled by the migration; a no-show of a trip still boarding is not', async () => {
    const { world, paymentId } = await noShowWithAnnouncedCash({ shiftOpen: false });

    // Boarding: a RESTORE may still bring the traveller back, so the line stays as it is.
    await app.db.query(CANCEL_NO_SHOW_PENDING_LINES);
    expect(await lineOf(world.sessions.ACCOUNTANT, paymentId)).toMatchObject({ status: 'PENDING' });

    await advance(app, world.dispatcher, world.trip.tripId, 'DEPART', 'ARRIVE', 'COMPLETE');
    // As a COMPLETE before this release left it.
    await app.db.query(
      `update payment_operations set status = 'PENDING', cancelled_by = null, cancelled_at = null where id = $1`,
      [paymentId],
    );
    expect((await ledger(world.sessions.ACCOUNTANT)).statistics.outstanding).toBeGreaterThan(0);

    await app.db.query(CANCEL_NO_SHOW_PENDING_LINES);
    const after = await ledger(world.sessions.ACCOUNTANT);
    expect(after.data.find((row) => row.id === paymentId)).toMatchObject({
      status: 'CANCELLED',
      cancelled_by: null,
      allowed_actions: [],
    });
    expect(after.statistics.outstanding).toBe(0);
  });
});
