import {
  allHandlersFinished,
  condition,
  log,
  patched,
  proxyLocalActivities,
  setHandler,
  uuid4,
} from '@temporalio/workflow';
import {
  activeHoldRefusal,
  decisionsDueAt,
  holdRefusal,
  scaledMilliseconds,
  type AwaitedDecision,
} from '../domain/journey-confirmation.js';
import {
  confirmUpdate,
  decidedSignal,
  decideUpdate,
  holdUpdate,
  REFUSAL_STATUS,
  releaseHoldUpdate,
  stateQuery,
  type CompanyDecision,
  type ConfirmationScope,
  type ConfirmRequest,
  type ConfirmResult,
  type DecidedNotice,
  type DecisionDue,
  type DecisionResult,
  type HoldRequest,
  type HoldResult,
  type JourneyConfirmationInput,
  type ProcessPhase,
  type ProcessState,
  type RefusalCode,
  type ReleaseRequest,
  type ReleaseResult,
} from './journey-confirmation.contract.js';
import {
  accepted,
  answeringLocally,
  ENFORCING_STEP,
  enforcing,
  millisecondsUntil,
  OpenedProcess,
  type Activities,
} from './steps.js';

/**
 * The first read of a process started REQUESTED (in its first workflow task, retried until it
 * happens) and the decision deadline's release: a local activity runs inside the workflow task the
 * timer wakes, so a release costs one workflow task instead of three tasks (workflow, activity,
 * workflow). With a thousand deadlines falling within seconds, that is what keeps their lag low.
 */
const enforcingLocally = proxyLocalActivities<Activities>(ENFORCING_STEP);

/**
 * Processes that were already waiting on their deadline when the release became a local activity
 * replay it as the ordinary activity they scheduled (Temporal's patching); new ones run it locally.
 */
const DEADLINE_RELEASE_LOCALLY = 'deadline-release-local-activity';

/**
 * The state of one confirmation scope and the bodies of its Update handlers. Handlers and the
 * deadlines' follow-ups each run their step alone, in arrival order (the step queue), so a
 * confirm and the hold's expiry never overlap. Deadlines are instants on the workflow clock,
 * waited for with `condition(…, remaining)`.
 */
class JourneyConfirmation extends OpenedProcess<ProcessPhase, RefusalCode> {
  private holdBatchId: string | null = null;
  private holdExpiresAt: string | null = null;
  /** When the current hold ends unless confirmed or released (workflow clock, epoch ms). */
  private holdEndsAt = 0;
  private deadline: string | null = null;
  /** Companies whose decision is awaited. */
  private readonly pending = new Set<string>();
  /** When each awaited company's decision window closes (workflow clock, epoch ms). */
  private readonly decisionDue = new Map<string, number>();

  /**
   * Set until a process started REQUESTED has read its requests: a decision arriving meanwhile
   * (even in the first workflow task) passes the validator and waits for the read.
   */
  loading: boolean;

  constructor(private readonly input: JourneyConfirmationInput) {
    super(REFUSAL_STATUS);
    this.loading = input.startsRequested === true;
    if (input.decisionsDue) {
      // Before any handler is set: a decision's signal may have ended the start delay.
      this.startIn('REQUESTED');
      this.awaitUntil(input.decisionsDue);
    }
  }

  private get scope(): ConfirmationScope {
    return this.input.scope;
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

  /** Whether the scope is in a phase the workflow waits in (a hold or company decisions). */
  get waiting(): boolean {
    return this.phase === 'HELD' || this.phase === 'REQUESTED';
  }

  /** The hold rule of domain/, with the process's NEW read as the journey's DRAFT. */
  requireHoldable(): void {
    const refused = holdRefusal(this.phase === 'NEW' ? 'DRAFT' : this.phase);
    if (refused) throw this.refuse(refused.code, refused.message);
  }

  hold(request: HoldRequest): Promise<HoldResult> {
    this.noteOpenAttempt();
    log.debug('hold requested', { requestId: request.requestId, phase: this.phase });
    return this.exclusive(async () => {
      this.requireHoldable();
      const holdMilliseconds = scaledMilliseconds(request.holdMinutes, this.input.timeScale);
      const hold = accepted(
        await answeringLocally.placeJourneyHold({
          scope: this.scope,
          holdBatchId: uuid4(),
          holdMilliseconds,
          ownerUserId: this.input.ownerUserId,
          caps: request.caps,
        }),
      );
      this.holdBatchId = hold.holdBatchId;
      this.holdExpiresAt = hold.expiresAt;
      this.holdEndsAt = Date.now() + holdMilliseconds;
      this.enter('HELD');
      return hold;
    });
  }

  requireActiveHold(holdBatchId: string): void {
    const refusal = activeHoldRefusal({ holdBatchId: this.holdBatchId, phase: this.phase }, holdBatchId);
    if (refusal) throw this.refuse(refusal.code, refusal.message);
  }

  release({ holdBatchId }: ReleaseRequest): Promise<ReleaseResult> {
    return this.exclusive(async () => {
      this.requireActiveHold(holdBatchId);
      accepted(await answeringLocally.releaseJourneyHold({ scope: this.scope, holdBatchId }));
      this.enter('RELEASED');
      return { holdBatchId, status: 'RELEASED' as const };
    });
  }

  confirm(request: ConfirmRequest): Promise<ConfirmResult> {
    return this.exclusive(async () => {
      this.requireActiveHold(request.holdBatchId);
      const outcome = accepted(
        await answeringLocally.confirmJourneyScope({
          scope: this.scope,
          holdBatchId: request.holdBatchId,
          journeys: request.journeys,
          channel: request.channel,
          timeScale: this.input.timeScale,
        }),
      );
      if (outcome.status === 'CONFIRMED') this.enter('CONFIRMED');
      else this.enterRequested(outcome);
      return { status: outcome.status, deadline: outcome.deadline };
    });
  }

  /** A process started by a REQUESTED confirm: the pending requests and their deadlines, read once. */
  loadRequested(): Promise<void> {
    return this.exclusive(async () => {
      const outcome = await enforcingLocally.loadJourneyDecisions({ scope: this.scope });
      this.loading = false;
      if (outcome.status !== 'REQUESTED') {
        this.enter(endPhase(outcome.status));
        return;
      }
      this.enterRequested(outcome);
    });
  }

  /** REQUESTED, by a confirm or by the first read: each awaited company's window closes on its own. */
  private enterRequested(outcome: { deadline: string | null; awaiting: AwaitedDecision[] }): void {
    this.awaitUntil(decisionsDueAt(outcome.awaiting, Date.now()));
    this.deadline = outcome.deadline;
    this.enter('REQUESTED');
  }

  requireOpenRequest(companyId: string): void {
    if (this.loading) return;
    if (this.phase !== 'REQUESTED' || !this.pending.has(companyId)) {
      throw this.refuse(
        'JOURNEY_CONFIRMATION_STATE_CONFLICT',
        'There is no open confirmation request for this company',
      );
    }
  }

  async decide(decision: CompanyDecision): Promise<DecisionResult> {
    await condition(() => !this.loading);
    return this.exclusive(async () => {
      this.requireOpenRequest(decision.companyId);
      const result = accepted(
        await answeringLocally.recordCompanyDecision({ scope: this.scope, ...decision }),
      );
      this.pending.clear();
      for (const companyId of result.pendingCompanyIds) this.pending.add(companyId);
      if (result.outcome !== 'REQUESTED') this.enter(result.outcome);
      return { companyId: decision.companyId, decision: decision.decision, outcome: result.outcome };
    });
  }

  /**
   * A process started REQUESTED with a delay until the earliest deadline (`decisionsDue`): it wakes
   * at a decision's signal or at that deadline. The database settles a deadline (settleDecisionDeadline):
   * the scope expires, or a decision has moved the earliest deadline and the wait goes on until it.
   */
  async watchDecisions(): Promise<void> {
    while (this.phase === 'REQUESTED') {
      const due = this.earliestDecisionDue();
      const moved = () => this.phase !== 'REQUESTED' || this.earliestDecisionDue() !== due;
      if (due !== undefined && due > Date.now() && (await condition(moved, millisecondsUntil(due)))) continue;
      const settled = await enforcingLocally.settleDecisionDeadline({ scope: this.scope });
      if (this.phase !== 'REQUESTED') break;
      if (settled.status !== 'REQUESTED') this.settle(endPhase(settled.status));
      else this.awaitUntil(decisionsDueAt(settled.awaiting, Date.now()));
    }
  }

  /** The companies still deciding, each with its window's end; the earliest is the scope's deadline. */
  private awaitUntil(dues: DecisionDue[]): void {
    this.pending.clear();
    for (const { companyId, dueAt } of dues) {
      this.pending.add(companyId);
      this.decisionDue.set(companyId, dueAt);
    }
    this.showDeadline();
  }

  /** The deadline operators see (stateQuery): the earliest window still open. */
  private showDeadline(): void {
    const earliest = this.earliestDecisionDue();
    this.deadline = earliest === undefined ? null : new Date(earliest).toISOString();
  }

  private settle(phase: 'CONFIRMED' | 'CANCELLED' | 'NEW'): void {
    this.pending.clear();
    this.enter(phase);
  }

  /**
   * A decision the API has committed (decidedSignal): the scope's outcome and the companies still
   * deciding. The database stays the judge: a deadline is settled there whatever this says.
   */
  noteDecision(notice: DecidedNotice): void {
    if (this.phase !== 'REQUESTED') return;
    if (notice.outcome !== 'REQUESTED') return this.settle(notice.outcome);
    this.pending.clear();
    for (const companyId of notice.pendingCompanyIds) this.pending.add(companyId);
    this.showDeadline();
  }

  /** HELD: waits for a confirm or a release until the hold ends, then expires it. */
  async awaitHoldEnd(): Promise<void> {
    const batch = this.holdBatchId!;
    const stillHeld = () => this.phase === 'HELD' && this.holdBatchId === batch;
    if (await condition(() => !stillHeld(), millisecondsUntil(this.holdEndsAt))) return;
    await this.exclusive(async () => {
      if (!stillHeld()) return;
      await enforcing.expireJourneyHold({ scope: this.scope, holdBatchId: batch });
      this.enter('EXPIRED');
    });
  }

  /**
   * REQUESTED: waits for the decisions until the earliest pending company's window closes (each
   * company has its own; any one running out cancels the scope), then enforces the deadline.
   */
  async awaitDecisions(): Promise<void> {
    for (;;) {
      const due = this.earliestDecisionDue();
      // A decision may leave a later deadline the earliest: then the wait starts over with it.
      const moved = () => this.phase !== 'REQUESTED' || this.earliestDecisionDue() !== due;
      if (due === undefined) await condition(moved);
      else if (!(await condition(moved, millisecondsUntil(due)))) break;
      if (this.phase !== 'REQUESTED') return;
    }
    await this.exclusive(async () => {
      if (this.phase !== 'REQUESTED') return;
      const release = patched(DEADLINE_RELEASE_LOCALLY) ? enforcingLocally : enforcing;
      const { status } = await release.expireCompanyDecisions({ scope: this.scope });
      this.pending.clear();
      this.enter(status === 'CONFIRMED' ? 'CONFIRMED' : 'CANCELLED');
    });
  }

  private earliestDecisionDue(): number | undefined {
    const dues = [...this.pending].flatMap((companyId) => this.decisionDue.get(companyId) ?? []);
    return dues.length ? Math.min(...dues) : undefined;
  }
}

/** The phase a scope's settled status leaves the process in: a rolled-back confirm (HELD) leaves NEW. */
function endPhase(status: string): 'CONFIRMED' | 'CANCELLED' | 'NEW' {
  return status === 'CONFIRMED' || status === 'CANCELLED' ? status : 'NEW';
}

/**
 * One journey's or order's confirmation (id journey-confirmation/{journeyId} or .../order/{orderId}) while companies decide.
 * Today a REQUESTED confirm starts it (`decisionsDue`), delayed until the earliest decision
 * deadline: the decisions are transactions of the API, each followed by `decidedSignal`, and the
 * process ends at the last one or settles the deadline in the database (the whole scope is
 * cancelled when a pending company's window has closed). Runs started by older code took the
 * hold, confirm and decisions as Updates (HELD: confirm, release or the hold's expiry; REQUESTED
 * read at the start by `startsRequested`); their handlers stay for those runs and their histories.
 * The process ends once nothing is left to wait for.
 */
export async function journeyConfirmation(input: JourneyConfirmationInput): Promise<ProcessState> {
  const confirmation = new JourneyConfirmation(input);

  setHandler(stateQuery, () => confirmation.snapshot());
  setHandler(holdUpdate, (request) => confirmation.hold(request), {
    validator: (_request) => confirmation.requireHoldable(),
  });
  setHandler(releaseHoldUpdate, (request) => confirmation.release(request), {
    validator: (request: ReleaseRequest) => confirmation.requireActiveHold(request.holdBatchId),
  });
  setHandler(confirmUpdate, (request) => confirmation.confirm(request), {
    validator: (request: ConfirmRequest) => confirmation.requireActiveHold(request.holdBatchId),
  });
  setHandler(decideUpdate, (decision) => confirmation.decide(decision), {
    validator: (decision: CompanyDecision) => confirmation.requireOpenRequest(decision.companyId),
  });

  setHandler(decidedSignal, (notice) => confirmation.noteDecision(notice));

  if (input.decisionsDue) await confirmation.watchDecisions();
  else if (input.startsRequested) await confirmation.loadRequested();
  // The first hold arrives with the start; a refused one leaves nothing to wait for.
  else await confirmation.openSettled();
  for (;;) {
    await condition(() => confirmation.idle);
    if (confirmation.phase === 'HELD') await confirmation.awaitHoldEnd();
    else if (confirmation.phase === 'REQUESTED') await confirmation.awaitDecisions();
    else {
      // Nothing to wait for; an Update still running (a new hold after a release) may change that.
      await condition(allHandlersFinished);
      if (!confirmation.waiting) break;
    }
  }
  return confirmation.snapshot();
}
