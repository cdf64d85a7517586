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
  type AdjustRequest,
  type CashShiftHandover,
  type CashShiftInput,
  type CashShiftPhase,
  type CashShiftRefusalCode,
  type CashShiftState,
  type CashShiftSummary,
  type CloseRequest,
} from './cash-shift.contract.js';
import { accepted, answering, enforcing, millisecondsUntil, OpenedProcess } from './steps.js';

/** Runs started before it never continue as new (their histories replay as they were recorded). */
const CONTINUES_AS_NEW = 'cash-shift-continues-as-new';

/**
 * The shift's state and its handlers. OPEN, ADJUST, CLOSE and the overdue mark run one at a
 * time in arrival order, each one activity (one transaction of db/writes/cash-shifts.ts). A run
 * handed over by continue-as-new starts in the phase its predecessor left.
 */
class CashShift extends OpenedProcess<CashShiftPhase, CashShiftRefusalCode> {
  private opened: CashShiftSummary | null = null;
  private overdueAt = 0;
  /** Updates this run has taken (OPEN, ADJUST, CLOSE), accepted or refused by their step. */
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
      return accepted(await answering.adjustCashShift({ shiftId: this.input.shiftId, ...request }));
    });
  }

  close(request: CloseRequest): Promise<CashShiftSummary> {
    this.steps += 1;
    return this.exclusive(async () => {
      this.requireOpen();
      const closed = accepted(await answering.closeCashShift({ shiftId: this.input.shiftId, ...request }));
      this.enter('CLOSED');
      return closed;
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
 * continues as new with the shift handed over; an Update sent meanwhile reaches the new run.
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

  // An OPEN that was refused (the database already holds an open shift) ends the process.
  await shift.openSettled();
  if (shift.phase !== 'NEW') await shift.awaitClose();
  await condition(allHandlersFinished);
  const handover = shift.handover();
  if (handover) await continueAsNew<typeof cashShift>({ ...input, handover });
  return shift.snapshot();
}
