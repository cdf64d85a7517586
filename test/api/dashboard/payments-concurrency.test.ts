import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import {
  confirmedBooking,
  financeWorld,
  openShift,
  paymentAction,
  pendingPayment,
  shiftCommand,
  type FinanceWorld,
} from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';

/** Money and tills under contention: row locks and the workflow id decide, one winner each time. */
describe('payments and cash shifts under concurrent requests', () => {
  const app = useTestApp();

  const state = async (paymentId: string) =>
    (
      await app.db.query<{ status: string; payment_status: string; cash_shift_id: string | null }>(
        `select p.status, b.payment_status, p.cash_shift_id from payment_operations p join bookings b on b.id = p.booking_id
          where p.id = $1`,
        [paymentId],
      )
    )[0]!;

  /** POST /payments: the office takes the booking's cash into the open shift. */
  const recordCash = (world: FinanceWorld, bookingId: string) =>
    app.request('/dashboard/api/payments', {
      method: 'POST',
      headers: world.staff.ACCOUNTANT.writeHeaders,
      json: { booking_id: bookingId },
    });

  it('two concurrent verifies of one operation: one wins, the other is 409', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 0);
    for (let round = 0; round < 3; round += 1) {
      const payment = await pendingPayment(app, world);
      const answers = await Promise.all([
        paymentAction(app, world.staff.ACCOUNTANT, payment.paymentId, 'verify'),
        paymentAction(app, world.staff.ADMIN, payment.paymentId, 'verify'),
        paymentAction(app, world.staff.OWNER, payment.paymentId, 'verify'),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
      expect(await state(payment.paymentId)).toEqual({
        status: 'COMPLETED',
        payment_status: 'PAID',
        cash_shift_id: shift.id,
      });
    }
    const detail = await app.request(`/dashboard/api/payments/cash-shifts/${shift.id}`, {
      headers: { Cookie: world.staff.OWNER.cookie },
    });
    expect(detail.body.data.shift.collections).toEqual({ count: 3, amount: 30_000 });
    const audits = await app.db.query(
      `select count(*)::int as n from audit_log where action = 'payments.verify' and details->>'cashShiftId' = $1`,
      [shift.id],
    );
    expect(audits).toEqual([{ n: 3 }]);
  });

  it('verify racing cancel: exactly one wins and the booking payment fact matches the winner', async () => {
    const world = await financeWorld(app);
    await openShift(app, world.staff.OWNER, 0);
    for (let round = 0; round < 6; round += 1) {
      const payment = await pendingPayment(app, world);
      const [verify, cancel] = await Promise.all([
        paymentAction(app, world.staff.ACCOUNTANT, payment.paymentId, 'verify'),
        paymentAction(app, world.staff.OWNER, payment.paymentId, 'cancel'),
      ]);
      expect([verify.status, cancel.status].sort()).toEqual([200, 409]);
      const after = await state(payment.paymentId);
      if (verify.status === 200) {
        expect(after).toMatchObject({ status: 'COMPLETED', payment_status: 'PAID' });
        expect(cancel.body.errorCode).toBe('PAYMENT_TRANSITION_NOT_ALLOWED');
      } else {
        expect(after).toEqual({ status: 'CANCELLED', payment_status: 'UNPAID', cash_shift_id: null });
      }
    }
  });

  it('two concurrent refunds pay back once', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 0);
    const payment = await pendingPayment(app, world);
    expect((await paymentAction(app, world.staff.OWNER, payment.paymentId, 'verify')).status).toBe(200);
    const answers = await Promise.all([
      paymentAction(app, world.staff.OWNER, payment.paymentId, 'refund'),
      paymentAction(app, world.staff.ADMIN, payment.paymentId, 'refund'),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const movements = await app.db.query(`select amount::int from cash_shift_movements where shift_id = $1`, [
      shift.id,
    ]);
    expect(movements).toEqual([{ amount: 10_000 }]);
  });

  it('refunds of two payments at once never take more cash than the till holds', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 0);
    const payments = [await pendingPayment(app, world), await pendingPayment(app, world)];
    for (const payment of payments) {
      expect((await paymentAction(app, world.staff.OWNER, payment.paymentId, 'verify')).status).toBe(200);
    }
    const takeOut = await shiftCommand(app, world.staff.OWNER, {
      action: 'ADJUST',
      direction: 'OUT',
      amount: 5_000,
      reason: 'fuel for bus 12',
    });
    expect(takeOut.body.data, takeOut.text).toMatchObject({ expected_amount: 15_000 });

    // Both refunds (10,000 each) are let in together, as two staff members pressing at once would be.
    const blocker = await holdLock(app.db, `select id from cash_shifts where id = '${shift.id}' for update`);
    const refunds = Promise.all([
      paymentAction(app, world.staff.OWNER, payments[0]!.paymentId, 'refund'),
      paymentAction(app, world.staff.ADMIN, payments[1]!.paymentId, 'refund'),
    ]);
    await waitersOf(app.db, blocker.pid, 2);
    await blocker.release();
    const answers = await refunds;

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const refused = answers.find((answer) => answer.status === 409)!;
    expect(refused.body.errorCode).toBe('CASH_SHIFT_INSUFFICIENT_CASH');
    expect(refused.body.details).toEqual({ expected: 5_000, amount: 10_000 });
    const detail = await app.request(`/dashboard/api/payments/cash-shifts/${shift.id}`, {
      headers: { Cookie: world.staff.OWNER.cookie },
    });
    expect(detail.body.data.shift.expected_amount).toBe(5_000);
    const states = await Promise.all(payments.map((payment) => state(payment.paymentId)));
    expect(states.map((paid) => paid.status).sort()).toEqual(['COMPLETED', 'REFUNDED']);
  });

  it('two concurrent OPENs make one shift; the other is 409 CASH_SHIFT_ALREADY_OPEN', async () => {
    const world = await financeWorld(app);
    const answers = await Promise.all([
      shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 1_000 }),
      shiftCommand(app, world.staff.ADMIN, { action: 'OPEN', opening_balance: 2_000 }),
      shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 3_000 }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.errorCode)).toEqual([
      'CASH_SHIFT_ALREADY_OPEN',
      'CASH_SHIFT_ALREADY_OPEN',
    ]);
    const shifts = await app.db.query(`select status from cash_shifts where company_id = $1`, [
      world.companyId,
    ]);
    expect(shifts).toEqual([{ status: 'OPEN' }]);
  });

  it('a verify racing the CLOSE is either in the closed shift or refused: expected never misses it', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 0);
    const payment = await pendingPayment(app, world);
    const [verify, close] = await Promise.all([
      paymentAction(app, world.staff.ACCOUNTANT, payment.paymentId, 'verify'),
      shiftCommand(app, world.staff.OWNER, { action: 'CLOSE', declared_amount: 10_000 }),
    ]);
    expect(close.status, close.text).toBe(200);
    const [closed] = await app.db.query<{ expected_amount: number; difference: number }>(
      `select expected_amount::int, difference::int from cash_shifts where id = $1`,
      [shift.id],
    );
    if (verify.status === 200) {
      expect(closed).toEqual({ expected_amount: 10_000, difference: 0 });
    } else {
      expect(verify.body.errorCode).toBe('CASH_SHIFT_NOT_OPEN');
      expect(closed).toEqual({ expected_amount: 0, difference: 10_000 });
      expect((await state(payment.paymentId)).status).toBe('PENDING');
    }
  });

  /**
   * An office payment (POST /payments) and a refund of another payment of the same day: both write
   * the ledger's daily statistics row (its trigger), and the refund holds the shift FOR UPDATE when it
   * does. The office payment takes the booking and the shift before it writes its operation, so the
   * two take turns instead of deadlocking (before: the office payment was ended, 500). The test holds
   * the shift a moment so the refund arrives first, then lets both go.
   */
  it('an office payment racing a refund of the same day: both go through, neither answers 500', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 50_000);
    const first = await recordCash(world, (await confirmedBooking(app, world)).bookingId);
    expect(first.status, first.text).toBe(201);
    const unpaid = await confirmedBooking(app, world);

    const blocker = await holdLock(app.db, `select id from cash_shifts where id = '${shift.id}' for update`);
    const refund = paymentAction(app, world.staff.ADMIN, first.body.data.id as string, 'refund');
    await waitersOf(app.db, blocker.pid, 1);
    const office = recordCash(world, unpaid.bookingId);
    await waitersOf(app.db, blocker.pid, 2);
    await blocker.release();
    const [refunded, recorded] = await Promise.all([refund, office]);

    expect(
      { refund: refunded.status, office: recorded.status },
      `${refunded.text}\n${recorded.text}`,
    ).toEqual({
      refund: 200,
      office: 201,
    });
    expect(await state(recorded.body.data.id as string)).toEqual({
      status: 'COMPLETED',
      payment_status: 'PAID',
      cash_shift_id: shift.id,
    });
  });

  /**
   * A verify that takes the till while a CLOSE waits for it goes into the shift; the shift's closed_at
   * is read once its lock is held, so it is never earlier than a collection it contains (it was the
   * CLOSE transaction's start: a collection committed while the CLOSE waited showed after it).
   */
  it('a collection the CLOSE waited for is dated no later than the shift closed', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 0);
    const payment = await pendingPayment(app, world);

    const blocker = await holdLock(app.db, `select id from cash_shifts where id = '${shift.id}' for share`);
    const close = shiftCommand(app, world.staff.OWNER, { action: 'CLOSE', declared_amount: 10_000 });
    await waitersOf(app.db, blocker.pid, 1);
    // Shares the till with the held lock, ahead of the waiting CLOSE.
    const verified = await paymentAction(app, world.staff.ACCOUNTANT, payment.paymentId, 'verify');
    expect(verified.status, verified.text).toBe(200);
    await blocker.release();
    const closed = await close;
    expect(closed.status, closed.text).toBe(200);

    const [row] = await app.db.query<{ expected: number; cash_shift_id: string; late: boolean }>(
      `select s.expected_amount::int as expected, p.cash_shift_id, p.collected_at > s.closed_at as late
         from payment_operations p join cash_shifts s on s.id = $2 where p.id = $1`,
      [payment.paymentId, shift.id],
    );
    expect(row).toEqual({ expected: 10_000, cash_shift_id: shift.id, late: false });
  });

  it('office payments and refunds pressed at once, twelve rounds: none answers 500', async () => {
    const world = await financeWorld(app);
    await openShift(app, world.staff.OWNER, 1_000_000);
    const statuses: number[] = [];
    for (let round = 0; round < 12; round += 1) {
      const first = await recordCash(world, (await confirmedBooking(app, world)).bookingId);
      expect(first.status, first.text).toBe(201);
      const unpaid = await confirmedBooking(app, world);
      const answers = await Promise.all([
        paymentAction(app, world.staff.ADMIN, first.body.data.id as string, 'refund'),
        recordCash(world, unpaid.bookingId),
      ]);
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses).toEqual(Array.from({ length: 12 }, () => [200, 201]).flat());
  });
});
