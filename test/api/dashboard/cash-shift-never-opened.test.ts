import { describe, expect, it } from 'vitest';
import { financeSnapshot, financeWorld, openShift, shiftCommand } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';

/**
 * SPEC "Company dashboard records": "Cash shift: one open shift per company"; /payments/cash-shifts
 * "actions OPEN, ADJUST, CLOSE". README "Company finance": ADJUST and CLOSE are steps of the open shift, and a shift the database holds
 * without a running process is taken over on its next ADJUST or CLOSE ("a row closed meanwhile is 409
 * CASH_SHIFT_NOT_OPEN and leaves no process"). The cell no other test names: a company that never
 * opened a shift. Its ADJUST and CLOSE are 409 CASH_SHIFT_NOT_OPEN, write nothing, and leave nothing
 * behind that would stop its first OPEN. (After a CLOSE: cash-shifts.test.ts and
 * cash-shift-names-its-shift.test.ts.)
 */
describe('cash shifts: a company that never opened one', () => {
  const app = useTestApp();

  it('ADJUST and CLOSE are 409 CASH_SHIFT_NOT_OPEN and write nothing; the first OPEN then opens', async () => {
    const world = await financeWorld(app);
    const before = await financeSnapshot(app, world.companyId);
    const adjust = await shiftCommand(app, world.staff.OWNER, {
      action: 'ADJUST',
      direction: 'IN',
      amount: 500,
      reason: 'float top-up',
    });
    expect([adjust.status, adjust.body.errorCode], adjust.text).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    const close = await shiftCommand(app, world.staff.ADMIN, { action: 'CLOSE', declared_amount: 0 });
    expect([close.status, close.body.errorCode], close.text).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
    const opened = await openShift(app, world.staff.ADMIN, 1_000);
    expect(opened.expected_amount).toBe(1_000);
  });
});
