import { describe, expect, it } from 'vitest';
import { cashShiftStateQuery } from '../../../workflows/cash-shift.contract.js';
import { workflowIds } from '../../../workflows/shared.js';
import { financeSnapshot, financeWorld, openShift, shiftCommand } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';

const SHIFTS = '/dashboard/api/payments/cash-shifts';

/**
 * An ADJUST or CLOSE may name the shift it was counted for (shift_id, the id GET answers as
 * current): one that reaches the company after that shift closed and the next one opened is
 * refused, never recorded into the next shift. A CLOSE of a shift already closed is answered with
 * that close only when it repeats it; any other count is refused and the recorded close stands.
 */
describe('cash shifts: a step names its shift', () => {
  const app = useTestApp();

  const currentShift = async (cookie: string) =>
    (await app.request(SHIFTS, { headers: { Cookie: cookie } })).body.data.current;

  /** The owner closed S1 and opened S2 while a manager was still counting S1. */
  const nextShiftOpened = async () => {
    const world = await financeWorld(app);
    const first = await openShift(app, world.staff.OWNER, 1_000);
    const closed = await shiftCommand(app, world.staff.OWNER, {
      action: 'CLOSE',
      declared_amount: 1_000,
      shift_id: first.id,
    });
    expect(closed.status, closed.text).toBe(200);
    const second = await openShift(app, world.staff.OWNER, 3_000);
    return { world, first, second, before: await financeSnapshot(app, world.companyId) };
  };

  it('a CLOSE counted for a shift closed meanwhile is 409 CASH_SHIFT_CHANGED: the next shift stays open', async () => {
    const { world, first, second, before } = await nextShiftOpened();
    const late = await shiftCommand(app, world.staff.ADMIN, {
      action: 'CLOSE',
      declared_amount: 1_000,
      shift_id: first.id,
    });
    expect([late.status, late.body.errorCode, late.body.details], late.text).toEqual([
      409,
      'CASH_SHIFT_CHANGED',
      { shift_id: first.id, current_shift_id: second.id },
    ]);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
    expect(await currentShift(world.staff.OWNER.cookie)).toMatchObject({ id: second.id, status: 'OPEN' });

    // Named right, it closes the shift it names.
    const close = await shiftCommand(app, world.staff.ADMIN, {
      action: 'CLOSE',
      declared_amount: 3_000,
      shift_id: second.id,
    });
    expect([close.status, close.body.data?.id, close.body.data?.difference], close.text).toEqual([
      200,
      second.id,
      0,
    ]);
  });

  it('an ADJUST re-sent for a shift closed meanwhile is 409 CASH_SHIFT_CHANGED: no movement in the next shift', async () => {
    const { world, first, second, before } = await nextShiftOpened();
    const resent = await shiftCommand(app, world.staff.ADMIN, {
      action: 'ADJUST',
      direction: 'OUT',
      amount: 500,
      reason: 'bank deposit',
      shift_id: first.id,
    });
    expect([resent.status, resent.body.errorCode, resent.body.details], resent.text).toEqual([
      409,
      'CASH_SHIFT_CHANGED',
      { shift_id: first.id, current_shift_id: second.id },
    ]);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);

    const named = await shiftCommand(app, world.staff.ADMIN, {
      action: 'ADJUST',
      direction: 'OUT',
      amount: 500,
      reason: 'bank deposit',
      shift_id: second.id,
    });
    expect([named.status, named.body.data?.expected_amount], named.text).toEqual([200, 2_500]);
  });

  it('a step naming a shift when the company has none open is 409 CASH_SHIFT_NOT_OPEN, nothing written', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 1_000);
    const closed = await shiftCommand(app, world.staff.OWNER, { action: 'CLOSE', declared_amount: 1_000 });
    expect(closed.status, closed.text).toBe(200);
    const before = await financeSnapshot(app, world.companyId);
    const late = await shiftCommand(app, world.staff.ADMIN, {
      action: 'CLOSE',
      declared_amount: 900,
      shift_id: shift.id,
    });
    expect([late.status, late.body.errorCode], late.text).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
  });

  it('a shift_id that is not an id is a 400 that changes nothing', async () => {
    const world = await financeWorld(app);
    await openShift(app, world.staff.OWNER, 1_000);
    const before = await financeSnapshot(app, world.companyId);
    const bad = await shiftCommand(app, world.staff.OWNER, {
      action: 'CLOSE',
      declared_amount: 1_000,
      shift_id: 'S1',
    });
    expect(bad.status, bad.text).toBe(400);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
  });

  it('a CLOSE sent again after its answer was lost, its process ended, is answered with that close; another count is refused', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 1_000);
    const close = { action: 'CLOSE', declared_amount: 1_000, note: 'end of day', shift_id: shift.id };
    const first = await shiftCommand(app, world.staff.OWNER, close);
    expect(first.status, first.text).toBe(200);
    const before = await financeSnapshot(app, world.companyId);

    const repeat = await shiftCommand(app, world.staff.OWNER, close);
    expect(
      [repeat.status, repeat.body.data?.id, repeat.body.data?.status, repeat.body.data?.declared_amount],
      repeat.text,
    ).toEqual([200, shift.id, 'CLOSED', 1_000]);
    const recount = await shiftCommand(app, world.staff.OWNER, { ...close, declared_amount: 900 });
    expect([recount.status, recount.body.errorCode], recount.text).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    const byAnother = await shiftCommand(app, world.staff.ADMIN, close);
    expect([byAnother.status, byAnother.body.errorCode], byAnother.text).toEqual([
      409,
      'CASH_SHIFT_NOT_OPEN',
    ]);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
  });

  describe('a CLOSE of a shift its process still holds, closed in the database by that member', () => {
    /** The row closed by a CLOSE whose transaction committed while its activity reported failure. */
    const closedUnderItsProcess = async () => {
      const world = await financeWorld(app);
      const shift = await openShift(app, world.staff.OWNER, 1_000);
      await app.db.query(
        `update cash_shifts set status = 'CLOSED', declared_amount = 1000, expected_amount = 1000, difference = 0,
                closed_by = opened_by, closed_at = now(), note = 'counted twice' where id = $1`,
        [shift.id],
      );
      const handle = app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId));
      expect((await handle.query(cashShiftStateQuery)).phase).toBe('OPEN');
      return { world, shift, handle, before: await financeSnapshot(app, world.companyId) };
    };

    it('with another count is 409 CASH_SHIFT_NOT_OPEN: the first count stands and the process ends', async () => {
      const { world, handle, before } = await closedUnderItsProcess();
      const recount = await shiftCommand(app, world.staff.OWNER, { action: 'CLOSE', declared_amount: 700 });
      expect([recount.status, recount.body.errorCode], recount.text).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
      expect(await financeSnapshot(app, world.companyId)).toEqual(before);
      expect((await handle.result()).phase).toBe('CLOSED');
    });

    it('with another note is 409 CASH_SHIFT_NOT_OPEN: the recorded close stands', async () => {
      const { world, before } = await closedUnderItsProcess();
      const renoted = await shiftCommand(app, world.staff.OWNER, {
        action: 'CLOSE',
        declared_amount: 1_000,
        note: 'a different count',
      });
      expect([renoted.status, renoted.body.errorCode], renoted.text).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
      expect(await financeSnapshot(app, world.companyId)).toEqual(before);
    });

    it('repeated as it was recorded is answered with that close, nothing written again', async () => {
      const { world, shift, handle, before } = await closedUnderItsProcess();
      const repeat = await shiftCommand(app, world.staff.OWNER, {
        action: 'CLOSE',
        declared_amount: 1_000,
        note: 'counted twice',
        shift_id: shift.id,
      });
      expect(
        [repeat.status, repeat.body.data?.status, repeat.body.data?.declared_amount],
        repeat.text,
      ).toEqual([200, 'CLOSED', 1_000]);
      expect(await financeSnapshot(app, world.companyId)).toEqual(before);
      expect((await handle.result()).phase).toBe('CLOSED');
    });
  });
});
