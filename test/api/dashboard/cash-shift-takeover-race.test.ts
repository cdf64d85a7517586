import { describe, expect, it } from 'vitest';
import { cashShiftStateQuery } from '../../../workflows/cash-shift.contract.js';
import { workflowIds } from '../../../workflows/shared.js';
import { financeWorld, shiftCommand } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';

/** Rounds per race: the OPEN's run and the takeover meet in a different order from round to round. */
const ROUNDS = 5;

/**
 * A shift the database holds open with no running process (demo data, a reset server, a terminated
 * run) is taken over by its next ADJUST or CLOSE. An OPEN sent at the same moment starts the
 * company's process for a shift of its own, which the database refuses: the step queued behind it,
 * or the takeover that meets it, waits for that run to end and takes the shift over after it.
 */
describe('cash shifts: a takeover racing an OPEN', () => {
  const app = useTestApp();

  const shiftWithoutProcess = async () => {
    const world = await financeWorld(app);
    const [row] = await app.db.query<{ id: string }>(
      `insert into cash_shifts (company_id, opening_balance, opened_by, opened_at)
       values ($1, 9000, $2, now() - interval '1 hour') returning id`,
      [world.companyId, world.staff.OWNER.staffUserId],
    );
    return { world, shiftId: row!.id };
  };

  const shiftsOf = (companyId: string) =>
    app.db.query<{ id: string; status: string; declared_amount: string | null }>(
      `select id, status, declared_amount from cash_shifts where company_id = $1 order by opened_at`,
      [companyId],
    );

  const heldShift = (companyId: string) =>
    app.temporal.workflow.getHandle(workflowIds.cashShift(companyId)).query(cashShiftStateQuery);

  it('an ADJUST sent with an OPEN is recorded once into the open shift; the OPEN is 409 CASH_SHIFT_ALREADY_OPEN', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const { world, shiftId } = await shiftWithoutProcess();
      const [open, adjust] = await Promise.all([
        shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 0 }),
        shiftCommand(app, world.staff.ADMIN, {
          action: 'ADJUST',
          direction: 'IN',
          amount: 1000,
          reason: 'float',
        }),
      ]);
      expect({
        open: [open.status, open.body.errorCode],
        adjust: [adjust.status, adjust.body.errorCode],
      }).toEqual({ open: [409, 'CASH_SHIFT_ALREADY_OPEN'], adjust: [200, undefined] });
      expect(adjust.body.data).toMatchObject({ id: shiftId, status: 'OPEN', expected_amount: 10_000 });

      expect(await shiftsOf(world.companyId)).toEqual([
        { id: shiftId, status: 'OPEN', declared_amount: null },
      ]);
      const movements = await app.db.query(
        `select shift_id, direction, amount::int from cash_shift_movements where company_id = $1`,
        [world.companyId],
      );
      expect(movements).toEqual([{ shift_id: shiftId, direction: 'IN', amount: 1000 }]);
      expect(await heldShift(world.companyId)).toMatchObject({ phase: 'OPEN', shiftId });
    }
  });

  it('a CLOSE sent with an OPEN closes the open shift; the OPEN is refused, or opens the next shift after it', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const { world, shiftId } = await shiftWithoutProcess();
      const [open, close] = await Promise.all([
        shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 0 }),
        shiftCommand(app, world.staff.ADMIN, { action: 'CLOSE', declared_amount: 9000 }),
      ]);
      expect([close.status, close.body.errorCode], close.text).toEqual([200, undefined]);
      expect(close.body.data).toMatchObject({ id: shiftId, status: 'CLOSED', difference: 0 });
      // An OPEN that reached the database after the CLOSE opens the next shift; before it, 409.
      const opened = open.status === 201;
      if (!opened) expect([open.status, open.body.errorCode]).toEqual([409, 'CASH_SHIFT_ALREADY_OPEN']);

      const shifts = await shiftsOf(world.companyId);
      expect(shifts).toEqual([
        { id: shiftId, status: 'CLOSED', declared_amount: '9000' },
        ...(opened ? [{ id: open.body.data.id, status: 'OPEN', declared_amount: null }] : []),
      ]);
      if (opened) {
        expect(await heldShift(world.companyId)).toMatchObject({ phase: 'OPEN', shiftId: open.body.data.id });
      }
    }
  });
});
