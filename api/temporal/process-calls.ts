import type { Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { startWithUpdate, type ProcessStart } from './start-with-update.js';
import { callUpdate, executeOnAcceptingRun, type UpdateFailureAnswers } from './workflow-updates.js';

/**
 * The two calls a process workflow's client makes, each failure named by the client's `answers`:
 * `start` begins the process on the task queue with its first Update (update-with-start), `update`
 * sends one Update with one argument to the running process `workflowId`.
 */
export function processCalls(temporal: Client, answers: UpdateFailureAnswers, taskQueue: string) {
  return {
    start<Ret>(
      update: UpdateDefinition<Ret, []>,
      updateId: string,
      start: Omit<ProcessStart, 'taskQueue'>,
    ): Promise<Ret> {
      return startWithUpdate(temporal, answers, update, updateId, { ...start, taskQueue });
    },

    update<Ret, Arg>(
      workflowId: string,
      update: UpdateDefinition<Ret, [Arg]>,
      arg: Arg,
      updateId?: string,
    ): Promise<Ret> {
      return callUpdate(temporal, answers, () =>
        executeOnAcceptingRun(temporal.workflow.getHandle(workflowId), update, { args: [arg], updateId }),
      );
    },
  };
}
