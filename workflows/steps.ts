import {
  ApplicationFailure,
  proxyActivities,
  upsertSearchAttributes,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { Refusable } from '../domain/refusal.js';
import { searchAttributeKeys } from './shared.js';

/**
 * Pieces every long-lived process here shares: how its activities retry, how a business refusal
 * reaches the Update caller, how a deadline is waited for, and the state base class that runs one
 * step at a time and shows its phase to operators.
 */

/** The worker's activities, as the workflows see them (types only). */
export type Activities = ReturnType<typeof createActivities>;

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

/** The activities that enforce time (hold expiry, decision deadline, link and session expiry). */
export const enforcing = proxyActivities<Activities>(ENFORCING_STEP);

/**
 * Milliseconds from now (workflow time) until `instant` (epoch milliseconds), the timeout of a
 * `condition` that waits for a deadline. At least 1: a zero timeout would mean "no timeout" to
 * SDKs before 1.5 and records a patch marker in newer ones.
 */
export function millisecondsUntil(instant: number): number {
  return Math.max(1, instant - Date.now());
}

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

/** The refusal builder of one process: its codes and their HTTP status. */
export function refuser<Code extends string>(statuses: Readonly<Record<Code, number>>) {
  return (code: Code, message: string): ApplicationFailure => refusal(code, message, statuses[code]);
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

/**
 * The state of one long-lived process: its phase, shown to operators as the ProcessStatus search
 * attribute, and the step queue its Update handlers and deadline follow-ups share. Each process's
 * subclass holds the handler bodies as methods; the workflow function only wires them up.
 */
export class PhasedProcess<Phase extends string> extends StepQueue {
  private current: Phase;

  constructor(initial: Phase) {
    super();
    this.current = initial;
  }

  get phase(): Phase {
    return this.current;
  }

  protected enter(phase: Phase): void {
    if (this.current === phase) return;
    this.current = phase;
    upsertSearchAttributes([{ key: searchAttributeKeys.processStatus, value: phase }]);
  }
}
