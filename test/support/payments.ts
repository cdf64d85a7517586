import type { Database } from '../../db/orm.js';
import {
  commitCashCollection,
  openCashPayment,
  type CashCollection,
  type PaymentSource,
} from '../../db/writes/payments.js';

/**
 * Proves collection of a booking's cash as staff will: completes the booking's pending payment
 * (or records a new COMPLETED operation with `source`, default 'office') and marks the booking
 * PAID, in one committed transaction. For tests of what needs collection proved (receipts).
 */
export function collectCash(
  db: Database,
  bookingId: string,
  options: { source?: PaymentSource; staffUserId?: string | null; collectedAt?: Date } = {},
): Promise<CashCollection> {
  return commitCashCollection(db, {
    bookingId,
    source: options.source ?? 'office',
    staffUserId: options.staffUserId ?? null,
    ...(options.collectedAt ? { collectedAt: options.collectedAt } : {}),
  });
}

/** The traveller's announced cash payment (PENDING 'transaction' operation) of their booking. */
export async function announceCashPayment(
  db: Database,
  bookingId: string,
  userId: string,
): Promise<{ paymentId: string }> {
  const { payment } = await openCashPayment(db, { bookingId, userId });
  return { paymentId: payment.id };
}
