import type { ActingMember } from './company-actor.js';
import { Refusal } from './refusal.js';

/**
 * Cash shift rules (SPEC "Cash shift"): one open shift per company; expected amount = opening
 * balance + collections linked to the shift ± documented movements; closing records declared,
 * expected and the difference. A shift open longer than the configured hours is overdue, never
 * closed automatically: a person must count the cash.
 */
export const CASH_SHIFT_ACTIONS = ['OPEN', 'ADJUST', 'CLOSE'] as const;
export type CashShiftAction = (typeof CASH_SHIFT_ACTIONS)[number];
export type MovementDirection = 'IN' | 'OUT';

/**
 * The request that sent a step (the API's requestOrigin: client IP and request id), for the step's
 * audit row. Optional in every step: steps recorded before it carry none (a run in flight replays
 * its input and Updates as they were sent), and their rows keep no origin.
 */
export interface ShiftStepOrigin {
  ip: string;
  requestId: string;
}

/** OPEN: the new shift (its id made by the API), its company, and the cash counted into the till. */
export interface ShiftOpening {
  shiftId: string;
  companyId: string;
  /** The owner or manager who opens it. */
  openedBy: string;
  openingBalance: number;
  note?: string | null;
  /**
   * Who sends the OPEN (openedBy, unless it takes over a shift the database holds), checked again
   * in the step's transaction: one demoted, deactivated or signed out meanwhile is refused.
   */
  actor: ActingMember;
  /** When the step must commit by (epoch ms, see shiftStepLate); absent in steps recorded before it. */
  stepBy?: number;
  /** The request that sent it, for its audit row. */
  origin?: ShiftStepOrigin;
}

/** ADJUST: one documented movement of cash into or out of the open shift's till. */
export interface ShiftMovement {
  /**
   * Made by the API (from the company and its Idempotency-Key when one is sent): the movement's id
   * and its Update's id's prefix, so a retry under the key records it once.
   */
  movementId: string;
  /** Who records it (recorded_by), checked again in the step's transaction. */
  actor: ActingMember;
  direction: MovementDirection;
  amount: number;
  reason: string;
  /** The shift the client counted for (shift_id, see shiftChanged); absent when it names none. */
  namedShiftId?: string;
  /** When the step must commit by (epoch ms, see shiftStepLate); absent in steps recorded before it. */
  stepBy?: number;
  /** The request that sent it, for its audit row. */
  origin?: ShiftStepOrigin;
}

/** CLOSE: the cash counted in the till at the end of the shift. */
export interface ShiftClosing {
  /** Who counts the till (closed_by), checked again in the step's transaction. */
  actor: ActingMember;
  declaredAmount: number;
  note?: string | null;
  /** The shift the client counted for (shift_id, see shiftChanged); absent when it names none. */
  namedShiftId?: string;
  /** When the step must commit by (epoch ms, see shiftStepLate); absent in steps recorded before it. */
  stepBy?: number;
  /** The request that sent it, for its audit row. */
  origin?: ShiftStepOrigin;
}

/**
 * Whether the closed `shift` (`shiftId`) is this CLOSE's own, made by an earlier attempt (a retried
 * activity, or a CLOSE repeated after its answer was lost): the same member, count and note (a CLOSE
 * without a note keeps the shift's) of the shift it names. Any other CLOSE of a closed shift is refused.
 */
export function repeatsClose(
  shift: CashShiftSummary | undefined,
  close: ShiftClosing,
  shiftId: string,
): boolean {
  return (
    shift?.status === 'CLOSED' &&
    shift.closedBy === close.actor.staffUserId &&
    shift.declaredAmount === close.declaredAmount &&
    (close.note == null || close.note === shift.note) &&
    (!close.namedShiftId || close.namedShiftId === shiftId)
  );
}

/** The workflow's phases, shown as ProcessStatus in the Temporal UI. */
export type CashShiftPhase = 'NEW' | 'OPEN' | 'OVERDUE' | 'CLOSED';

/** Every refusal of a cash-shift step, with its HTTP status. */
export const CASH_SHIFT_REFUSAL_STATUS = {
  CASH_SHIFT_ALREADY_OPEN: 409,
  CASH_SHIFT_NOT_OPEN: 409,
  CASH_SHIFT_INSUFFICIENT_CASH: 409,
  CASH_SHIFT_CHANGED: 409,
  /** Past its deadline (shiftStepLate): the API answers it as 503 CASH_SHIFT_UNAVAILABLE. */
  CASH_SHIFT_STEP_LATE: 503,
} as const;
export type CashShiftRefusalCode = keyof typeof CASH_SHIFT_REFUSAL_STATUS;

export class CashShiftRefusal extends Refusal {
  constructor(code: CashShiftRefusalCode, message: string, details?: Record<string, unknown>) {
    super(CASH_SHIFT_REFUSAL_STATUS[code], code, message, details);
  }
}

export const shiftNotOpen = () =>
  new CashShiftRefusal('CASH_SHIFT_NOT_OPEN', 'The company has no open cash shift; open one first');
export const shiftAlreadyOpen = (shiftId?: string) =>
  new CashShiftRefusal(
    'CASH_SHIFT_ALREADY_OPEN',
    'The company already has an open cash shift; close it first',
    shiftId ? { shiftId } : undefined,
  );

/**
 * An ADJUST or CLOSE counted for shift `named` while the company's open shift is `current` (the
 * named one closed and the next opened meanwhile): recorded, it would count into the wrong till.
 */
export const shiftChanged = (named: string, current: string) =>
  new CashShiftRefusal(
    'CASH_SHIFT_CHANGED',
    'The cash shift this step names is no longer the open one; nothing was written',
    { shift_id: named, current_shift_id: current },
  );

/**
 * A step's deadline (`stepBy`) is the instant the API gives it to commit by, so that it commits
 * while the request still waits for it. A step that would commit later is refused with this and
 * writes nothing: the 503 the API answers once it stops waiting stays true, and the retry it asks
 * for counts no cash twice.
 */
export const shiftStepLate = () =>
  new CashShiftRefusal(
    'CASH_SHIFT_STEP_LATE',
    'The step came after the request stopped waiting for it; nothing was written',
  );

/** Money taken out of the till (an OUT movement or a cash refund) cannot exceed what it should hold. */
export function refuseOverdraw(expected: number, amount: number): void {
  if (amount > expected) {
    throw new CashShiftRefusal(
      'CASH_SHIFT_INSUFFICIENT_CASH',
      'The till of the open shift does not hold that much cash',
      { expected, amount },
    );
  }
}

export interface ShiftTotals {
  openingBalance: number;
  /** Sum of the collections linked to the shift (verified or recorded into it). */
  collections: number;
  movementsIn: number;
  movementsOut: number;
}

/** Opening balance + linked collections + money put in − money taken out. */
export function expectedAmount(totals: ShiftTotals): number {
  return totals.openingBalance + totals.collections + totals.movementsIn - totals.movementsOut;
}

/** declared − expected: positive is a surplus in the till, negative a shortage. */
export function closingDifference(declared: number, expected: number): number {
  return declared - expected;
}

/** Whether a shift opened at `openedAt` is overdue at `now` after `maxHours`. */
export function isOverdue(openedAt: Date, now: Date, maxHours: number): boolean {
  return now.getTime() - openedAt.getTime() >= maxHours * 3_600_000;
}

/** A shift with its totals, as the API answers and the workflow's Updates return it. */
export interface CashShiftSummary {
  id: string;
  companyId: string;
  status: 'OPEN' | 'CLOSED';
  currency: string;
  openingBalance: number;
  openedBy: string;
  openedAt: string;
  overdueSince: string | null;
  note: string | null;
  collections: { count: number; amount: number };
  movementsIn: number;
  movementsOut: number;
  /** Opening + collections + in − out: now for an open shift, at closing for a closed one. */
  expectedAmount: number;
  declaredAmount: number | null;
  difference: number | null;
  closedBy: string | null;
  closedAt: string | null;
}
