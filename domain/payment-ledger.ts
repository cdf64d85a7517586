import { PAYMENT_STATUSES, type PaymentSource, type PaymentStatus } from './payment.js';
import { Refusal } from './refusal.js';

/**
 * The company's payment ledger (SPEC "Payments (company)"): the status machine of a payment
 * operation as ONE table, who may move it, and what each move does to the booking's payment fact.
 * The routes, the writes and the OpenAPI text all read this table.
 */
export { PAYMENT_STATUSES, type PaymentSource, type PaymentStatus };

export const PAYMENT_SOURCES = ['transaction', 'driver', 'office', 'booking'] as const;
export const PAYMENT_PROVIDERS = ['cash'] as const;

/** What moves a payment: the dashboard's actions, and the operations room's trip cancellation and completion. */
export type PaymentAction = 'verify' | 'refund' | 'cancel' | 'trip_cancelled' | 'trip_completed';

/** The booking payment fact (bookings.payment_status) after a move; null = left as it is. */
export type BookingPaymentFact = 'UNPAID' | 'PAID' | 'REFUNDED';

export interface PaymentTransition {
  from: PaymentStatus;
  action: PaymentAction;
  to: PaymentStatus;
  /** The booking's payment fact, set in the same transaction. */
  bookingFact: BookingPaymentFact | null;
  /** Who takes this step. */
  by: 'finance' | 'operations room';
  meaning: string;
}

/** Every allowed move; anything else is refused (409 PAYMENT_TRANSITION_NOT_ALLOWED). */
export const PAYMENT_TRANSITIONS: readonly PaymentTransition[] = [
  {
    from: 'PENDING',
    action: 'verify',
    to: 'COMPLETED',
    bookingFact: 'PAID',
    by: 'finance',
    meaning: 'cash received; needs an open cash shift and is linked to it',
  },
  {
    from: 'PENDING',
    action: 'cancel',
    to: 'CANCELLED',
    bookingFact: null,
    by: 'finance',
    meaning: 'the announced payment will not be collected; the booking stays UNPAID',
  },
  {
    from: 'COMPLETED',
    action: 'refund',
    to: 'REFUNDED',
    bookingFact: 'REFUNDED',
    by: 'finance',
    meaning: 'full amount paid back from the open shift (an OUT movement)',
  },
  {
    from: 'REFUND_DUE',
    action: 'refund',
    to: 'REFUNDED',
    bookingFact: 'REFUNDED',
    by: 'finance',
    meaning: 'the refund owed for a cancelled trip is paid back',
  },
  {
    from: 'COMPLETED',
    action: 'trip_cancelled',
    to: 'REFUND_DUE',
    bookingFact: null,
    by: 'operations room',
    meaning: 'the company cancelled the trip; the traveller is owed the money',
  },
  {
    from: 'PENDING',
    action: 'trip_cancelled',
    to: 'CANCELLED',
    bookingFact: null,
    by: 'operations room',
    meaning: 'the company cancelled the trip before the cash was taken',
  },
  {
    from: 'PENDING',
    action: 'trip_completed',
    to: 'CANCELLED',
    bookingFact: null,
    by: 'operations room',
    meaning: 'the trip was completed without the traveller (booking NO_SHOW); the cash will not be taken',
  },
];

/** States nothing leaves: the note is frozen and no action applies. FAILED is kept for online providers. */
export const FINAL_PAYMENT_STATUSES: ReadonlySet<PaymentStatus> = new Set([
  'REFUNDED',
  'CANCELLED',
  'FAILED',
]);

/** Money taken in: these records count as collected in statistics and prove a receipt. */
export const COLLECTED_STATUSES: readonly PaymentStatus[] = ['COMPLETED', 'REFUND_DUE', 'REFUNDED'];

export class PaymentDecisionRefusal extends Refusal {}

/** The transition `action` makes from `status`, or the refusal saying why it cannot. */
export function transitionFor(status: PaymentStatus, action: PaymentAction): PaymentTransition {
  const transition = PAYMENT_TRANSITIONS.find((row) => row.from === status && row.action === action);
  if (transition) return transition;
  const allowedFrom = PAYMENT_TRANSITIONS.filter((row) => row.action === action).map((row) => row.from);
  throw new PaymentDecisionRefusal(
    409,
    'PAYMENT_TRANSITION_NOT_ALLOWED',
    `A ${status} payment cannot be ${action === 'verify' ? 'verified' : `${action}ed`}`,
    { status, action, allowedFrom },
  );
}

/** PATCH changes the note only, and only before a final state. */
export function refuseNoteChange(status: PaymentStatus): void {
  if (FINAL_PAYMENT_STATUSES.has(status)) {
    throw new PaymentDecisionRefusal(409, 'PAYMENT_FINAL', `A ${status} payment can no longer be changed`, {
      status,
    });
  }
}

/** The filtered set's statistics: amounts in SYP, counts of lines. */
export interface LedgerStatistics {
  count: number;
  byStatus: Record<PaymentStatus, { count: number; amount: number }>;
  bySource: Record<PaymentSource, { count: number; amount: number }>;
  /** Money taken in (COMPLETED, REFUND_DUE, REFUNDED). */
  collected: number;
  /** Money paid back (REFUNDED). */
  refunded: number;
  /** collected − refunded. */
  net: number;
  /** Announced but not yet collected (PENDING). */
  outstanding: number;
  /** Collected for a cancelled trip and still owed back (REFUND_DUE). */
  refundDue: number;
}

/** Statistics from grouped rows (status, source, count, amount). */
export function ledgerStatistics(
  groups: { status: PaymentStatus; source: PaymentSource; count: number; amount: number }[],
): LedgerStatistics {
  const zero = () => ({ count: 0, amount: 0 });
  const byStatus = Object.fromEntries(
    PAYMENT_STATUSES.map((s) => [s, zero()]),
  ) as LedgerStatistics['byStatus'];
  const bySource = Object.fromEntries(
    PAYMENT_SOURCES.map((s) => [s, zero()]),
  ) as LedgerStatistics['bySource'];
  let count = 0;
  for (const group of groups) {
    count += group.count;
    byStatus[group.status].count += group.count;
    byStatus[group.status].amount += group.amount;
    bySource[group.source].count += group.count;
    bySource[group.source].amount += group.amount;
  }
  const collected = COLLECTED_STATUSES.reduce((sum, status) => sum + byStatus[status].amount, 0);
  const refunded = byStatus.REFUNDED.amount;
  return {
    count,
    byStatus,
    bySource,
    collected,
    refunded,
    net: collected - refunded,
    outstanding: byStatus.PENDING.amount,
    refundDue: byStatus.REFUND_DUE.amount,
  };
}

/** The transition table as Markdown-ish text for OpenAPI descriptions. */
export function transitionTableText(): string {
  return PAYMENT_TRANSITIONS.map(
    (row) =>
      `${row.from} --${row.action}--> ${row.to} (${row.by}; booking payment fact ${row.bookingFact ?? 'unchanged'}: ${row.meaning})`,
  ).join('; ');
}
