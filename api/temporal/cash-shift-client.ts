import { randomUUID } from 'node:crypto';
import { WorkflowUpdateStage, type Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import {
  adjustShiftUpdate,
  CASH_SHIFT_WORKFLOW,
  cashShiftStateQuery,
  closeShiftUpdate,
  openShiftUpdate,
  reconcileShiftUpdate,
  type AdjustRequest,
  type CashShiftInput,
  type CashShiftState,
  type CashShiftSummary,
  type CloseRequest,
} from '../../workflows/cash-shift.contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { databaseNow } from '../platform/state.js';
import { Refusal, unavailableFor } from '../http/errors.js';
import { processCalls } from './process-calls.js';
import {
  answeredInTime,
  callUpdate,
  processEnded,
  UPDATE_DEADLINE_MS,
  type UpdateFailureAnswers,
} from './workflow-updates.js';

const alreadyOpen = () =>
  new Refusal(409, 'CASH_SHIFT_ALREADY_OPEN', 'The company already has an open cash shift; close it first');
const notOpen = () =>
  new Refusal(409, 'CASH_SHIFT_NOT_OPEN', 'The company has no open cash shift; open one first');

/** No running shift process is "no open shift"; a second start while one runs is "already open". */
const SHIFT_ANSWERS: UpdateFailureAnswers = {
  ended: (error) => {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return alreadyOpen();
    if (processEnded(error)) return notOpen();
    return undefined;
  },
  unavailable: (retryAfterSeconds) =>
    unavailableFor('CASH_SHIFT_UNAVAILABLE', 'Cash shifts are busy; try again', retryAfterSeconds),
};

/**
 * A step must commit this long before the API stops waiting for it (UPDATE_DEADLINE_MS): a margin
 * for its commit, the answer's way back through Temporal and the clocks of the API and the
 * database (as a trip schedule's claim, trip-schedule-client.ts). A step that would commit later
 * refuses (CASH_SHIFT_STEP_LATE, nothing written), so the 503 that then ends the wait leaves no
 * movement, shift or close behind and the retry it asks for is free.
 */
const STEP_MARGIN_MS = 5_000;

/** The deadline (epoch ms) of a step sent now: its `stepBy`. */
const stepDeadline = () => databaseNow() + UPDATE_DEADLINE_MS - STEP_MARGIN_MS;

/**
 * How long a takeover waits for the company's run that holds no shift to end: a run whose OPEN the
 * database refused ends as soon as the steps queued behind that OPEN are answered.
 */
const RUN_END_WAIT_MS = 5_000;

/** A step refused past its deadline wrote nothing: to the caller, the 503 that asks for a retry. */
const inTime = <T>(step: Promise<T>) => answeredInTime(step, 'CASH_SHIFT_STEP_LATE', SHIFT_ANSWERS);

/**
 * The API's side of the cash-shift workflow (id cash-shift/{companyId}). OPEN starts it with
 * update-with-start and the conflict policy FAIL: while the company's shift process runs, a second
 * OPEN cannot start one (409 CASH_SHIFT_ALREADY_OPEN). ADJUST and CLOSE are Updates whose answer
 * is the shift after the step. Each step carries its deadline (`stepBy`, STEP_MARGIN_MS): one that
 * would commit after the wait has ended writes nothing, and is answered 503 CASH_SHIFT_UNAVAILABLE.
 */
export function cashShiftClient(temporal: Client, config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>) {
  const shifts = processCalls(temporal, SHIFT_ANSWERS, config.TEMPORAL_TASK_QUEUE);

  const start = (input: CashShiftInput, updateId: string) =>
    inTime(
      shifts.start(openShiftUpdate, updateId, {
        workflowType: CASH_SHIFT_WORKFLOW,
        workflowId: workflowIds.cashShift(input.companyId),
        input: { ...input, stepBy: stepDeadline() },
        conflictPolicy: 'FAIL',
        process: { companyIds: [input.companyId] },
        memo: { shiftId: input.shiftId, openedBy: input.openedBy },
      }),
    );

  return {
    open(input: CashShiftInput): Promise<CashShiftSummary> {
      return start(input, `open:${input.shiftId}`);
    },

    /**
     * Starts a process again for a shift the database holds open (its last run ended). The Update
     * id is new each time: the id of an OPEN that an ended run completed would be answered from
     * that run, starting none.
     */
    resume(input: CashShiftInput): Promise<CashShiftSummary> {
      return start(input, `resume:${input.shiftId}:${randomUUID()}`);
    },

    /**
     * The Update id is the call's own: a run keeps each Update's outcome, a refusal included, and
     * answers it to any Update of that id, so a movement id sent again (an ADJUST repeated under its
     * Idempotency-Key after a 409 or a 503) would get that refusal whatever the shift holds now. The
     * movement id makes the step once: adjustShift answers a movement already recorded.
     */
    adjust(companyId: string, request: AdjustRequest): Promise<CashShiftSummary> {
      const updateId = `adjust:${request.movementId}:${randomUUID()}`;
      const step = { ...request, stepBy: stepDeadline() };
      return inTime(shifts.update(workflowIds.cashShift(companyId), adjustShiftUpdate, step, updateId));
    },

    close(companyId: string, request: CloseRequest): Promise<CashShiftSummary> {
      const step = { ...request, stepBy: stepDeadline() };
      return inTime(shifts.update(workflowIds.cashShift(companyId), closeShiftUpdate, step));
    },

    /**
     * Whether the company's running process takes steps for shift `shiftId`: its run is that
     * shift's (a step queues behind an OPEN still being written), or holds an open shift (phase
     * OPEN or OVERDUE). Any other run holds no shift and is ending (NEW: an OPEN of another shift
     * the database refuses; CLOSED: its shift just closed): it is waited for, up to
     * RUN_END_WAIT_MS, and the answer is false, as with no running process.
     */
    async runsShift(companyId: string, shiftId: string): Promise<boolean> {
      const workflowId = workflowIds.cashShift(companyId);
      try {
        return await temporal.withDeadline(Date.now() + RUN_END_WAIT_MS, async () => {
          const { runId, status } = await temporal.workflow.getHandle(workflowId).describe();
          if (status.name !== 'RUNNING') return false;
          // That run, not a later one a concurrent takeover may start meanwhile.
          const run = temporal.workflow.getHandle(workflowId, runId);
          const state = await run.query(cashShiftStateQuery);
          if (state.shiftId === shiftId || state.phase === 'OPEN' || state.phase === 'OVERDUE') return true;
          await run.result();
          return false;
        });
      } catch {
        // Gone, still running at the limit, or Temporal not answering: the resume and the step
        // sent next answer for the process as they find it.
        return false;
      }
    },

    /**
     * Asks the company's running process to check its shift's row: one no longer OPEN ends the run
     * (phase CLOSED in the answer). The outcome is read from the run that accepted the Update.
     */
    reconcile(companyId: string): Promise<CashShiftState> {
      const handle = temporal.workflow.getHandle(workflowIds.cashShift(companyId));
      return callUpdate(temporal, SHIFT_ANSWERS, async () => {
        const accepted = await handle.startUpdate(reconcileShiftUpdate, {
          args: [],
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        return accepted.result();
      });
    },
  };
}

export type CashShiftClient = ReturnType<typeof cashShiftClient>;
