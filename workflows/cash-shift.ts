import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import {
  adjustShiftUpdate,
  CASH_SHIFT_REFUSAL_STATUS,
  cashShiftStateQuery,
  closeShiftUpdate,
  openShiftUpdate,
  type AdjustRequest,
  type CashShiftInput,
  type CashShiftPhase,
  type CashShiftRefusalCode,
  type CashShiftState,
  type CashShiftSummary,
  type CloseRequest,
} from './cash-shift.contract.js';
import { accepted, answering, enforcing, millisecondsUntil, OpenedProcess } from './steps.js';

/**
 * The shift's state and its handlers. OPEN, ADJUST, CLOSE and the overdue mark run one at a
 * time in arrival order, each one activity (one transaction of db/writes/cash-shifts.ts).
 */
class CashShift extends OpenedProcess<CashShiftPhase, CashShiftRefusalCode> {
  private opened: CashShiftSummary | null = null;
  private overdueAt = 0;

  constructor(private readonly input: CashShiftInput) {
    super(CASH_SHIFT_REFUSAL_STATUS);
  }

  get closed(): boolean {
    return this.phase === 'CLOSED';
  }

  snapshot(): CashShiftState {
    return { phase: this.phase, shiftId: this.input.shiftId, overdue: this.phase === 'OVERDUE' };
  }

  /** Writes the shift row; a repeated open answers what the first did. */
  open(): Promise<CashShiftSummary> {
    this.noteOpenAttempt();
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

  adjust(request: AdjustRequest): Promise<CashShiftSummary> {
    return this.exclusive(async () => {
      this.requireOpen();
      return accepted(await answering.adjustCashShift({ shiftId: this.input.shiftId, ...request }));
    });
  }

  close(request: CloseRequest): Promise<CashShiftSummary> {
    return this.exclusive(async () => {
      this.requireOpen();
      const closed = accepted(await answering.closeCashShift({ shiftId: this.input.shiftId, ...request }));
      this.enter('CLOSED');
      return closed;
    });
  }

  /** Waits for CLOSE; past the limit marks the shift overdue once and keeps waiting for a person. */
  async awaitClose(): Promise<void> {
    if (!(await condition(() => this.closed, millisecondsUntil(this.overdueAt)))) {
      await this.exclusive(async () => {
        if (this.closed) return;
        await enforcing.markCashShiftOverdue({ shiftId: this.input.shiftId });
        this.enter('OVERDUE');
      });
      await condition(() => this.closed);
    }
  }
}

/**
 * One open cash shift of a company (id cash-shift/{companyId}), from the OPEN that starts it to the
 * CLOSE a person makes. Never closed by a timer: after CASH_SHIFT_MAX_HOURS it is marked OVERDUE
 * (ProcessStatus in the Temporal UI, overdue_since in the database) and goes on waiting.
 */
export async function cashShift(input: CashShiftInput): Promise<CashShiftState> {
  const shift = new CashShift(input);

  setHandler(cashShiftStateQuery, () => shift.snapshot());
  setHandler(openShiftUpdate, () => shift.open());
  setHandler(adjustShiftUpdate, (request) => shift.adjust(request), {
    validator: (_request: AdjustRequest) => shift.requireOpen(),
  });
  setHandler(closeShiftUpdate, (request) => shift.close(request), {
    validator: (_request: CloseRequest) => shift.requireOpen(),
  });

  // An OPEN that was refused (the database already holds an open shift) ends the process.
  await shift.openSettled();
  if (shift.phase !== 'NEW') await shift.awaitClose();
  await condition(allHandlersFinished);
  return shift.snapshot();
}
