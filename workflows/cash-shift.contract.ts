import { defineQuery, defineUpdate } from '@temporalio/workflow';
import {
  CASH_SHIFT_REFUSAL_STATUS as SHIFT_RULE_REFUSALS,
  type CashShiftPhase,
  type CashShiftSummary,
  type ShiftClosing,
  type ShiftMovement,
  type ShiftOpening,
} from '../domain/cash-shift.js';

export type { CashShiftPhase, MovementDirection } from '../domain/cash-shift.js';
export type { CashShiftSummary };

/**
 * Every refusal a cash-shift step answers with, with its HTTP status: the shift's own rules
 * (domain/cash-shift.ts), the company suspended while the step waited for its transaction
 * (db/writes/active-company.ts), and the acting member signed out, deactivated or demoted
 * meanwhile (db/writes/acting-member.ts).
 */
export const CASH_SHIFT_REFUSAL_STATUS = {
  ...SHIFT_RULE_REFUSALS,
  COMPANY_SUSPENDED: 403,
  ROLE_NOT_ALLOWED: 403,
  INVALID_CREDENTIAL: 401,
} as const;
export type CashShiftRefusalCode = keyof typeof CASH_SHIFT_REFUSAL_STATUS;

/**
 * The contract of the `cashShift` workflow (id cash-shift/{companyId}): one open till of a
 * company from OPEN to CLOSE. The id is the company's, so while a shift is open a second OPEN
 * cannot start another process (409 CASH_SHIFT_ALREADY_OPEN). OPEN is an update-with-start;
 * ADJUST and CLOSE are Updates whose answer is the shift after the step. The API imports this
 * module, never the workflow body.
 */
export const CASH_SHIFT_WORKFLOW = 'cashShift';

/**
 * Steps (Updates) a run takes before it continues as new, unless the input says otherwise:
 * Temporal refuses every Update to a run past 2000 (history.maxTotalUpdates).
 */
export const CASH_SHIFT_STEPS_PER_RUN = 500;

export interface CashShiftInput extends ShiftOpening {
  /** CASH_SHIFT_MAX_HOURS in milliseconds: after it the shift is marked overdue (never closed). */
  maxOpenMilliseconds: number;
  /** Steps a run takes before it continues as new (CASH_SHIFT_STEPS_PER_RUN when absent). */
  stepsPerRun?: number;
  /** Set by continue-as-new: the open shift the new run holds from its start, with no OPEN step. */
  handover?: CashShiftHandover;
}

export interface CashShiftHandover {
  phase: 'OPEN' | 'OVERDUE';
  /** When an OPEN shift is marked overdue (epoch milliseconds, workflow time). */
  overdueAt: number;
  /** The answer of the shift's OPEN, for an OPEN repeated on the new run. */
  opened: CashShiftSummary;
}

export type AdjustRequest = ShiftMovement;

export type CloseRequest = ShiftClosing;

export interface CashShiftState {
  phase: CashShiftPhase;
  shiftId: string;
  overdue: boolean;
}

export const openShiftUpdate = defineUpdate<CashShiftSummary, []>('open');
export const adjustShiftUpdate = defineUpdate<CashShiftSummary, [AdjustRequest]>('adjust');
export const closeShiftUpdate = defineUpdate<CashShiftSummary, [CloseRequest]>('close');
/**
 * Sent by an OPEN refused for the running process while the database holds no open shift of the
 * company: after the steps before it, the run reads its shift's row, and one no longer OPEN (closed
 * by a CLOSE whose activity reported failure after its commit, or gone with a restored database)
 * ends the run CLOSED. The answer is the run's state after it.
 */
export const reconcileShiftUpdate = defineUpdate<CashShiftState, []>('reconcile');
export const cashShiftStateQuery = defineQuery<CashShiftState>('state');
