import {
  adjustShift,
  closeShift,
  markShiftOverdue,
  openShift,
  type AdjustShiftInput,
  type CloseShiftInput,
} from '../db/writes/cash-shifts.js';
import { CashShiftRefusal, type ShiftOpening } from '../domain/cash-shift.js';
import type { ActivityDeps } from './index.js';
import { refusable } from './refusable.js';

/**
 * The cash-shift workflow's effects: each activity is one transaction of
 * db/writes/cash-shifts.ts, idempotent under retry; a business refusal comes back as data.
 */
export function createCashShiftActivities({ db }: Pick<ActivityDeps, 'db'>) {
  return {
    openCashShift: (input: ShiftOpening) =>
      refusable(CashShiftRefusal, () =>
        openShift(db, {
          shiftId: input.shiftId,
          companyId: input.companyId,
          staffUserId: input.openedBy,
          openingBalance: input.openingBalance,
          note: input.note ?? null,
        }),
      ),
    adjustCashShift: (input: AdjustShiftInput) => refusable(CashShiftRefusal, () => adjustShift(db, input)),
    closeCashShift: (input: CloseShiftInput) => refusable(CashShiftRefusal, () => closeShift(db, input)),
    markCashShiftOverdue: (input: { shiftId: string }) => markShiftOverdue(db, input),
  };
}
