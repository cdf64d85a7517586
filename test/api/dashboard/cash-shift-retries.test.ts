import { describe, expect, it } from 'vitest';
import {
  financeSnapshot,
  financeWorld,
  openShift,
  shiftCommand,
  type Session,
} from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';

const SHIFTS = '/dashboard/api/payments/cash-shifts';

/**
 * A cash-shift command sent again after its answer was lost (README "Company finance", OpenAPI
 * commandCashShift): a CLOSE that repeats a recorded close is answered with that close, nothing
 * written, whether it names its shift (also once the next shift opened) or not (while no shift is
 * open); an ADJUST sent again under its Idempotency-Key records its movement once.
 */
describe('cash shifts: a command sent again after its answer was lost', () => {
  const app = useTestApp();

  const movementsOf = async (shiftId: string) =>
    app.db.query<{ id: string; amount: number }>(
      `select id, amount::float8 as amount from cash_shift_movements where shift_id = $1`,
      [shiftId],
    );

  const keyedAdjust = (session: Session, key: string, json: Record<string, unknown>) =>
    app.request(SHIFTS, {
      method: 'POST',
      headers: { ...session.writeHeaders, 'Idempotency-Key': key },
      json: { action: 'ADJUST', ...json },
    });

  it('a CLOSE naming its shift, sent again after the next shift opened, is answered with that close; another count is still refused', async () => {
    const world = await financeWorld(app);
    const first = await openShift(app, world.staff.OWNER, 1_000);
    const close = { action: 'CLOSE', declared_amount: 1_000, note: 'counted', shift_id: first.id };
    const closed = await shiftCommand(app, world.staff.OWNER, close);
    expect(closed.status, closed.text).toBe(200);
    const second = await openShift(app, world.staff.ADMIN, 3_000);
    const before = await financeSnapshot(app, world.companyId);

    const repeat = await shiftCommand(app, world.staff.OWNER, close);
    expect(
      [repeat.status, repeat.body.data?.id, repeat.body.data?.status, repeat.body.data?.declared_amount],
      repeat.text,
    ).toEqual([200, first.id, 'CLOSED', 1_000]);
    const recount = await shiftCommand(app, world.staff.OWNER, { ...close, declared_amount: 900 });
    expect([recount.status, recount.body.errorCode, recount.body.details], recount.text).toEqual([
      409,
      'CASH_SHIFT_CHANGED',
      { shift_id: first.id, current_shift_id: second.id },
    ]);
    const byAnother = await shiftCommand(app, world.staff.ADMIN, close);
    expect([byAnother.status, byAnother.body.errorCode], byAnother.text).toEqual([409, 'CASH_SHIFT_CHANGED']);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
  });

  it('a CLOSE without shift_id sent again is answered with that close while no shift is open; once one opens it closes that one', async () => {
    const world = await financeWorld(app);
    const first = await openShift(app, world.staff.OWNER, 1_000);
    const close = { action: 'CLOSE', declared_amount: 1_000, note: 'counted' };
    const closed = await shiftCommand(app, world.staff.OWNER, close);
    expect(closed.status, closed.text).toBe(200);
    const before = await financeSnapshot(app, world.companyId);

    const repeat = await shiftCommand(app, world.staff.OWNER, close);
    expect([repeat.status, repeat.body.data?.id, repeat.body.data?.closed_at], repeat.text).toEqual([
      200,
      first.id,
      closed.body.data.closed_at,
    ]);
    const recount = await shiftCommand(app, world.staff.OWNER, { ...close, declared_amount: 900 });
    expect([recount.status, recount.body.errorCode], recount.text).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    const renoted = await shiftCommand(app, world.staff.OWNER, { ...close, note: 'recounted' });
    expect([renoted.status, renoted.body.errorCode], renoted.text).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);

    // The next shift open, the same CLOSE is that shift's close, not a repeat of the last one.
    const second = await openShift(app, world.staff.ADMIN, 1_000);
    const next = await shiftCommand(app, world.staff.OWNER, close);
    expect([next.status, next.body.data?.id, next.body.data?.status], next.text).toEqual([
      200,
      second.id,
      'CLOSED',
    ]);
  });

  it('an ADJUST sent again under its Idempotency-Key records its movement once, also at the same moment and after its shift closed', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 10_000);
    const out = { direction: 'OUT', amount: 2_000, reason: 'bank deposit', shift_id: shift.id };
    const first = await keyedAdjust(world.staff.OWNER, 'deposit-0001', out);
    expect([first.status, first.body.data?.expected_amount], first.text).toEqual([200, 8_000]);
    const again = await keyedAdjust(world.staff.OWNER, 'deposit-0001', out);
    expect([again.status, again.body.data?.id, again.body.data?.expected_amount], again.text).toEqual([
      200,
      shift.id,
      8_000,
    ]);

    const inBody = { direction: 'IN', amount: 500, reason: 'coins from the safe' };
    const together = await Promise.all(
      [1, 2].map(() => keyedAdjust(world.staff.OWNER, 'coins-0001', inBody)),
    );
    expect(together.map((answer) => answer.status)).toEqual([200, 200]);
    expect((await movementsOf(shift.id)).map((row) => row.amount).sort((a, b) => a - b)).toEqual([
      500, 2_000,
    ]);

    const closed = await shiftCommand(app, world.staff.OWNER, { action: 'CLOSE', declared_amount: 8_500 });
    expect(closed.status, closed.text).toBe(200);
    const next = await openShift(app, world.staff.ADMIN, 0);
    const late = await keyedAdjust(world.staff.OWNER, 'deposit-0001', out);
    expect([late.status, late.body.data?.id, late.body.data?.status], late.text).toEqual([
      200,
      shift.id,
      'CLOSED',
    ]);
    expect(await movementsOf(shift.id)).toHaveLength(2);
    expect(await movementsOf(next.id)).toEqual([]);
  });

  it('an ADJUST refused under its key records nothing there: sent again once the till holds enough, it is recorded', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 10_000);
    const out = { direction: 'OUT', amount: 20_000, reason: 'bank deposit', shift_id: shift.id };
    const before = await financeSnapshot(app, world.companyId);
    const refused = await keyedAdjust(world.staff.OWNER, 'deposit-0003', out);
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([
      409,
      'CASH_SHIFT_INSUFFICIENT_CASH',
    ]);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);

    const topUp = { action: 'ADJUST', direction: 'IN', amount: 15_000, reason: 'from the safe' };
    expect((await shiftCommand(app, world.staff.OWNER, topUp)).status).toBe(200);
    const again = await keyedAdjust(world.staff.OWNER, 'deposit-0003', out);
    expect([again.status, again.body.data?.expected_amount], again.text).toEqual([200, 5_000]);
  });

  it('another ADJUST under a used key is 409 IDEMPOTENCY_KEY_REUSED and a malformed key 400, nothing written', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 10_000);
    const out = { direction: 'OUT', amount: 2_000, reason: 'bank deposit' };
    const first = await keyedAdjust(world.staff.OWNER, 'deposit-0002', out);
    expect(first.status, first.text).toBe(200);
    const before = await financeSnapshot(app, world.companyId);

    for (const [session, body] of [
      [world.staff.OWNER, { ...out, amount: 3_000 }],
      [world.staff.OWNER, { ...out, direction: 'IN' }],
      [world.staff.OWNER, { ...out, reason: 'bank deposit two' }],
      [world.staff.ADMIN, out],
    ] as const) {
      const reused = await keyedAdjust(session, 'deposit-0002', body);
      expect([reused.status, reused.body.errorCode], reused.text).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    }
    for (const key of ['short', 'has space in it', 'x'.repeat(129)]) {
      const bad = await keyedAdjust(world.staff.OWNER, key, out);
      expect([bad.status, bad.body.errorCode], bad.text).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);

    // Without the header each ADJUST is a movement of its own.
    for (let sent = 0; sent < 2; sent += 1) {
      const plain = await shiftCommand(app, world.staff.OWNER, { action: 'ADJUST', ...out });
      expect(plain.status, plain.text).toBe(200);
    }
    expect(await movementsOf(shift.id)).toHaveLength(3);
  });
});
