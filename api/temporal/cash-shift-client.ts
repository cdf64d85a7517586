import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import {
  adjustShiftUpdate,
  CASH_SHIFT_WORKFLOW,
  closeShiftUpdate,
  openShiftUpdate,
  type AdjustRequest,
  type CashShiftInput,
  type CashShiftSummary,
  type CloseRequest,
} from '../../workflows/cash-shift.contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { Refusal } from '../http/errors.js';
import { startWithUpdate } from './start-with-update.js';
import { callUpdate, completedWorkflow, type UpdateFailureAnswers } from './workflow-updates.js';

const alreadyOpen = () =>
  new Refusal(409, 'CASH_SHIFT_ALREADY_OPEN', 'The company already has an open cash shift; close it first');
const notOpen = () =>
  new Refusal(409, 'CASH_SHIFT_NOT_OPEN', 'The company has no open cash shift; open one first');

/** No running shift process is "no open shift"; a second start while one runs is "already open". */
const SHIFT_ANSWERS: UpdateFailureAnswers = {
  ended: (error) => {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return alreadyOpen();
    if (error instanceof WorkflowNotFoundError || completedWorkflow(error)) return notOpen();
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
  const handle = (companyId: string) => temporal.workflow.getHandle(workflowIds.cashShift(companyId));
  const calling = <T>(work: () => Promise<T>) => callUpdate(temporal, SHIFT_ANSWERS, work);

  return {
    open(input: CashShiftInput): Promise<CashShiftSummary> {
      return startWithUpdate(temporal, SHIFT_ANSWERS, openShiftUpdate, `open:${input.shiftId}`, {
        workflowType: CASH_SHIFT_WORKFLOW,
        workflowId: workflowIds.cashShift(input.companyId),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        input,
        conflictPolicy: 'FAIL',
        process: { companyIds: [input.companyId] },
        memo: { shiftId: input.shiftId, openedBy: input.openedBy },
      });
    },

    adjust(companyId: string, request: AdjustRequest): Promise<CashShiftSummary> {
      return calling(() =>
        handle(companyId).executeUpdate(adjustShiftUpdate, {
          args: [request],
          updateId: `adjust:${request.movementId}`,
        }),
      );
    },

    close(companyId: string, request: CloseRequest): Promise<CashShiftSummary> {
      return calling(() => handle(companyId).executeUpdate(closeShiftUpdate, { args: [request] }));
    },
  };
}

export type CashShiftClient = ReturnType<typeof cashShiftClient>;
