import {
  adjustShift,
  closeShift,
  markShiftOverdue,
  openShift,
  type AdjustShiftInput,
  type CloseShiftInput,
} from '../db/writes/cash-shifts.js';
import { readShiftSummary } from '../db/queries/cash-shifts.js';
import type { ShiftOpening } from '../domain/cash-shift.js';
import { Refusal } from '../domain/refusal.js';
import type { ActivityDeps } from './index.js';
import { refusable } from './refusable.js';

/**
 * A step's transaction, its business refusal returned as data (CASH_SHIFT_REFUSAL_STATUS,
 * workflows/cash-shift.contract.ts): the shift's own (CashShiftRefusal), the company's standing or
 * the acting member's, checked again as the transaction takes the company row (403
 * COMPANY_SUSPENDED, 403 ROLE_NOT_ALLOWED, 401 INVALID_CREDENTIAL). Thrown, any would be an
 * activity failure that retries.
 */
const shiftStep = <T>(work: () => Promise<T>) => refusable(Refusal, work);

/**
 * The cash-shift workflow's effects: each activity is one transaction of
 * db/writes/cash-shifts.ts, idempotent under retry; a business refusal comes back as data. One
 * reads only: the shift row's status, for RECONCILE.
 */
export function createCashShiftActivities({ db }: Pick<ActivityDeps, 'db'>) {
  return {
    openCashShift: (input: ShiftOpening) =>
      shiftStep(() =>
        openShift(db, {
          shiftId: input.shiftId,
          companyId: input.companyId,
          staffUserId: input.openedBy,
          actor: input.actor,
          openingBalance: input.openingBalance,
          note: input.note ?? null,
          stepBy: input.stepBy,
          origin: input.origin,
        }),
      ),
    adjustCashShift: (input: AdjustShiftInput) => shiftStep(() => adjustShift(db, input)),
    closeCashShift: (input: CloseShiftInput) => shiftStep(() => closeShift(db, input)),
    markCashShiftOverdue: (input: { shiftId: string }) => markShiftOverdue(db, input),
    /** The shift row's status, null when the database holds no such shift (RECONCILE). */
    readCashShiftStatus: async (input: { shiftId: string }) =>
      (await readShiftSummary(db, input.shiftId))?.status ?? null,
  };
}
