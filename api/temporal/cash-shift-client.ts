import { randomUUID } from 'node:crypto';
import { WorkflowUpdateStage, type Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import {
  adjustShiftUpdate,
  CASH_SHIFT_WORKFLOW,
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
import { Refusal } from '../http/errors.js';
import { processCalls } from './process-calls.js';
import { callUpdate, processEnded, type UpdateFailureAnswers } from './workflow-updates.js';

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
  unavailable: () => new Refusal(503, 'CASH_SHIFT_UNAVAILABLE', 'Cash shifts are busy; try again'),
};

/**
 * The API's side of the cash-shift workflow (id cash-shift/{companyId}). OPEN starts it with
 * update-with-start and the conflict policy FAIL: while the company's shift process runs, a second
 * OPEN cannot start one (409 CASH_SHIFT_ALREADY_OPEN). ADJUST and CLOSE are Updates whose answer
 * is the shift after the step.
 */
export function cashShiftClient(temporal: Client, config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>) {
  const shifts = processCalls(temporal, SHIFT_ANSWERS, config.TEMPORAL_TASK_QUEUE);

  const start = (input: CashShiftInput, updateId: string) =>
    shifts.start(openShiftUpdate, updateId, {
      workflowType: CASH_SHIFT_WORKFLOW,
      workflowId: workflowIds.cashShift(input.companyId),
      input,
      conflictPolicy: 'FAIL',
      process: { companyIds: [input.companyId] },
      memo: { shiftId: input.shiftId, openedBy: input.openedBy },
    });

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

    adjust(companyId: string, request: AdjustRequest): Promise<CashShiftSummary> {
      const updateId = `adjust:${request.movementId}`;
      return shifts.update(workflowIds.cashShift(companyId), adjustShiftUpdate, request, updateId);
    },

    close(companyId: string, request: CloseRequest): Promise<CashShiftSummary> {
      return shifts.update(workflowIds.cashShift(companyId), closeShiftUpdate, request);
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
