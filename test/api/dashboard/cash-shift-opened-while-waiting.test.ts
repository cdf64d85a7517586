import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import {
  collectedPayment,
  financeWorld,
  openShift,
  paymentAction,
  pendingPayment,
  type FinanceWorld,
} from '../../support/finance.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';

/**
 * Money that goes into (or out of) a shift is dated when it is written, after the shift's lock, not
 * when its request began: a verify, an office payment or a refund that waited (here for its
 * booking's row, as behind any other write of the booking) while the owner opened the till is
 * counted in that shift, and the shift's detail (and its CSV) never shows it before the shift
 * opened. The close side is test/api/dashboard/payments-concurrency.test.ts.
 */
describe('money taken while the cash shift was being opened', () => {
  const app = useTestApp();

  /** Starts `request` with the booking's row held, opens the shift meanwhile, then lets the request run. */
  async function openShiftWhileWaiting(
    world: FinanceWorld,
    bookingId: string,
    request: () => Promise<TestResponse>,
    openingBalance = 0,
  ) {
    const blocker = await holdLock(app.db, `select id from bookings where id = '${bookingId}' for update`);
    const pending = request();
    await waitersOf(app.db, blocker.pid, 1);
    // Long enough that a stamp from the request's start is visibly earlier than the shift's opening.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const shift = await openShift(app, world.staff.OWNER, openingBalance);
    await blocker.release();
    const answer = await pending;
    const detail = await app.request(`/dashboard/api/payments/cash-shifts/${shift.id}`, {
      headers: { Cookie: world.staff.OWNER.cookie },
    });
    expect(detail.status, detail.text).toBe(200);
    return { answer, openedAt: Date.parse(detail.body.data.shift.opened_at), detail: detail.body.data };
  }

  it('a verify that waited is counted in the shift, dated no earlier than the shift opened', async () => {
    const world = await financeWorld(app);
    const payment = await pendingPayment(app, world);
    const { answer, openedAt, detail } = await openShiftWhileWaiting(world, payment.bookingId, () =>
      paymentAction(app, world.staff.ACCOUNTANT, payment.paymentId, 'verify'),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(detail.collections.map((c: { id: string }) => c.id)).toEqual([payment.paymentId]);
    expect(
      Date.parse(detail.collections[0].collected_at),
      'collection dated before the shift it is counted in opened',
    ).toBeGreaterThanOrEqual(openedAt);
  });

  it('an office payment that waited is counted in the shift, dated no earlier than the shift opened', async () => {
    const world = await financeWorld(app);
    const payment = await pendingPayment(app, world);
    const { answer, openedAt, detail } = await openShiftWhileWaiting(world, payment.bookingId, () =>
      app.request('/dashboard/api/payments', {
        method: 'POST',
        headers: world.staff.ACCOUNTANT.writeHeaders,
        json: { booking_id: payment.bookingId },
      }),
    );
    expect(answer.status, answer.text).toBe(201);
    expect(detail.collections.map((c: { id: string }) => c.id)).toEqual([answer.body.data.id]);
    expect(
      Date.parse(detail.collections[0].collected_at),
      'collection dated before the shift it is counted in opened',
    ).toBeGreaterThanOrEqual(openedAt);
  });

  it('a refund that waited is paid out of the shift, dated no earlier than the shift opened', async () => {
    const world = await financeWorld(app);
    const payment = await collectedPayment(app, world);
    const { answer, openedAt, detail } = await openShiftWhileWaiting(
      world,
      payment.bookingId,
      () => paymentAction(app, world.staff.ACCOUNTANT, payment.paymentId, 'refund'),
      50_000,
    );
    expect(answer.status, answer.text).toBe(200);
    const refunds = detail.movements.filter((m: { kind: string }) => m.kind === 'REFUND');
    expect(refunds).toMatchObject([{ payment_id: payment.paymentId, direction: 'OUT' }]);
    expect(
      Date.parse(refunds[0].recorded_at),
      'refund dated before the shift it is paid from opened',
    ).toBeGreaterThanOrEqual(openedAt);
    const [line] = await app.db.query<{ refunded_at: string }>(
      `select refunded_at from payment_operations where id = $1`,
      [payment.paymentId],
    );
    expect(Date.parse(line!.refunded_at)).toBe(Date.parse(refunds[0].recorded_at));
  });
});
