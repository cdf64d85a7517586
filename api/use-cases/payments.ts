import { paymentCompany, type PaymentOperation } from '../../db/queries/payments.js';
import type { Database } from '../../db/orm.js';
import { openCashPayment } from '../../db/writes/payments.js';
import { AVAILABLE_PAYMENT_METHODS, type PaymentMethod, type PaymentStatus } from '../../domain/payment.js';
import { Refusal } from '../../domain/refusal.js';

/** Where and when a traveller pays cash, in both languages of the service. */
const CASH_INSTRUCTIONS = {
  en: 'Pay in cash at the company office or to the driver before boarding. Your booking is marked paid once the cash is received.',
  ar: 'ادفع نقداً في مكتب الشركة أو للسائق قبل الصعود. يُسجَّل الحجز مدفوعاً عند استلام المبلغ.',
};

/** A pending cash payment as the traveller is told about it. */
export interface CashPayment {
  id: string;
  booking_id: string;
  method: 'CASH';
  status: PaymentStatus;
  amount: number;
  currency: string;
  instructions: { en: string; ar: string };
  company: { id: string; name_en: string; name_ar: string; phone: string | null };
  created_at: string;
}

function onlinePaymentsRefused(): Refusal {
  const available_methods = [...AVAILABLE_PAYMENT_METHODS];
  return new Refusal(
    409,
    'ONLINE_PAYMENTS_DEVELOPMENT_ONLY',
    'Online payment is not available yet; pay in cash',
    { available_methods },
    { available_methods },
  );
}

async function cashPayment(db: Database, payment: PaymentOperation): Promise<CashPayment> {
  return {
    id: payment.id,
    booking_id: payment.booking_id,
    method: 'CASH',
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    instructions: CASH_INSTRUCTIONS,
    company: await paymentCompany(db, payment.company_id),
    created_at: new Date(payment.created_at).toISOString(),
  };
}

/**
 * POST /payments/create: an online method is refused with the methods that work; cash opens (or
 * finds) the booking's pending cash payment, answered with the company that takes it.
 */
export async function announcePayment(
  db: Database,
  input: { bookingId: string; userId: string; method: PaymentMethod },
): Promise<{ payment: CashPayment; created: boolean }> {
  if (input.method !== 'CASH') throw onlinePaymentsRefused();
  const { payment, created } = await openCashPayment(db, {
    bookingId: input.bookingId,
    userId: input.userId,
  });
  return { payment: await cashPayment(db, payment), created };
}
