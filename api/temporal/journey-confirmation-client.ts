import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import { decisionsDueAt, type AwaitedDecision } from '../../domain/journey-confirmation.js';
import {
  decidedSignal,
  JOURNEY_CONFIRMATION_WORKFLOW,
  type ConfirmationScope,
  type DecidedNotice,
  type JourneyConfirmationInput,
} from '../../workflows/journey-confirmation.contract.js';
import { confirmationWorkflowId, processSearchAttributes } from '../../workflows/shared.js';
import { Refusal, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/errors.js';
import { callUpdate, unavailableAnswers } from './workflow-updates.js';

/**
 * The API's side of the journey-confirmation workflow, which runs only while companies decide: a
 * REQUESTED confirm starts it, delayed until shortly before the earliest decision deadline (holds,
 * automatic confirms and decisions are plain transactions, api/use-cases/), and each committed
 * decision wakes it with a signal. Temporal unreachable at the start is 503 (the confirm rolls back
 * and the client may retry with the same idempotency key).
 */
const START_FAILURE_ANSWERS = unavailableAnswers(
  'CONFIRMATION_UNAVAILABLE',
  'The booking service is busy; try again with the same idempotency key',
);

/**
 * How long the start may take. It runs inside the confirm's transaction, which holds a pooled
 * connection and the scope's lock meanwhile: with Temporal down, the client's retries would keep
 * both for about 20 s, and a handful of confirms would take every connection of the process from
 * every other request (test/drills/temporal-outage.test.ts). A start normally takes milliseconds.
 */
export const START_IN_TRANSACTION_DEADLINE_MS = 3_000;

/**
 * After a start found Temporal unreachable, this client refuses the starts of the next seconds at
 * once (the same 503) instead of holding a transaction for each one until its deadline; the first
 * start after the pause asks Temporal again.
 */
export const START_PAUSE_AFTER_FAILURE_MS = 5_000;

/**
 * The Retry-After of a refused start: what is left of the pause (a retry sooner is refused at once
 * again), and never less than a dependency's usual UNAVAILABLE_RETRY_AFTER_SECONDS.
 */
export const startRetryAfterSeconds = (unreachableUntil: number, now: number): number =>
  Math.max(UNAVAILABLE_RETRY_AFTER_SECONDS, Math.ceil((unreachableUntil - now) / 1000));

export interface StartContext {
  scope: ConfirmationScope;
  ownerUserId: string;
  companyIds: string[];
  /** Every id of the scope's booking (db/queries/process-ids.ts): its BookingId search attribute. */
  processIds: string[];
  /** The companies whose decision is awaited and the time each has left. */
  awaiting: AwaitedDecision[];
}

/**
 * How long before the earliest decision deadline the start delay ends when no decision came first:
 * the process is then made and waits in the worker's cache on a timer, so the deadline itself costs
 * only the timer's workflow task and its transaction. Many deadlines falling together (a burst of
 * confirms a window ago) are released on time because the dearer first tasks ran a minute earlier.
 * Real time, not scaled by TIME_SCALE: a window shorter than this starts the process at once.
 */
export const DECISION_WAKE_LEAD_MS = 60_000;

export function journeyConfirmationClient(
  temporal: Client,
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TIME_SCALE'>,
  wakeLeadMs = DECISION_WAKE_LEAD_MS,
) {
  // BookingId: the scope's id and, when the caller knows them, its journeys' and booking rows' ids.
  const startOptions = (input: JourneyConfirmationInput, processIds: string[] = []) => ({
    workflowId: confirmationWorkflowId(input.scope),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [input] as [JourneyConfirmationInput],
    typedSearchAttributes: processSearchAttributes({
      companyIds: input.companyIds,
      bookingIds: [input.scope.id, ...processIds],
      status: 'REQUESTED',
    }),
    memo: { ownerUserId: input.ownerUserId, scopeKind: input.scope.kind },
  });

  // Until when starts are refused without asking Temporal (START_PAUSE_AFTER_FAILURE_MS).
  let unreachableUntil = 0;

  return {
    /**
     * Starts the scope's process for the company decisions of a REQUESTED confirm, called inside
     * the confirm's transaction. Its first workflow task waits (start delay) for a decision's signal
     * or until `wakeLeadMs` before the earliest deadline, whichever comes first; if the confirm
     * rolls back after all, the process finds the scope not REQUESTED at the deadline and ends.
     */
    async awaitDecisions(start: StartContext): Promise<void> {
      if (Date.now() < unreachableUntil) {
        throw START_FAILURE_ANSWERS.unavailable(startRetryAfterSeconds(unreachableUntil, Date.now()));
      }
      const input: JourneyConfirmationInput = {
        scope: start.scope,
        ownerUserId: start.ownerUserId,
        companyIds: start.companyIds,
        timeScale: config.TIME_SCALE,
        decisionsDue: decisionsDueAt(start.awaiting, Date.now()),
      };
      const earliest = Math.min(...start.awaiting.map((awaited) => awaited.remainingMilliseconds));
      const delay = earliest - wakeLeadMs;
      try {
        await callUpdate(
          temporal,
          START_FAILURE_ANSWERS,
          () =>
            temporal.workflow.start(JOURNEY_CONFIRMATION_WORKFLOW, {
              ...startOptions(input, start.processIds),
              workflowIdConflictPolicy: 'USE_EXISTING',
              ...(delay > 0 ? { startDelay: delay } : {}),
            }),
          START_IN_TRANSACTION_DEADLINE_MS,
        );
      } catch (error) {
        if (error instanceof Refusal && error.status === 503) {
          const now = Date.now();
          unreachableUntil = now + START_PAUSE_AFTER_FAILURE_MS;
          throw START_FAILURE_ANSWERS.unavailable(startRetryAfterSeconds(unreachableUntil, now));
        }
        throw error;
      }
    },

    /**
     * Wakes the scope's process after a decision committed (signal-with-start ends its start
     * delay). A process that has ended is not started again; any other failure is the caller's to
     * log: the process settles the scope from the database at its deadline all the same.
     */
    async noteDecision(decided: DecidedContext, notice: DecidedNotice): Promise<void> {
      const input: JourneyConfirmationInput = {
        scope: decided.scope,
        ownerUserId: decided.ownerUserId,
        companyIds: [decided.companyId],
        timeScale: config.TIME_SCALE,
        decisionsDue: [],
      };
      try {
        await temporal.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, () =>
          temporal.workflow.signalWithStart(JOURNEY_CONFIRMATION_WORKFLOW, {
            ...startOptions(input),
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            signal: decidedSignal,
            signalArgs: [notice],
          }),
        );
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    },
  };
}

export interface DecidedContext {
  scope: ConfirmationScope;
  /** The scope's owner and the deciding company: the input of a process the signal would start. */
  ownerUserId: string;
  companyId: string;
}

/** A decision's signal that takes longer than this is given up (the deadline settles the scope). */
const SIGNAL_DEADLINE_MS = 10_000;

export type JourneyConfirmationClient = ReturnType<typeof journeyConfirmationClient>;
