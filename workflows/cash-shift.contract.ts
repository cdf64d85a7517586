import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  CashShiftPhase,
  CashShiftSummary,
  ShiftClosing,
  ShiftMovement,
  ShiftOpening,
} from '../domain/cash-shift.js';

export {
  CASH_SHIFT_REFUSAL_STATUS,
  type CashShiftPhase,
  type CashShiftRefusalCode,
  type MovementDirection,
} from '../domain/cash-shift.js';
export type { CashShiftSummary };

/**
 * The contract of the `cashShift` workflow (id cash-shift/{companyId}): one open till of a
 * company from OPEN to CLOSE. The id is the company's, so while a shift is open a second OPEN
 * cannot start another process (409 CASH_SHIFT_ALREADY_OPEN). OPEN is an update-with-start;
 * ADJUST and CLOSE are Updates whose answer is the shift after the step. The API imports this
 * module, never the workflow body.
 */
export const CASH_SHIFT_WORKFLOW = 'cashShift';

export interface CashShiftInput extends ShiftOpening {
  /** CASH_SHIFT_MAX_HOURS in milliseconds: after it the shift is marked overdue (never closed). */
  maxOpenMilliseconds: number;
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
export const cashShiftStateQuery = defineQuery<CashShiftState>('state');
