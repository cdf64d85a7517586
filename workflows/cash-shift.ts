import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  adjustShiftUpdate,
  CASH_SHIFT_REFUSAL_STATUS,
  CASH_SHIFT_STEPS_PER_RUN,
  cashShiftStateQuery,
  closeShiftUpdate,
  openShiftUpdate,
  reconcileShiftUpdate,
  type AdjustRequest,
  type CashShiftHandover,
  type CashShiftInput,
  type CashShiftPhase,
  type CashShiftRefusalCode,
  type CashShiftState,
  type CashShiftSummary,
  type CloseRequest,
} from './cash-shift.contract.js';
import type { Refusable } from '../domain/refusal.js';
import { accepted, answering, enforcing, millisecondsUntil, OpenedProcess } from './steps.js';

/** Runs started before it never continue as new (their histories replay as they were recorded). */
const CONTINUES_AS_NEW = 'cash-shift-continues-as-new';
/**
 * Before it a run went on holding its shift after an ADJUST or CLOSE found the row no longer OPEN;
 * a history recorded so replays as it was.
 */
const ENDS_WITH_ITS_ROW = 'cash-shift-ends-with-its-row';

/**
 * The shift's state and its handlers. OPEN, ADJUST, CLOSE, RECONCILE and the overdue mark run one
 * at a time in arrival order, each one activity (one transaction of db/writes/cash-shifts.ts, or
 * RECONCILE's read of the row). A run handed over by continue-as-new starts in the phase its
 * predecessor left.
 */
class CashShift extends OpenedProcess<CashShiftPhase, CashShiftRefusalCode> {
  private opened: CashShiftSummary | null = null;
  private overdueAt = 0;
  /** Updates this run has taken (OPEN, ADJUST, CLOSE, RECONCILE), accepted or refused by their step. */
  private steps = 0;

  constructor(
    private readonly input: CashShiftInput,
    private readonly continues: boolean,
  ) {
    super(CASH_SHIFT_REFUSAL_STATUS);
    if (input.handover) {
      this.startIn(input.handover.phase);
      this.overdueAt = input.handover.overdueAt;
      this.opened = input.handover.opened;
    }
  }

  get closed(): boolean {
    return this.phase === 'CLOSED';
  }

  /** Time to hand the shift to a new run: enough steps taken, or Temporal suggests it. */
  get full(): boolean {
    const limit = this.input.stepsPerRun ?? CASH_SHIFT_STEPS_PER_RUN;
    return this.continues && (this.steps >= limit || workflowInfo().continueAsNewSuggested);
  }

  /** What the next run needs to hold the still open shift (OPEN or OVERDUE). */
  handover(): CashShiftHandover | undefined {
    if (this.phase !== 'OPEN' && this.phase !== 'OVERDUE') return undefined;
    return { phase: this.phase, overdueAt: this.overdueAt, opened: this.opened! };
  }

  snapshot(): CashShiftState {
    return { phase: this.phase, shiftId: this.input.shiftId, overdue: this.phase === 'OVERDUE' };
  }

  /** Writes the shift row; a repeated open answers what the first did. */
  open(): Promise<CashShiftSummary> {
    this.noteOpenAttempt();
    this.steps += 1;
    return this.exclusive(async () => {
      if (this.opened) return this.opened;
      this.opened = accepted(await answering.openCashShift(this.input));
      this.overdueAt = Date.now() + this.input.maxOpenMilliseconds;
      this.enter('OPEN');
      return this.opened;
    });
  }

  requireOpen(): void {
    if (this.phase !== 'OPEN' && this.phase !== 'OVERDUE') {
      throw this.refuse('CASH_SHIFT_NOT_OPEN', 'The company has no open cash shift; open one first');
    }
  }

  /**
   * The Update validator of ADJUST and CLOSE: the shift is open, or its OPEN is still being
   * written, when the step queues behind it and is checked again (requireOpen) once the OPEN has
   * run. Two managers' steps that each resume a shift with no running process
   * (api/use-cases/cash-shifts.ts) reach the run while the first one's OPEN writes.
   */
  admitStep(): void {
    if (!this.opening) this.requireOpen();
  }

  adjust(request: AdjustRequest): Promise<CashShiftSummary> {
    this.steps += 1;
    return this.exclusive(async () => {
      this.requireOpen();
      return this.held(await answering.adjustCashShift({ shiftId: this.input.shiftId, ...request }));
    });
  }

  close(request: CloseRequest): Promise<CashShiftSummary> {
    this.steps += 1;
    return this.exclusive(async () => {
      this.requireOpen();
      const closed = this.held(await answering.closeCashShift({ shiftId: this.input.shiftId, ...request }));
      this.enter('CLOSED');
      return closed;
    });
  }

  /**
   * The answer of an ADJUST or CLOSE on the held shift. Their CASH_SHIFT_NOT_OPEN means the shift's
   * row is no longer OPEN (closed by a CLOSE whose activity reported failure after its commit, or
   * gone with a restored database): the run holds no shift any more, so it enters CLOSED and ends
   * once the refusal is answered, leaving the company free to open its next shift.
   */
  private held<T>(result: Refusable<T>): T {
    if (result.refused?.code === 'CASH_SHIFT_NOT_OPEN' && patched(ENDS_WITH_ITS_ROW)) this.enter('CLOSED');
    return accepted(result);
  }

  /** RECONCILE (reconcileShiftUpdate): a held shift whose row is no longer OPEN ends the run CLOSED. */
  reconcile(): Promise<CashShiftState> {
    this.steps += 1;
    return this.exclusive(async () => {
      if (this.phase === 'OPEN' || this.phase === 'OVERDUE') {
        const status = await answering.readCashShiftStatus({ shiftId: this.input.shiftId });
        if (status !== 'OPEN') this.enter('CLOSED');
      }
      return this.snapshot();
    });
  }

  /**
   * Waits for CLOSE; past the limit marks the shift overdue once and keeps waiting for a person.
   * Returns early when the run is full (the shift then continues in a new run).
   */
  async awaitClose(): Promise<void> {
    const settled = () => this.closed || this.full;
    if (this.phase === 'OVERDUE' || (await condition(settled, millisecondsUntil(this.overdueAt)))) {
      await condition(settled);
      return;
    }
    await this.exclusive(async () => {
      if (this.closed) return;
      await enforcing.markCashShiftOverdue({ shiftId: this.input.shiftId });
      this.enter('OVERDUE');
    });
    await condition(settled);
  }
}

/**
 * One open cash shift of a company (id cash-shift/{companyId}), from the OPEN that starts it to the
 * CLOSE a person makes. Never closed by a timer: after CASH_SHIFT_MAX_HOURS it is marked OVERDUE
 * (ProcessStatus in the Temporal UI, overdue_since in the database) and goes on waiting. After
 * `stepsPerRun` steps (or when Temporal suggests it) the run finishes the steps it took and
 * continues as new with the shift handed over; an Update sent meanwhile reaches the new run. A step
 * that finds the shift's row no longer OPEN in the database (RECONCILE, or an ADJUST or CLOSE
 * refused CASH_SHIFT_NOT_OPEN) ends the run CLOSED.
 */
export async function cashShift(input: CashShiftInput): Promise<CashShiftState> {
  const shift = new CashShift(input, patched(CONTINUES_AS_NEW));

  setHandler(cashShiftStateQuery, () => shift.snapshot());
  setHandler(openShiftUpdate, () => shift.open());
  setHandler(adjustShiftUpdate, (request) => shift.adjust(request), {
    validator: (_request: AdjustRequest) => shift.admitStep(),
  });
  setHandler(closeShiftUpdate, (request) => shift.close(request), {
    validator: (_request: CloseRequest) => shift.admitStep(),
  });
  setHandler(reconcileShiftUpdate, () => shift.reconcile());

  // An OPEN that was refused (the database already holds an open shift) ends the process.
  await shift.openSettled();
  if (shift.phase !== 'NEW') await shift.awaitClose();
  await condition(allHandlersFinished);
  const handover = shift.handover();
  if (handover) await continueAsNew<typeof cashShift>({ ...input, handover });
  return shift.snapshot();
}
