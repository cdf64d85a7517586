import {
  allHandlersFinished,
  condition,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { scaledMilliseconds } from '../domain/journey-confirmation.js';
import {
  confirmUpdate,
  decideUpdate,
  holdUpdate,
  REFUSAL_STATUS,
  releaseHoldUpdate,
  searchAttributeKeys,
  stateQuery,
  type JourneyConfirmationInput,
  type ProcessPhase,
  type ProcessState,
  type RefusalCode,
} from './journey-confirmation.contract.js';
import { accepted, ANSWERING_STEP, ENFORCING_STEP, refusal, StepQueue } from './steps.js';

type Activities = ReturnType<typeof createActivities>;

/**
 * Steps a caller waits for: a few quick retries, then the Update fails and the caller may retry.
 * Local activities: each is one short transaction, run by the worker inside the workflow task
 * that accepted the Update, so the Update completes in that task without the activity task's
 * own round trips through the server (schedule, poll, start, complete, a second workflow task).
 * Retries and the at-least-once guarantee are those of an activity; every step is idempotent.
 */
const answering = proxyLocalActivities<Activities>(ANSWERING_STEP);

/** Steps that enforce time (hold expiry, decision deadline): retried until they happen. */
const enforcing = proxyActivities<Activities>(ENFORCING_STEP);

const refuse = (type: RefusalCode, message: string) => refusal(type, message, REFUSAL_STATUS[type]);

/**
 * The state of one confirmation scope, and a lock: Update handlers and the timers' follow-ups
 * each run their step alone, in arrival order, so a confirm and the hold's expiry never overlap.
 */
class ConfirmationState extends StepQueue {
  phase: ProcessPhase = 'NEW';
  holdBatchId: string | null = null;
  holdExpiresAt: string | null = null;
  deadline: string | null = null;
  readonly pending = new Set<string>();
  holdAttempted = false;
  /** The batch whose hold time ran out (set by its timer). */
  holdTimedOut: string | null = null;
  deadlinePassed = false;
  enter(phase: ProcessPhase): void {
    if (this.phase === phase) return;
    this.phase = phase;
    upsertSearchAttributes([{ key: searchAttributeKeys.processStatus, value: phase }]);
  }

  snapshot(): ProcessState {
    return {
      phase: this.phase,
      holdBatchId: this.holdBatchId,
      holdExpiresAt: this.holdExpiresAt,
      deadline: this.deadline,
      pendingCompanies: [...this.pending].sort(),
    };
  }
}

const HOLDABLE: readonly ProcessPhase[] = ['NEW', 'RELEASED', 'EXPIRED'];

/**
 * One journey's or order's confirmation (id journey-confirmation/{scopeId}), started by its first
 * hold through update-with-start. HELD: waits for confirm, release, or the hold's expiry.
 * REQUESTED: waits until every company that confirms manually has decided, or the earliest
 * pending decision deadline passes (then the whole scope is cancelled). Every transition is one
 * activity (one transaction). The process ends once nothing is left to wait for; a new hold
 * after a release or expiry starts a new run under the same id.
 */
export async function journeyConfirmation(input: JourneyConfirmationInput): Promise<ProcessState> {
  const { scope, timeScale } = input;
  const state = new ConfirmationState();

  setHandler(stateQuery, () => state.snapshot());

  setHandler(
    holdUpdate,
    (request) => {
      state.holdAttempted = true;
      log.debug('hold requested', { requestId: request.requestId, phase: state.phase });
      return state.exclusive(async () => {
        if (!HOLDABLE.includes(state.phase)) throw refuseHold(state.phase);
        const holdMilliseconds = scaledMilliseconds(request.holdMinutes, timeScale);
        const hold = accepted(
          await answering.placeJourneyHold({
            scope,
            holdBatchId: uuid4(),
            holdMilliseconds,
            ownerUserId: input.ownerUserId,
          }),
        );
        state.holdBatchId = hold.holdBatchId;
        state.holdExpiresAt = hold.expiresAt;
        state.holdTimedOut = null;
        state.enter('HELD');
        void sleep(holdMilliseconds).then(() => {
          if (state.holdBatchId === hold.holdBatchId) state.holdTimedOut = hold.holdBatchId;
        });
        return hold;
      });
    },
    {
      validator: (_request) => {
        if (!HOLDABLE.includes(state.phase)) throw refuseHold(state.phase);
      },
    },
  );

  setHandler(
    releaseHoldUpdate,
    (request) =>
      state.exclusive(async () => {
        requireActiveHold(state, request.holdBatchId);
        accepted(await answering.releaseJourneyHold({ scope, holdBatchId: request.holdBatchId }));
        state.enter('RELEASED');
        return { holdBatchId: request.holdBatchId, status: 'RELEASED' as const };
      }),
    { validator: (request: { holdBatchId: string }) => requireActiveHold(state, request.holdBatchId) },
  );

  setHandler(
    confirmUpdate,
    (request) =>
      state.exclusive(async () => {
        requireActiveHold(state, request.holdBatchId);
        const outcome = accepted(
          await answering.confirmJourneyScope({
            scope,
            holdBatchId: request.holdBatchId,
            journeys: request.journeys,
            channel: request.channel,
            timeScale,
          }),
        );
        if (outcome.status === 'CONFIRMED') {
          state.enter('CONFIRMED');
        } else {
          state.deadline = outcome.deadline;
          for (const awaited of outcome.awaiting) {
            state.pending.add(awaited.companyId);
            // Each company has its own window; any one running out cancels the scope.
            void sleep(awaited.remainingMilliseconds).then(() => {
              if (state.pending.has(awaited.companyId)) state.deadlinePassed = true;
            });
          }
          state.enter('REQUESTED');
        }
        return { status: outcome.status, deadline: outcome.deadline };
      }),
    { validator: (request: { holdBatchId: string }) => requireActiveHold(state, request.holdBatchId) },
  );

  setHandler(
    decideUpdate,
    (decision) =>
      state.exclusive(async () => {
        requireOpenRequest(state, decision.companyId);
        const result = accepted(await answering.recordCompanyDecision({ scope, ...decision }));
        state.pending.clear();
        for (const companyId of result.pendingCompanyIds) state.pending.add(companyId);
        if (result.outcome !== 'REQUESTED') state.enter(result.outcome);
        return { companyId: decision.companyId, decision: decision.decision, outcome: result.outcome };
      }),
    { validator: (decision: { companyId: string }) => requireOpenRequest(state, decision.companyId) },
  );

  // The first hold arrives with the start; a refused one leaves nothing to wait for.
  await condition(() => state.phase !== 'NEW' || (state.holdAttempted && state.idle));
  for (;;) {
    await condition(() => state.idle);
    if (state.phase === 'HELD') {
      const batch = state.holdBatchId;
      await condition(
        () => state.phase !== 'HELD' || state.holdBatchId !== batch || state.holdTimedOut === batch,
      );
      await state.exclusive(async () => {
        if (state.phase !== 'HELD' || state.holdBatchId !== batch || state.holdTimedOut !== batch) return;
        await enforcing.expireJourneyHold({ scope, holdBatchId: batch! });
        state.enter('EXPIRED');
      });
      continue;
    }
    if (state.phase === 'REQUESTED') {
      await condition(() => state.phase !== 'REQUESTED' || state.deadlinePassed);
      await state.exclusive(async () => {
        if (state.phase !== 'REQUESTED') return;
        const { status } = await enforcing.expireCompanyDecisions({ scope });
        state.pending.clear();
        state.enter(status === 'CONFIRMED' ? 'CONFIRMED' : 'CANCELLED');
      });
      continue;
    }
    // Nothing to wait for; an Update still running (a new hold after a release) may change that.
    await condition(allHandlersFinished);
    if (!stillWaiting(state)) break;
  }
  return state.snapshot();
}

/** Whether the scope is in a phase the workflow waits in (a hold or company decisions). */
function stillWaiting(state: ConfirmationState): boolean {
  return state.phase === 'HELD' || state.phase === 'REQUESTED';
}

function refuseHold(phase: ProcessPhase) {
  return phase === 'HELD'
    ? refuse('HOLD_ALREADY_ACTIVE', 'A hold is already active; release it or confirm')
    : refuse('JOURNEY_NOT_HOLDABLE', `The journey is ${phase} and cannot be held again`);
}

function requireActiveHold(state: ConfirmationState, holdBatchId: string): void {
  if (state.holdBatchId !== holdBatchId)
    throw refuse('HOLD_NOT_FOUND', 'No such hold batch for this journey');
  if (state.phase === 'REQUESTED' || state.phase === 'CONFIRMED')
    throw refuse('ALREADY_CONFIRMED', 'This hold was already confirmed');
  if (state.phase !== 'HELD') throw refuse('HOLD_CLOSED', `The hold is already ${state.phase}`);
}

function requireOpenRequest(state: ConfirmationState, companyId: string): void {
  if (state.phase !== 'REQUESTED' || !state.pending.has(companyId)) {
    throw refuse(
      'JOURNEY_CONFIRMATION_STATE_CONFLICT',
      'There is no open confirmation request for this company',
    );
  }
}
