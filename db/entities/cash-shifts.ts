import { p } from '@mikro-orm/core';
import { companyEntity, idEntity, stampedNow } from './base.js';

/**
 * Cash shifts: one till session of a company (at most one OPEN), and the documented movements of
 * money into or out of its till. Written by db/writes/cash-shifts.ts (the cash-shift workflow's
 * activities) and by a cash refund (an OUT movement of kind REFUND).
 */
export const CashShift = companyEntity('CashShift', 'cash_shifts', {
  status: p.enum(['OPEN', 'CLOSED'] as const).default('OPEN'),
  currency: p.text().default('SYP'),
  openingBalance: p.bigint('number'),
  openedBy: p.uuid(),
  openedAt: stampedNow(),
  overdueSince: p.datetime().nullable(),
  note: p.text().nullable(),
  declaredAmount: p.bigint('number').nullable(),
  expectedAmount: p.bigint('number').nullable(),
  difference: p.bigint('number').nullable(),
  closedBy: p.uuid().nullable(),
  closedAt: p.datetime().nullable(),
});

export const CashShiftMovement = idEntity('CashShiftMovement', 'cash_shift_movements', {
  shiftId: p.uuid(),
  companyId: p.uuid(),
  kind: p.enum(['ADJUSTMENT', 'REFUND'] as const).default('ADJUSTMENT'),
  direction: p.enum(['IN', 'OUT'] as const),
  amount: p.bigint('number'),
  reason: p.text(),
  paymentId: p.uuid().nullable(),
  recordedBy: p.uuid(),
  recordedAt: stampedNow(),
});
