import { p } from '@mikro-orm/core';
import { PAYMENT_STATUSES } from '../../domain/payment.js';
import { companyEntity, decision, entity, idEntity, stampedNow, updatedAt } from './base.js';

/**
 * The payment ledger (one operation per collection attempt of a booking) and the receipt and
 * refund numbers given to its collections.
 */
export const PaymentOperation = companyEntity('PaymentOperation', 'payment_operations', {
  bookingId: p.uuid(),
  userId: p.uuid().nullable(),
  method: p.enum(['CASH', 'SHAMCASH', 'CARD'] as const),
  provider: p.enum(['cash'] as const).default('cash'),
  /** Where the money is taken: see the payments migration. */
  source: p.enum(['transaction', 'driver', 'office', 'booking'] as const),
  amount: p.bigint('number'),
  currency: p.text().default('SYP'),
  status: p.enum(PAYMENT_STATUSES).default('PENDING'),
  refundDueReason: p.text().nullable(),
  note: p.text().nullable(),
  idempotencyKey: p.text().nullable(),
  collectedAt: p.datetime().nullable(),
  refundedAt: p.datetime().nullable(),
  ...decision(),
  cashShiftId: p.uuid().nullable(),
  refundedBy: p.uuid().nullable(),
  cancelledBy: p.uuid().nullable(),
  cancelledAt: p.datetime().nullable(),
  /** Who holds the cash: the trip's driver of a `driver` line they recorded; null otherwise. */
  collectedBy: p.uuid().nullable(),
  updatedAt: updatedAt(),
});

export const ReceiptSeries = ['RCP', 'RFD'] as const;

/** The last number given per company, series and Damascus year; locked while a number is taken. */
export const ReceiptCounter = entity('ReceiptCounter', 'receipt_counters', {
  companyId: p.uuid().primary(),
  series: p.enum(ReceiptSeries).primary(),
  year: p.integer().primary(),
  lastValue: p.integer().default(0),
});

/** A receipt or refund number, given once per collection and kind. */
export const Receipt = idEntity('Receipt', 'receipts', {
  paymentId: p.uuid(),
  kind: p.enum(['PAYMENT_RECEIPT', 'REFUND_NOTICE'] as const),
  companyId: p.uuid(),
  bookingId: p.uuid(),
  number: p.text(),
  issuedAt: stampedNow(),
});
