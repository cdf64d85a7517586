import {
  isGrpcServiceError,
  ServiceError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
import { Refusal, unavailableFor } from '../http/errors.js';

/** An Update that takes longer than this is abandoned by the caller: 503, and the client may retry. */
export const UPDATE_DEADLINE_MS = 25_000;

/** How a workflow client names its own answers when the process is gone or Temporal cannot answer. */
export interface UpdateFailureAnswers {
  /** The process has ended (or never ran): the API error for that. */
  ended: (error: unknown) => Refusal | undefined;
  /**
   * The Update ran but failed for want of its database, or Temporal did not answer in time: a 503
   * with Retry-After (api/http/errors.ts unavailableFor), `retryAfterSeconds` unless the default.
   */
  unavailable: (retryAfterSeconds?: number) => Refusal;
}

/** Answers for a process whose end means nothing to the caller: only Temporal's silence is 503 `errorCode`. */
export const unavailableAnswers = (errorCode: string, message: string): UpdateFailureAnswers => ({
  ended: () => undefined,
  unavailable: (retryAfterSeconds) => unavailableFor(errorCode, message, retryAfterSeconds),
});

/**
 * A step that carries its deadline (a cash-shift step's `stepBy`, a share accept's `acceptBy`) and
 * was refused past it (`lateCode`, nothing written): to the caller, the `answers`' 503 that asks for
 * a retry, since the wait for it was ending anyway. Other failures pass as they came.
 */
export function answeredInTime<T>(
  step: Promise<T>,
  lateCode: string,
  answers: UpdateFailureAnswers,
): Promise<T> {
  return step.catch((error: unknown) => {
    throw error instanceof Refusal && error.code === lateCode ? answers.unavailable() : error;
  });
}

/**
 * Runs an Update call within the deadline (UPDATE_DEADLINE_MS unless the caller needs less) and
 * turns its failure into the API's answer: a business refusal the workflow threw
 * (workflows/steps.ts `refusal`: type = errorCode, first detail = {status, details}) keeps its
 * errorCode, status and details; then `answers` decide. Anything else is thrown as it came.
 */
export async function callUpdate<T>(
  temporal: Client,
  answers: UpdateFailureAnswers,
  work: () => Promise<T>,
  deadlineMs = UPDATE_DEADLINE_MS,
): Promise<T> {
  try {
    return await temporal.withDeadline(Date.now() + deadlineMs, work);
  } catch (error) {
    throw apiErrorOf(error, answers);
  }
}

function apiErrorOf(error: unknown, answers: UpdateFailureAnswers): unknown {
  const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
  const [facts] = (cause instanceof ApplicationFailure ? (cause.details ?? []) : []) as (
    { status?: number; details?: Record<string, unknown> } | undefined
  )[];
  if (cause instanceof ApplicationFailure && cause.type && typeof facts?.status === 'number') {
    return new Refusal(facts.status, cause.type, cause.message, facts.details);
  }
  const ended = answers.ended(error);
  if (ended) return ended;
  // A bare gRPC error is Temporal's answer too: the SDK throws Update-with-Start's failures (its
  // MultiOperationExecutionFailure) unwrapped, such as FAILED_PRECONDITION "Workflow Task in failed
  // state" from a run whose workflow task keeps failing. The run may take the Update once its task
  // goes through (a worker fixed, redeployed): 503, as for a ServiceError, not 500.
  if (
    error instanceof WorkflowUpdateFailedError ||
    error instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
    error instanceof ServiceError ||
    isGrpcServiceError(error)
  ) {
    return answers.unavailable();
  }
  return error;
}

/**
 * The process is gone: it never ran (WorkflowNotFoundError), or its run has closed, which Temporal
 * answers an Update with as FAILED_PRECONDITION / NOT_FOUND "workflow execution already completed".
 */
export function processEnded(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  if (!(error instanceof Error)) return false;
  const cause = error.cause instanceof Error ? error.cause.message : '';
  return /already completed/i.test(`${error.message} ${cause}`);
}

/**
 * Sends an Update and reads its outcome from the run that accepted it. `executeUpdate` polls the
 * workflow's latest run for an outcome the first call did not bring back; when the accepting run
 * has continued as new meanwhile (a cash shift hands over every CASH_SHIFT_STEPS_PER_RUN steps),
 * that poll answers "update not found" although the step ran. Accepted first, then its result:
 * the Update handle names the accepting run and polls it.
 */
export async function executeOnAcceptingRun<Ret, Arg>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, [Arg]>,
  options: { args: [Arg]; updateId?: string },
): Promise<Ret> {
  const accepted = await handle.startUpdate(update, {
    ...options,
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
  return accepted.result();
}
