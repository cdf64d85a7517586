import { ApplicationFailure, type ActivityOptions } from '@temporalio/workflow';
import type { Refusable } from '../domain/refusal.js';

/**
 * Pieces every long-lived process here shares: how its activities retry, how a business refusal
 * reaches the Update caller, and the queue that runs one step at a time.
 */

/** Steps a caller waits for: a few quick retries, then the Update fails and the caller may retry. */
export const ANSWERING_STEP: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 5 },
};

/** Steps that enforce time (expiries, deadlines): retried until they happen. */
export const ENFORCING_STEP: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
};

/**
 * A business refusal as the failure an Update caller receives: type = errorCode, details =
 * [{status, details?}], never retried. The API turns it back into the HTTP answer.
 */
export function refusal(
  type: string,
  message: string,
  status: number,
  details?: unknown,
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    details: [{ status, ...(details === undefined ? {} : { details }) }],
    nonRetryable: true,
  });
}

/**
 * The result of an activity, or its business refusal thrown as the typed failure the Update
 * caller receives (type = errorCode, details = [{status, details}]).
 */
export function accepted<T>(result: Refusable<T>): T {
  if (!result.refused) return result.done;
  const { status, code, message, details } = result.refused;
  throw refusal(code, message, status, details);
}

/**
 * Runs the process's steps one at a time in arrival order (Update handlers and the follow-ups of
 * its timers), so that, say, a confirm and the hold's expiry never overlap. `idle` tells the
 * workflow it may end without cutting a step short.
 */
export class StepQueue {
  private busy = 0;
  private tail: Promise<unknown> = Promise.resolve();

  get idle(): boolean {
    return this.busy === 0;
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.busy += 1;
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run.finally(() => {
      this.busy -= 1;
    });
  }
}
