import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { processSearchAttributes } from '../../workflows/shared.js';
import { callUpdate, type UpdateFailureAnswers } from './workflow-updates.js';

/** How one process workflow starts: its id, queue, input, conflict policy and what operators see of it. */
export interface ProcessStart {
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  input: unknown;
  /** FAIL: a running process refuses a second start; USE_EXISTING: the Update goes to the running one. */
  conflictPolicy: 'FAIL' | 'USE_EXISTING';
  /** The CompanyId (and BookingId: the booking's ids) search attributes; ProcessStatus starts as NEW. */
  process: { companyIds: string[]; bookingIds?: (string | null | undefined)[] };
  memo: Record<string, unknown>;
}

/**
 * Update-with-start: starts the process workflow (or reaches the running one, by the conflict policy)
 * and sends it the Update `updateId` with no arguments, whose answer is the caller's. Failures are
 * named as callUpdate names them.
 */
export function startWithUpdate<Ret>(
  temporal: Client,
  answers: UpdateFailureAnswers,
  update: UpdateDefinition<Ret, []>,
  updateId: string,
  start: ProcessStart,
): Promise<Ret> {
  const startWorkflowOperation = new WithStartWorkflowOperation(start.workflowType, {
    workflowId: start.workflowId,
    taskQueue: start.taskQueue,
    args: [start.input],
    workflowIdConflictPolicy: start.conflictPolicy,
    typedSearchAttributes: processSearchAttributes({ ...start.process, status: 'NEW' }),
    memo: start.memo,
  });
  return callUpdate(temporal, answers, () =>
    temporal.workflow.executeUpdateWithStart(update, { args: [], updateId, startWorkflowOperation }),
  );
}
