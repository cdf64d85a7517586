import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cashShiftClient } from '../../../api/temporal/cash-shift-client.js';
import { adjustShiftUpdate, cashShiftStateQuery } from '../../../workflows/cash-shift.contract.js';
import { workflowIds } from '../../../workflows/shared.js';
import {
  DASHBOARD_ROLES,
  financeSnapshot,
  type FinanceWorld,
  financeWorld,
  openShift,
  paymentAction,
  pendingPayment,
  shiftActor,
  shiftCommand,
} from '../../support/finance.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import { eventually } from '../../support/journeys.js';
import {
  demotedWhileWriting,
  signedOutWhileWriting,
  suspendedWhileWriting,
} from '../../support/suspension.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';

const SHIFTS = '/dashboard/api/payments/cash-shifts';

describe('cash shifts: the cash-shift/{companyId} workflow', () => {
  const app = useTestApp();

  const auditActs = async (companyId: string) =>
    app.db.query(
      `select a.action, a.target_id from audit_log a join cash_shifts s on s.id::text = a.target_id
        where s.company_id = $1 and a.action like 'cash_shifts.%' order by a.id`,
      [companyId],
    );

  it('opens, adjusts and closes with a difference; history keeps movements and collections', async () => {
    const world = await financeWorld(app);
    const owner = world.staff.OWNER;
    const opened = await openShift(app, owner, 20_000);
    expect(opened).toMatchObject({
      status: 'OPEN',
      opening_balance: 20_000,
      expected_amount: 20_000,
      overdue: false,
    });

    const payment = await pendingPayment(app, world);
    expect((await paymentAction(app, world.staff.ACCOUNTANT, payment.paymentId, 'verify')).status).toBe(200);
    const putIn = await shiftCommand(app, world.staff.ADMIN, {
      action: 'ADJUST',
      direction: 'IN',
      amount: 5_000,
      reason: 'change float from the safe',
    });
    expect(putIn.status, putIn.text).toBe(200);
    expect(putIn.body.data).toMatchObject({ movements_in: 5_000, expected_amount: 35_000 });
    const takeOut = await shiftCommand(app, owner, {
      action: 'ADJUST',
      direction: 'OUT',
      amount: 3_000,
      reason: 'fuel for bus 12',
    });
    expect(takeOut.body.data).toMatchObject({ movements_out: 3_000, expected_amount: 32_000 });
    const overdraw = await shiftCommand(app, owner, {
      action: 'ADJUST',
      direction: 'OUT',
      amount: 32_001,
      reason: 'too much',
    });
    expect([overdraw.status, overdraw.body.errorCode]).toEqual([409, 'CASH_SHIFT_INSUFFICIENT_CASH']);

    const current = await app.request(SHIFTS, { headers: { Cookie: owner.cookie } });
    expect(current.body.data.current).toMatchObject({
      id: opened.id,
      expected_amount: 32_000,
      collections: { count: 1, amount: 10_000 },
    });

    const closed = await shiftCommand(app, owner, {
      action: 'CLOSE',
      declared_amount: 31_500,
      note: 'short by 500',
    });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body.data).toMatchObject({
      status: 'CLOSED',
      expected_amount: 32_000,
      declared_amount: 31_500,
      difference: -500,
      closed_by: owner.staffUserId,
    });

    const after = await app.request(SHIFTS, { headers: { Cookie: owner.cookie } });
    expect(after.body.data.current).toBeNull();
    expect(after.body.data.shifts[0]).toMatchObject({ id: opened.id, status: 'CLOSED', difference: -500 });
    const detail = await app.request(`${SHIFTS}/${opened.id}`, {
      headers: { Cookie: world.staff.ADMIN.cookie },
    });
    expect(detail.body.data.movements.map((m: any) => [m.direction, m.amount, m.reason])).toEqual([
      ['IN', 5_000, 'change float from the safe'],
      ['OUT', 3_000, 'fuel for bus 12'],
    ]);
    expect(detail.body.data.collections).toEqual([
      expect.objectContaining({ id: payment.paymentId, booking_code: payment.bookingCode, amount: 10_000 }),
    ]);
    const csv = await app.request(`${SHIFTS}/${opened.id}/csv`, { headers: { Cookie: owner.cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const raw = new Uint8Array(
      await (
        await fetch(`${app.baseUrl}${SHIFTS}/${opened.id}/csv`, { headers: { Cookie: owner.cookie } })
      ).arrayBuffer(),
    );
    expect([...raw.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(csv.text).toContain('"difference"');
    expect(csv.text).toContain('"-500"');

    // Closed: nothing more goes in; a new shift may open (the workflow id is free again).
    const adjust = await shiftCommand(app, owner, {
      action: 'ADJUST',
      direction: 'IN',
      amount: 1,
      reason: 'late',
    });
    expect([adjust.status, adjust.body.errorCode]).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    const close = await shiftCommand(app, owner, { action: 'CLOSE', declared_amount: 0 });
    expect([close.status, close.body.errorCode]).toEqual([409, 'CASH_SHIFT_NOT_OPEN']);
    const next = await openShift(app, owner, 31_500);
    expect(next.id).not.toBe(opened.id);
    const open = await shiftCommand(app, owner, { action: 'OPEN', opening_balance: 0 });
    expect([open.status, open.body.errorCode]).toEqual([409, 'CASH_SHIFT_ALREADY_OPEN']);
    const description = await app.temporal.workflow
      .getHandle(workflowIds.cashShift(world.companyId))
      .describe();
    expect(description.status.name).toBe('RUNNING');
  });

  it('is for the owner and an active manager only; others get 403 and nothing changes', async () => {
    const world = await financeWorld(app);
    const before = await financeSnapshot(app, world.companyId);
    for (const role of ['ACCOUNTANT', 'DISPATCHER', 'STAFF'] as const) {
      const session = world.staff[role];
      const read = await app.request(SHIFTS, { headers: { Cookie: session.cookie } });
      const write = await shiftCommand(app, session, { action: 'OPEN', opening_balance: 0 });
      expect([read.status, write.status, write.body.errorCode]).toEqual([403, 403, 'ROLE_NOT_ALLOWED']);
      // The role is checked before the input is read: a malformed command gets the same 403, not a 400.
      const malformed = await shiftCommand(app, session, { action: 'OPEN', opening_balance: -5, till: 'x' });
      expect([malformed.status, malformed.body.errorCode]).toEqual([403, 'ROLE_NOT_ALLOWED']);
    }
    for (const role of DASHBOARD_ROLES) {
      const noCsrf = await app.request(SHIFTS, {
        method: 'POST',
        headers: { Cookie: world.staff[role].cookie },
        json: { action: 'OPEN', opening_balance: 0 },
      });
      expect(noCsrf.status).toBe(403);
    }
    await app.db.query(`update company_memberships set active = false where staff_user_id = $1`, [
      world.staff.ADMIN.staffUserId,
    ]);
    const deactivated = await shiftCommand(app, world.staff.ADMIN, { action: 'OPEN', opening_balance: 0 });
    expect(deactivated.status).toBe(401);
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);
  });

  it('takes over an open shift the database holds without a running process (demo data, a reset server)', async () => {
    const world = await financeWorld(app);
    const [row] = await app.db.query<{ id: string }>(
      `insert into cash_shifts (company_id, opening_balance, opened_by, opened_at) values ($1, 9000, $2, now() - interval '1 hour')
       returning id`,
      [world.companyId, world.staff.OWNER.staffUserId],
    );
    const open = await shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 0 });
    expect([open.status, open.body.errorCode]).toEqual([409, 'CASH_SHIFT_ALREADY_OPEN']);
    const adjusted = await shiftCommand(app, world.staff.ADMIN, {
      action: 'ADJUST',
      direction: 'IN',
      amount: 1000,
      reason: 'float',
    });
    expect(adjusted.status, adjusted.text).toBe(200);
    expect(adjusted.body.data).toMatchObject({ id: row!.id, expected_amount: 10_000 });
    const closed = await shiftCommand(app, world.staff.OWNER, { action: 'CLOSE', declared_amount: 10_200 });
    expect(closed.body.data).toMatchObject({ id: row!.id, status: 'CLOSED', difference: 200 });
  });

  it('takes over a shift with no running process for steps sent at once: every one is recorded', async () => {
    for (let round = 0; round < 2; round += 1) {
      const world = await financeWorld(app);
      const shift = await openShift(app, world.staff.OWNER, 5_000);
      await app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId)).terminate('operator');
      const adjust = (who: 'OWNER' | 'ADMIN', amount: number) =>
        shiftCommand(app, world.staff[who], { action: 'ADJUST', direction: 'IN', amount, reason: 'float' });
      const answers = await Promise.all([adjust('OWNER', 100), adjust('ADMIN', 200), adjust('OWNER', 300)]);
      expect(answers.map((answer) => [answer.status, answer.body.errorCode])).toEqual([
        [200, undefined],
        [200, undefined],
        [200, undefined],
      ]);
      const detail = await app.request(`${SHIFTS}/${shift.id}`, {
        headers: { Cookie: world.staff.OWNER.cookie },
      });
      expect(detail.body.data.shift).toMatchObject({ movements_in: 600, expected_amount: 5_600 });
    }
  });

  it('takes over a shift whose process an operator terminated (a stuck run)', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 5_000);
    const handle = app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId));
    await handle.terminate('operator: stuck run');

    const adjusted = await shiftCommand(app, world.staff.ADMIN, {
      action: 'ADJUST',
      direction: 'IN',
      amount: 1_000,
      reason: 'float from the safe',
    });
    const closed = await shiftCommand(app, world.staff.OWNER, { action: 'CLOSE', declared_amount: 6_000 });
    const opened = await shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 0 });
    const [row] = await app.db.query<{ status: string }>(`select status from cash_shifts where id = $1`, [
      shift.id,
    ]);
    expect({
      adjust: [adjusted.status, adjusted.body?.errorCode],
      close: [closed.status, closed.body?.errorCode],
      oldShift: row!.status,
      newOpen: [opened.status, opened.body?.errorCode],
    }).toEqual({
      adjust: [200, undefined],
      close: [200, undefined],
      oldShift: 'CLOSED',
      newOpen: [201, undefined],
    });
  });

  it('a takeover that comes after another request closed the shift starts no process holding it', async () => {
    const world = await financeWorld(app);
    const owner = world.staff.OWNER;
    const shift = await openShift(app, owner, 2_000);
    const closed = await shiftCommand(app, owner, { action: 'CLOSE', declared_amount: 2_000 });
    expect(closed.status, closed.text).toBe(200);
    await app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId)).result();
    // What a takeover sends when it read the row as OPEN just before that close.
    const late = cashShiftClient(app.temporal, app.config).resume({
      shiftId: shift.id,
      companyId: world.companyId,
      openedBy: owner.staffUserId,
      actor: shiftActor(owner),
      openingBalance: 2_000,
      maxOpenMilliseconds: 60_000,
    });
    await expect(late).rejects.toMatchObject({ status: 409, code: 'CASH_SHIFT_NOT_OPEN' });
    const next = await openShift(app, owner, 0);
    expect(next.id).not.toBe(shift.id);
  });

  describe('a shift closed in the database while its process still runs', () => {
    /**
     * The shift's row closed as a CLOSE whose transaction committed while every attempt of its
     * activity reported failure (a failover right after the commit) leaves it, or a database
     * restored under a running Temporal: the process still holds the company in phase OPEN.
     */
    const closedUnderItsProcess = async () => {
      const world = await financeWorld(app);
      const shift = await openShift(app, world.staff.OWNER, 1_000);
      await app.db.query(
        `update cash_shifts set status = 'CLOSED', declared_amount = 1000, expected_amount = 1000, difference = 0,
                closed_by = opened_by, closed_at = now() where id = $1`,
        [shift.id],
      );
      const before = await financeSnapshot(app, world.companyId);
      const handle = app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId));
      expect((await handle.query(cashShiftStateQuery)).phase).toBe('OPEN');
      return { world, shift, before, handle };
    };

    it('the next OPEN ends that process and opens the new shift; the closed shift stays as it was', async () => {
      const { world, shift, before } = await closedUnderItsProcess();
      const opened = await shiftCommand(app, world.staff.ADMIN, { action: 'OPEN', opening_balance: 500 });
      const again = await shiftCommand(app, world.staff.OWNER, { action: 'OPEN', opening_balance: 0 });
      const read = await app.request(SHIFTS, { headers: { Cookie: world.staff.OWNER.cookie } });
      const after = await financeSnapshot(app, world.companyId);
      expect({
        open: [opened.status, opened.body?.errorCode],
        again: [again.status, again.body?.errorCode],
        current: read.body.data.current && [
          read.body.data.current.id,
          read.body.data.current.opening_balance,
        ],
        closedShift: after.shifts.filter((row) => row.id === shift.id),
        movements: after.movements,
      }).toEqual({
        open: [201, undefined],
        again: [409, 'CASH_SHIFT_ALREADY_OPEN'],
        current: [opened.body?.data?.id, 500],
        closedShift: before.shifts,
        movements: before.movements,
      });
      expect(opened.body.data.id).not.toBe(shift.id);
    });

    it.each([
      ['ADJUST', { action: 'ADJUST', direction: 'IN', amount: 5, reason: 'coins from the safe' }],
      ['CLOSE', { action: 'CLOSE', declared_amount: 1_000 }],
    ])('%s is refused CASH_SHIFT_NOT_OPEN, writes nothing and ends that process', async (_, command) => {
      const { world, shift, before, handle } = await closedUnderItsProcess();
      const refused = await shiftCommand(app, world.staff.ADMIN, command);
      const ended = await eventually(
        () => handle.describe(),
        (description) => description.status.name !== 'RUNNING',
        5_000,
      );
      expect({
        answer: [refused.status, refused.body?.errorCode],
        process: ended.status.name,
        snapshot: await financeSnapshot(app, world.companyId),
      }).toEqual({ answer: [409, 'CASH_SHIFT_NOT_OPEN'], process: 'COMPLETED', snapshot: before });
      expect(await handle.result()).toEqual({ phase: 'CLOSED', shiftId: shift.id, overdue: false });
      expect((await openShift(app, world.staff.OWNER, 0)).id).not.toBe(shift.id);
    });
  });

  describe('a step whose company or member changes while it waits for the company row', () => {
    /** What meets the step in flight, as an administrator or the team page commits it. */
    const meetings = {
      suspended: {
        answer: [403, 'COMPANY_SUSPENDED'],
        meet: (world: FinanceWorld, step: () => Promise<TestResponse>) =>
          suspendedWhileWriting(app.db, world.companyId, step),
      },
      'demoted to DISPATCHER': {
        answer: [403, 'ROLE_NOT_ALLOWED'],
        meet: (world: FinanceWorld, step: () => Promise<TestResponse>) =>
          demotedWhileWriting(app.db, world.companyId, world.staff.ADMIN.membershipId, 'DISPATCHER', step),
      },
      'signed out': {
        answer: [401, 'INVALID_CREDENTIAL'],
        meet: (world: FinanceWorld, step: () => Promise<TestResponse>) =>
          signedOutWhileWriting(app.db, world.companyId, world.staff.ADMIN.sessionId, step),
      },
    };

    describe.each(Object.entries(meetings))(
      'the company or the ADMIN sending it %s',
      (_, { answer, meet }) => {
        it('OPEN is refused: no shift, and no process left holding the company', async () => {
          const world = await financeWorld(app);
          const refused = await meet(world, () =>
            shiftCommand(app, world.staff.ADMIN, { action: 'OPEN', opening_balance: 1_000 }),
          );
          expect([refused.status, refused.body?.errorCode], refused.text).toEqual(answer);
          expect(await financeSnapshot(app, world.companyId)).toMatchObject({ shifts: [], movements: [] });
          const handle = app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId));
          expect(await handle.result()).toMatchObject({ phase: 'NEW' });
        });

        /** A step on an open shift, refused: nothing written, the shift still OPEN in its process. */
        const refusedOnOpenShift = async (command: Record<string, unknown>) => {
          const world = await financeWorld(app);
          const shift = await openShift(app, world.staff.OWNER, 1_000);
          const before = await financeSnapshot(app, world.companyId);
          const acts = await auditActs(world.companyId);
          const refused = await meet(world, () => shiftCommand(app, world.staff.ADMIN, command));
          expect([refused.status, refused.body?.errorCode], refused.text).toEqual(answer);
          expect(await financeSnapshot(app, world.companyId)).toEqual(before);
          expect(await auditActs(world.companyId)).toEqual(acts);
          const handle = app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId));
          expect(await handle.query(cashShiftStateQuery)).toEqual({
            phase: 'OPEN',
            shiftId: shift.id,
            overdue: false,
          });
        };

        it('ADJUST is refused: no movement, the shift stays open in its process', () =>
          refusedOnOpenShift({ action: 'ADJUST', direction: 'IN', amount: 500, reason: 'float' }));

        it('CLOSE is refused: the shift stays open, in the database and its process', () =>
          refusedOnOpenShift({ action: 'CLOSE', declared_amount: 1_000 }));
      },
    );
  });

  describe('a step held up longer than the request waits for it (UPDATE_DEADLINE_MS)', () => {
    /** `step` sent while `lockSql` holds a row it needs; the lock is released once the request has its answer. */
    const heldUp = async (lockSql: string, step: () => Promise<TestResponse>) => {
      const held = await holdLock(app.db, lockSql);
      try {
        const stepping = step();
        await waitersOf(app.db, held.pid, 1);
        return await stepping;
      } finally {
        await held.release();
      }
    };

    it.each([
      ['ADJUST', { action: 'ADJUST', direction: 'IN', amount: 700, reason: 'float from the safe' }],
      ['CLOSE', { action: 'CLOSE', declared_amount: 1_000 }],
    ])(
      '%s is 503 CASH_SHIFT_UNAVAILABLE (Retry-After: 5) and writes nothing, the shift still OPEN: the retry is recorded once',
      async (action, command) => {
        const world = await financeWorld(app);
        const shift = await openShift(app, world.staff.OWNER, 1_000);
        const before = await financeSnapshot(app, world.companyId);
        const acts = await auditActs(world.companyId);
        // Something else holds the shift's row (a verify linking its collection, a slow disk) past the wait.
        const late = await heldUp(`select id from cash_shifts where id = '${shift.id}' for update`, () =>
          shiftCommand(app, world.staff.ADMIN, command),
        );
        expect([late.status, late.body?.errorCode], late.text).toEqual([503, 'CASH_SHIFT_UNAVAILABLE']);
        expect(late.headers.get('Retry-After')).toBe('5');
        // RECONCILE runs after the steps before it: once it answers, the late step has run to its end.
        const state = await cashShiftClient(app.temporal, app.config).reconcile(world.companyId);
        expect({
          state,
          snapshot: await financeSnapshot(app, world.companyId),
          acts: await auditActs(world.companyId),
        }).toEqual({ state: { phase: 'OPEN', shiftId: shift.id, overdue: false }, snapshot: before, acts });

        const retry = await shiftCommand(app, world.staff.ADMIN, command);
        expect(retry.status, retry.text).toBe(200);
        const after = await financeSnapshot(app, world.companyId);
        const [row] = after.shifts;
        if (action === 'ADJUST') {
          expect(retry.body.data).toMatchObject({
            status: 'OPEN',
            movements_in: 700,
            expected_amount: 1_700,
          });
          expect(after.movements.map((m: any) => [m.direction, Number(m.amount), m.recorded_by])).toEqual([
            ['IN', 700, world.staff.ADMIN.staffUserId],
          ]);
        } else {
          expect(retry.body.data).toMatchObject({ status: 'CLOSED', expected_amount: 1_000, difference: 0 });
          expect(row).toMatchObject({ status: 'CLOSED', closed_by: world.staff.ADMIN.staffUserId });
        }
        expect((await auditActs(world.companyId)).slice(acts.length)).toEqual([
          { action: `cash_shifts.${action.toLowerCase()}`, target_id: shift.id },
        ]);
      },
      60_000,
    );

    it('OPEN is 503 CASH_SHIFT_UNAVAILABLE (Retry-After: 5) and opens nothing, its process ended: the retry opens one shift', async () => {
      const world = await financeWorld(app);
      // Something else holds the company row (a settings save) past the wait.
      const late = await heldUp(`select id from companies where id = '${world.companyId}' for update`, () =>
        shiftCommand(app, world.staff.ADMIN, { action: 'OPEN', opening_balance: 1_000 }),
      );
      expect([late.status, late.body?.errorCode], late.text).toEqual([503, 'CASH_SHIFT_UNAVAILABLE']);
      expect(late.headers.get('Retry-After')).toBe('5');
      const handle = app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId));
      // A refused OPEN ends its process: once the lock is gone, the late OPEN has run to its end.
      const ended = await eventually(
        () => handle.describe(),
        (description) => description.status.name !== 'RUNNING',
        10_000,
      );
      expect({
        process: ended.status.name,
        snapshot: await financeSnapshot(app, world.companyId),
      }).toMatchObject({ process: 'COMPLETED', snapshot: { shifts: [], movements: [] } });
      expect(await handle.result()).toMatchObject({ phase: 'NEW' });
      const retry = await shiftCommand(app, world.staff.ADMIN, { action: 'OPEN', opening_balance: 1_000 });
      expect(retry.status, retry.text).toBe(201);
      const after = await financeSnapshot(app, world.companyId);
      expect(after.shifts.map((row: any) => [row.id, row.status, Number(row.opening_balance)])).toEqual([
        [retry.body.data.id, 'OPEN', 1_000],
      ]);
    }, 60_000);
  });

  it('refuses bad commands with a 400 that changes nothing, and hides other companies’ shifts', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 1_000);
    const before = await financeSnapshot(app, world.companyId);
    const bad = [
      { action: 'OPEN' },
      { action: 'OPEN', opening_balance: -1 },
      { action: 'OPEN', opening_balance: 1.5 },
      { action: 'ADJUST', direction: 'SIDEWAYS', amount: 5, reason: 'why not' },
      { action: 'ADJUST', direction: 'IN', amount: 0, reason: 'nothing' },
      { action: 'ADJUST', direction: 'IN', amount: 5 },
      // Four UTF-16 code units, but two characters: shorter than the three a reason needs.
      { action: 'ADJUST', direction: 'IN', amount: 5, reason: '👍👍' },
      { action: 'CLOSE', declared_amount: 5, expected_amount: 5 },
      { action: 'CLOSE' },
      { action: 'CLOSE', declared_amount: 5, company_id: world.companyId },
      { action: 'REOPEN' },
    ];
    for (const json of bad) {
      const response = await shiftCommand(app, world.staff.OWNER, json);
      expect([response.status, response.body.errorCode], JSON.stringify(json)).toEqual([
        400,
        'VALIDATION_FAILED',
      ]);
    }
    expect(await financeSnapshot(app, world.companyId)).toEqual(before);

    const stranger = await financeWorld(app);
    for (const path of [`${SHIFTS}/${shift.id}`, `${SHIFTS}/${shift.id}/csv`]) {
      const response = await app.request(path, { headers: { Cookie: stranger.staff.OWNER.cookie } });
      expect([response.status, response.body.errorCode]).toEqual([404, 'CASH_SHIFT_NOT_FOUND']);
    }
    const list = await app.request(SHIFTS, { headers: { Cookie: stranger.staff.OWNER.cookie } });
    expect(list.body.data).toEqual({ current: null, shifts: [] });
    const openCsv = await app.request(`${SHIFTS}/${shift.id}/csv`, {
      headers: { Cookie: world.staff.OWNER.cookie },
    });
    expect([openCsv.status, openCsv.body.errorCode]).toEqual([409, 'CASH_SHIFT_NOT_CLOSED']);
  });
});

describe('a shift open past CASH_SHIFT_MAX_HOURS', () => {
  // 0.0006 hours: about 2 seconds.
  const app = useTestApp({ CASH_SHIFT_MAX_HOURS: 0.0006 });

  it('is marked overdue (GET and ProcessStatus) and stays open until a person closes it', async () => {
    const world = await financeWorld(app);
    const shift = await openShift(app, world.staff.OWNER, 7_000);
    const handle = app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId));
    const [marked] = await eventually(
      () =>
        app.db.query<{ overdue_since: string | null }>(
          `select overdue_since from cash_shifts where id = $1`,
          [shift.id],
        ),
      ([row]) => row!.overdue_since !== null,
    );
    expect(marked!.overdue_since).not.toBeNull();
    const read = await app.request(SHIFTS, { headers: { Cookie: world.staff.OWNER.cookie } });
    expect(read.body.data.current).toMatchObject({ id: shift.id, status: 'OPEN', overdue: true });
    // The mark's activity commits the row before its workflow task sets ProcessStatus: wait for that task.
    const description = await eventually(
      () => handle.describe(),
      (described) => described.searchAttributes.ProcessStatus?.[0] !== 'OPEN',
    );
    expect(description.status.name).toBe('RUNNING');
    expect(description.searchAttributes.ProcessStatus).toEqual(['OVERDUE']);

    const closed = await shiftCommand(app, world.staff.OWNER, { action: 'CLOSE', declared_amount: 7_000 });
    expect(closed.body.data).toMatchObject({ status: 'CLOSED', difference: 0 });
    await handle.result();
  });
});

describe('a shift past CASH_SHIFT_STEPS_PER_RUN steps', () => {
  // Temporal refuses Updates to a run past 2000: the run continues as new every 5 steps here.
  const app = useTestApp({ CASH_SHIFT_STEPS_PER_RUN: 5 });

  it('is handed to a new run and can still be adjusted and closed, steps racing the handovers', async () => {
    const world = await financeWorld(app);
    const owner = world.staff.OWNER;
    await openShift(app, owner, 0);
    const handle = app.temporal.workflow.getHandle(workflowIds.cashShift(world.companyId));
    const firstRun = (await handle.describe()).runId;
    const total = 39;
    let next = 0;
    let adjusted = 0;
    let firstFailure: string | undefined;
    const lane = async () => {
      while (next < total && !firstFailure) {
        next += 1;
        try {
          await app.temporal.withDeadline(Date.now() + 20_000, () =>
            handle.executeUpdate(adjustShiftUpdate, {
              args: [
                {
                  movementId: randomUUID(),
                  actor: shiftActor(owner),
                  direction: 'IN',
                  amount: 1,
                  reason: 'coins from the safe',
                },
              ],
            }),
          );
          adjusted += 1;
        } catch (error) {
          const cause = (error as Error).cause as Error | undefined;
          firstFailure ??= `after ${adjusted} adjusts: ${(error as Error).message} / ${cause?.message ?? ''}`;
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, lane));
    expect((await handle.describe()).runId).not.toBe(firstRun);
    // Through the API now, as the office would: one more movement, then the close.
    const adjust = await shiftCommand(app, owner, {
      action: 'ADJUST',
      direction: 'IN',
      amount: 1,
      reason: 'coins from the safe',
    });
    const closed = await shiftCommand(app, owner, { action: 'CLOSE', declared_amount: adjusted + 1 });
    expect({
      adjusted,
      firstFailure,
      adjust: [adjust.status, adjust.body?.errorCode],
      close: [closed.status, closed.body?.errorCode],
    }).toEqual({
      adjusted: total,
      firstFailure: undefined,
      adjust: [200, undefined],
      close: [200, undefined],
    });
    expect(closed.body.data).toMatchObject({ status: 'CLOSED', expected_amount: total + 1, difference: 0 });
    expect(await handle.result()).toMatchObject({ phase: 'CLOSED' });
  });
});
