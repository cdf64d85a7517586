import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowUpdateStage, type Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  adjustShiftUpdate,
  CASH_SHIFT_WORKFLOW,
  cashShiftStateQuery,
  closeShiftUpdate,
  openShiftUpdate,
  reconcileShiftUpdate,
  type CashShiftInput,
  type CashShiftSummary,
} from '../../../workflows/cash-shift.contract.js';
import type { cashShift } from '../../../workflows/cash-shift.js';
import { workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import { executeOnAcceptingRun } from '../../../api/temporal/workflow-updates.js';
import { eventually, waitUntil } from '../../support/journeys.js';
import {
  Calls,
  refusalOf,
  replayRecordedHistory,
  useWorkflowEnvironment,
} from '../../support/workflow-env.js';

/** The cash-shift workflow's transitions and its overdue timer with stubbed activities (no PostgreSQL). */
type ShiftSteps = Pick<
  Activities,
  'openCashShift' | 'adjustCashShift' | 'closeCashShift' | 'markCashShiftOverdue' | 'readCashShiftStatus'
>;

/** The shift's row as the stubbed steps see it: ADJUST and CLOSE are refused once it is not OPEN. */
type RowStatus = { status: 'OPEN' | 'CLOSED' | null };

const summary = (input: { shiftId: string; companyId: string }, changes: Partial<CashShiftSummary> = {}) =>
  ({
    id: input.shiftId,
    companyId: input.companyId,
    status: 'OPEN',
    currency: 'SYP',
    openingBalance: 0,
    openedBy: 'owner',
    openedAt: new Date().toISOString(),
    overdueSince: null,
    note: null,
    collections: { count: 0, amount: 0 },
    movementsIn: 0,
    movementsOut: 0,
    expectedAmount: 0,
    declaredAmount: null,
    difference: null,
    closedBy: null,
    closedAt: null,
    ...changes,
  }) satisfies CashShiftSummary;

function shiftSteps(options: { refuseOpen?: boolean; openWaitsFor?: Promise<void>; row?: RowStatus } = {}) {
  const calls = new Calls();
  const row = options.row ?? { status: 'OPEN' };
  const notOpen = { refused: { status: 409, code: 'CASH_SHIFT_NOT_OPEN', message: 'not open' } };
  const steps: ShiftSteps = {
    async openCashShift(input) {
      calls.record('openCashShift', input);
      await options.openWaitsFor;
      if (options.refuseOpen) {
        return { refused: { status: 409, code: 'CASH_SHIFT_ALREADY_OPEN', message: 'already open' } };
      }
      return {
        done: summary(input, { openingBalance: input.openingBalance, expectedAmount: input.openingBalance }),
      };
    },
    async adjustCashShift(input) {
      calls.record('adjustCashShift', input);
      if (row.status !== 'OPEN') return notOpen;
      return { done: summary({ shiftId: input.shiftId, companyId: 'c' }, { movementsIn: input.amount }) };
    },
    async closeCashShift(input) {
      calls.record('closeCashShift', input);
      if (row.status !== 'OPEN') return notOpen;
      return {
        done: summary(
          { shiftId: input.shiftId, companyId: 'c' },
          {
            status: 'CLOSED',
            declaredAmount: input.declaredAmount,
            expectedAmount: 100,
            difference: input.declaredAmount - 100,
          },
        ),
      };
    },
    async markCashShiftOverdue(input) {
      calls.record('markCashShiftOverdue', input);
    },
    async readCashShiftStatus(input) {
      calls.record('readCashShiftStatus', input);
      return row.status;
    },
  };
  return { steps, calls };
}

function startOperation(taskQueue: string, input: CashShiftInput) {
  return new WithStartWorkflowOperation<typeof cashShift>(CASH_SHIFT_WORKFLOW, {
    workflowId: workflowIds.cashShift(input.companyId),
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'FAIL',
  });
}

/** The acting member of a step (the stubbed activities never read it). */
const member = (staffUserId: string) => ({
  sessionId: `session-${staffUserId}`,
  membershipId: `membership-${staffUserId}`,
  staffUserId,
  allowedRoles: ['OWNER', 'ADMIN'],
});

async function open(
  client: Client,
  taskQueue: string,
  maxOpenMilliseconds = 600_000,
  more: Partial<CashShiftInput> = {},
) {
  const input: CashShiftInput = {
    shiftId: randomUUID(),
    companyId: randomUUID(),
    openedBy: 'owner',
    actor: member('owner'),
    openingBalance: 100,
    maxOpenMilliseconds,
    ...more,
  };
  const startWorkflowOperation = startOperation(taskQueue, input);
  const opened = await client.workflow.executeUpdateWithStart(openShiftUpdate, {
    args: [],
    updateId: `open:${input.shiftId}`,
    startWorkflowOperation,
  });
  return { input, opened, handle: await startWorkflowOperation.workflowHandle() };
}

describe('cashShift workflow (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  it('OPEN → ADJUST → CLOSE: each step one activity, the answer is the step’s outcome', async () => {
    const { steps, calls } = shiftSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, opened, handle } = await open(temporal.client, taskQueue);
      expect(opened).toMatchObject({ id: input.shiftId, openingBalance: 100 });
      expect(await handle.query(cashShiftStateQuery)).toEqual({
        phase: 'OPEN',
        shiftId: input.shiftId,
        overdue: false,
      });
      const adjust = {
        movementId: randomUUID(),
        actor: member('admin'),
        direction: 'IN' as const,
        amount: 50,
        reason: 'float',
      };
      expect(await handle.executeUpdate(adjustShiftUpdate, { args: [adjust] })).toMatchObject({
        movementsIn: 50,
      });
      const closed = await handle.executeUpdate(closeShiftUpdate, {
        args: [{ actor: member('owner'), declaredAmount: 90 }],
      });
      expect(closed).toMatchObject({ status: 'CLOSED', expectedAmount: 100, difference: -10 });
      expect(await handle.result()).toMatchObject({ phase: 'CLOSED' });
      expect(calls.names()).toEqual(['openCashShift', 'adjustCashShift', 'closeCashShift']);
      expect(calls.inputsOf('adjustCashShift')).toEqual([{ shiftId: input.shiftId, ...adjust }]);
      expect((await handle.describe()).searchAttributes).toMatchObject({ ProcessStatus: ['CLOSED'] });
    });
  });

  it('a second OPEN while the shift runs cannot start another process', async () => {
    const { steps, calls } = shiftSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, handle } = await open(temporal.client, taskQueue);
      const again = { ...input, shiftId: randomUUID() };
      await expect(
        temporal.client.workflow.executeUpdateWithStart(openShiftUpdate, {
          args: [],
          startWorkflowOperation: startOperation(taskQueue, again),
        }),
      ).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
      expect(calls.names()).toEqual(['openCashShift']);
      await handle.executeUpdate(closeShiftUpdate, {
        args: [{ actor: member('owner'), declaredAmount: 100 }],
      });
      await handle.result();
    });
  });

  it('past its hours the shift is marked OVERDUE once and keeps waiting for a person to close it', async () => {
    const { steps, calls } = shiftSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, handle } = await open(temporal.client, taskQueue, 300);
      for (let attempt = 0; attempt < 40 && !calls.names().includes('markCashShiftOverdue'); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(calls.inputsOf('markCashShiftOverdue')).toEqual([{ shiftId: input.shiftId }]);
      // The activity was called; the workflow takes its completion in its next task.
      const state = await eventually(
        () => handle.query(cashShiftStateQuery),
        (shift) => shift.phase === 'OVERDUE',
        5_000,
      );
      expect(state).toMatchObject({ phase: 'OVERDUE', overdue: true });
      expect((await handle.describe()).status.name).toBe('RUNNING');
      const adjust = {
        movementId: randomUUID(),
        actor: member('admin'),
        direction: 'OUT' as const,
        amount: 5,
        reason: 'fuel',
      };
      await handle.executeUpdate(adjustShiftUpdate, { args: [adjust] });
      await handle.executeUpdate(closeShiftUpdate, {
        args: [{ actor: member('owner'), declaredAmount: 100 }],
      });
      expect(await handle.result()).toMatchObject({ phase: 'CLOSED' });
      expect(calls.names().filter((name) => name === 'markCashShiftOverdue')).toHaveLength(1);
    });
  });

  it('ends without a shift when the database refuses the OPEN (an open shift it does not know)', async () => {
    const refusing = shiftSteps({ refuseOpen: true });
    await temporal.withWorker(refusing.steps, async (taskQueue) => {
      const refused = await refusalOf(open(temporal.client, taskQueue));
      expect(refused).toMatchObject({ code: 'CASH_SHIFT_ALREADY_OPEN', status: 409 });
      const [input] = refusing.calls.inputsOf('openCashShift') as CashShiftInput[];
      const handle = temporal.client.workflow.getHandle(workflowIds.cashShift(input!.companyId));
      expect(await handle.result()).toMatchObject({ phase: 'NEW' });
    });
  });

  it('an ADJUST sent while the OPEN is still writing waits for it and runs after it; after a refused OPEN it is refused', async () => {
    for (const refuseOpen of [false, true]) {
      let release!: () => void;
      const openWaitsFor = new Promise<void>((resolve) => (release = resolve));
      const { steps, calls } = shiftSteps({ refuseOpen, openWaitsFor });
      await temporal.withWorker(steps, async (taskQueue) => {
        // Accepted, or refused by the database (refuseOpen): either way it settles once released.
        const opening = open(temporal.client, taskQueue).catch(() => null);
        expect(
          await eventually(
            async () => calls.names(),
            (names) => names.length > 0,
          ),
        ).toEqual(['openCashShift']);
        const [input] = calls.inputsOf('openCashShift') as CashShiftInput[];
        const handle = temporal.client.workflow.getHandle(workflowIds.cashShift(input!.companyId));
        // Admitted by its validator while the OPEN writes, before the OPEN may end the process.
        const admitted = await handle.startUpdate(adjustShiftUpdate, {
          args: [
            {
              movementId: randomUUID(),
              actor: member('admin'),
              direction: 'IN' as const,
              amount: 5,
              reason: 'float',
            },
          ],
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        const adjusting = admitted.result().then(
          (answer) => `ADJUSTED ${answer.movementsIn}`,
          async (error: unknown) => (await refusalOf(Promise.reject(error as Error))).code,
        );
        release();
        await opening;
        if (refuseOpen) {
          expect(await adjusting).toBe('CASH_SHIFT_NOT_OPEN');
          expect(calls.names()).toEqual(['openCashShift']);
        } else {
          expect(await adjusting).toBe('ADJUSTED 5');
          expect(calls.names()).toEqual(['openCashShift', 'adjustCashShift']);
        }
      });
    }
  });

  it('two racing CLOSEs: one closes, the other is refused CASH_SHIFT_NOT_OPEN', async () => {
    const { steps, calls } = shiftSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await open(temporal.client, taskQueue);
      const attempt = (staffUserId: string) =>
        handle
          .executeUpdate(closeShiftUpdate, { args: [{ actor: member(staffUserId), declaredAmount: 100 }] })
          .then(
            () => 'CLOSED',
            async (error: unknown) => (await refusalOf(Promise.reject(error as Error))).code,
          );
      const outcomes = await Promise.all([attempt('owner'), attempt('admin')]);
      expect(outcomes.sort()).toEqual(['CASH_SHIFT_NOT_OPEN', 'CLOSED']);
      expect(await handle.result()).toMatchObject({ phase: 'CLOSED' });
      expect(calls.names()).toEqual(['openCashShift', 'closeCashShift']);
    });
  });

  it('an ADJUST or CLOSE refused CASH_SHIFT_NOT_OPEN (its row closed under the run) ends the run CLOSED', async () => {
    for (const step of ['ADJUST', 'CLOSE'] as const) {
      const row: RowStatus = { status: 'OPEN' };
      const { steps, calls } = shiftSteps({ row });
      await temporal.withWorker(steps, async (taskQueue) => {
        const { input, handle } = await open(temporal.client, taskQueue);
        // A CLOSE that committed while its activity reported failure, or a restored database.
        row.status = step === 'ADJUST' ? 'CLOSED' : null;
        const sent =
          step === 'ADJUST'
            ? handle.executeUpdate(adjustShiftUpdate, {
                args: [
                  {
                    movementId: randomUUID(),
                    actor: member('admin'),
                    direction: 'IN',
                    amount: 5,
                    reason: 'float',
                  },
                ],
              })
            : handle.executeUpdate(closeShiftUpdate, {
                args: [{ actor: member('admin'), declaredAmount: 100 }],
              });
        expect(await refusalOf(sent)).toMatchObject({ code: 'CASH_SHIFT_NOT_OPEN', status: 409 });
        expect(await handle.result()).toEqual({ phase: 'CLOSED', shiftId: input.shiftId, overdue: false });
        expect((await handle.describe()).searchAttributes).toMatchObject({ ProcessStatus: ['CLOSED'] });
        expect(calls.names()).toEqual([
          'openCashShift',
          step === 'ADJUST' ? 'adjustCashShift' : 'closeCashShift',
        ]);
      });
    }
  });

  it('RECONCILE after the OPEN it waited for: the row OPEN, the run goes on; the row closed, the run ends CLOSED', async () => {
    let release!: () => void;
    const openWaitsFor = new Promise<void>((resolve) => (release = resolve));
    const row: RowStatus = { status: 'OPEN' };
    const { steps, calls } = shiftSteps({ openWaitsFor, row });
    await temporal.withWorker(steps, async (taskQueue) => {
      const opening = open(temporal.client, taskQueue);
      await waitUntil(
        async () => calls.names(),
        (names) => names.length > 0,
        20_000,
        'the OPEN step to be called',
      );
      const [input] = calls.inputsOf('openCashShift') as CashShiftInput[];
      const handle = temporal.client.workflow.getHandle(workflowIds.cashShift(input!.companyId));
      // Sent while another request's OPEN writes: it checks the row that OPEN wrote.
      const admitted = await handle.startUpdate(reconcileShiftUpdate, {
        args: [],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      release();
      await opening;
      const state = { phase: 'OPEN', shiftId: input!.shiftId, overdue: false };
      expect(await admitted.result()).toEqual(state);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      row.status = 'CLOSED';
      expect(await handle.executeUpdate(reconcileShiftUpdate, { args: [] })).toEqual({
        ...state,
        phase: 'CLOSED',
      });
      expect(await handle.result()).toEqual({ ...state, phase: 'CLOSED' });
      expect((await handle.describe()).searchAttributes).toMatchObject({ ProcessStatus: ['CLOSED'] });
      expect(calls.names()).toEqual(['openCashShift', 'readCashShiftStatus', 'readCashShiftStatus']);
      expect(calls.inputsOf('readCashShiftStatus')).toEqual([
        { shiftId: input!.shiftId },
        { shiftId: input!.shiftId },
      ]);
    });
  });

  it('continues as new after stepsPerRun steps: the new run holds the shift; ADJUST and CLOSE work on it', async () => {
    const { steps, calls } = shiftSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, opened, handle } = await open(temporal.client, taskQueue, 600_000, { stepsPerRun: 3 });
      const firstRun = (await handle.describe()).runId;
      for (const amount of [1, 2, 3, 4]) {
        const answer = await handle.executeUpdate(adjustShiftUpdate, {
          args: [
            { movementId: randomUUID(), actor: member('admin'), direction: 'IN', amount, reason: 'float' },
          ],
        });
        expect(answer).toMatchObject({ movementsIn: amount });
      }
      expect((await handle.describe()).runId).not.toBe(firstRun);
      expect(await handle.query(cashShiftStateQuery)).toEqual({
        phase: 'OPEN',
        shiftId: input.shiftId,
        overdue: false,
      });
      // An OPEN reaching the new run answers the shift's opening, with no second step.
      expect(await handle.executeUpdate(openShiftUpdate, { args: [] })).toEqual(opened);
      const closed = await handle.executeUpdate(closeShiftUpdate, {
        args: [{ actor: member('owner'), declaredAmount: 100 }],
      });
      expect(closed).toMatchObject({ status: 'CLOSED' });
      expect(await handle.result()).toMatchObject({ phase: 'CLOSED' });
      expect(calls.names()).toEqual([
        'openCashShift',
        ...Array<string>(4).fill('adjustCashShift'),
        'closeCashShift',
      ]);
      expect((await handle.describe()).searchAttributes).toMatchObject({ ProcessStatus: ['CLOSED'] });
    });
  });

  // Sent as the API sends them (api/temporal/process-calls.ts): the outcome read from the run that accepted
  // the Update, which may have continued as new by then.
  it('Updates sent while the run hands over reach the new run, each answered by its own step once', async () => {
    const { steps, calls } = shiftSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, handle } = await open(temporal.client, taskQueue, 600_000, { stepsPerRun: 2 });
      const amounts = Array.from({ length: 12 }, (_, index) => index + 1);
      const answers = await Promise.all(
        amounts.map((amount) =>
          executeOnAcceptingRun(handle, adjustShiftUpdate, {
            args: [
              { movementId: `m${amount}`, actor: member('admin'), direction: 'IN', amount, reason: 'float' },
            ],
          }),
        ),
      );
      expect(answers.map((answer) => answer.movementsIn)).toEqual(amounts);
      const adjusted = calls.inputsOf('adjustCashShift') as { movementId: string; shiftId: string }[];
      expect(adjusted.map((step) => step.movementId).sort()).toEqual(
        amounts.map((amount) => `m${amount}`).sort(),
      );
      expect(new Set(adjusted.map((step) => step.shiftId))).toEqual(new Set([input.shiftId]));
      await executeOnAcceptingRun(handle, closeShiftUpdate, {
        args: [{ actor: member('owner'), declaredAmount: 100 }],
      });
      expect(await handle.result()).toMatchObject({ phase: 'CLOSED' });
    });
  });

  it('an OVERDUE shift is handed over OVERDUE and is not marked again', async () => {
    const { steps, calls } = shiftSteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await open(temporal.client, taskQueue, 300, { stepsPerRun: 2 });
      await waitUntil(
        () => handle.query(cashShiftStateQuery),
        (shift) => shift.phase === 'OVERDUE',
        5_000,
        'the shift to turn OVERDUE',
      );
      const firstRun = (await handle.describe()).runId;
      for (const amount of [1, 2]) {
        await executeOnAcceptingRun(handle, adjustShiftUpdate, {
          args: [
            { movementId: randomUUID(), actor: member('admin'), direction: 'OUT', amount, reason: 'fuel' },
          ],
        });
      }
      const description = await handle.describe();
      expect(description.runId).not.toBe(firstRun);
      expect(description.searchAttributes).toMatchObject({ ProcessStatus: ['OVERDUE'] });
      expect(await handle.query(cashShiftStateQuery)).toMatchObject({ phase: 'OVERDUE', overdue: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
      await executeOnAcceptingRun(handle, closeShiftUpdate, {
        args: [{ actor: member('owner'), declaredAmount: 100 }],
      });
      expect(await handle.result()).toMatchObject({ phase: 'CLOSED' });
      expect(calls.names().filter((name) => name === 'markCashShiftOverdue')).toHaveLength(1);
    });
  });

  it('a run started before runs continued as new replays as it was recorded', async () => {
    // Recorded (binary protobuf, as the client fetched it) from the code before continue-as-new, with
    // stepsPerRun 2 in its input (that code ignores it): OPEN, the overdue mark, three ADJUSTs, CLOSE.
    await expect(
      replayRecordedHistory(new URL('./histories/cash-shift-before-continue-as-new.pb', import.meta.url)),
    ).resolves.toBeUndefined();
  });
});
