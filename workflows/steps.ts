import {
  ApplicationFailure,
  condition,
  proxyActivities,
  proxyLocalActivities,
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

/** Steps a caller waits for (a share's open, accept, revoke) as ordinary activities. */
export const answering = proxyActivities<Activities>(ANSWERING_STEP);

/**
 * Steps a caller waits for as local activities (the journey's hold, release, confirm, decide):
 * each is one short transaction, run by the worker inside the workflow task that accepted the
 * Update, so the Update completes in that task without the activity task's own round trips
 * through the server (schedule, poll, start, complete, a second workflow task). Retries and the
 * at-least-once guarantee are those of an activity; every step is idempotent.
 */
export const answeringLocally = proxyLocalActivities<Activities>(ANSWERING_STEP);

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
 * attribute, the refusals its validators make (each code with its HTTP status), and the step
 * queue its Update handlers and deadline follow-ups share. Each process's subclass holds the
 * handler bodies as methods; the workflow function only wires them up.
 */
export class PhasedProcess<Phase extends string, Code extends string> extends StepQueue {
  private current: Phase;

  constructor(
    initial: Phase,
    private readonly refusals: Readonly<Record<Code, number>>,
  ) {
    super();
    this.current = initial;
  }

  get phase(): Phase {
    return this.current;
  }

  /** The phase the process's starter already shows (it set the search attribute at the start). */
  protected startIn(phase: Phase): void {
    this.current = phase;
  }

  protected enter(phase: Phase): void {
    if (this.current === phase) return;
    this.current = phase;
    upsertSearchAttributes([{ key: searchAttributeKeys.processStatus, value: phase }]);
  }

  /** A refusal of this process, with its code's HTTP status. */
  protected refuse(code: Code, message: string): ApplicationFailure {
    return refusal(code, message, this.refusals[code]);
  }
}

/**
 * A process that its opening Update starts (update-with-start: a share's or a shift's OPEN, a
 * journey's first hold): NEW until that Update succeeds. One the database refuses leaves it NEW
 * with nothing to wait for, so the process then ends.
 */
export class OpenedProcess<Phase extends string, Code extends string> extends PhasedProcess<
  Phase | 'NEW',
  Code
> {
  private openAttempted = false;

  constructor(refusals: Readonly<Record<Code, number>>) {
    super('NEW', refusals);
  }

  /** The opening handler calls this first, before its step waits in the queue. */
  protected noteOpenAttempt(): void {
    this.openAttempted = true;
  }

  /** An open is being written: tried, the phase still NEW, and a step running or queued. */
  protected get opening(): boolean {
    return this.phase === 'NEW' && this.openAttempted && !this.idle;
  }

  /** Until the open has settled: succeeded (the phase left NEW), or tried and refused with no step running. */
  openSettled(): Promise<void> {
    return condition(() => this.phase !== 'NEW' || (this.openAttempted && this.idle));
  }
}
