import { receiptOf, refuseDocument, type DocumentLocale } from '../../domain/documents.js';
import type { PaymentSource } from '../../domain/payment-ledger.js';
import type { Database } from '../orm.js';
import { readBookingFacts, type CollectionRecord } from '../queries/documents.js';
import { buildBookingDocument, documentOf, issuedReceipt, type BookingDocument } from './documents.js';

/**
 * The dashboard's receipt of one collection record (GET /payments/receipts/{source}/{id}), built
 * with the customer receipt machinery: the same fixed numbers (receipts), the same snapshot data
 * (receiptDocumentData) and the same templates. A REFUNDED record gives its refund notice.
 *
 * - transaction, driver, office: `id` is the payment operation of that source;
 * - booking: `id` is the booking, and the receipt is that of its payment fact: the most reliable
 *   collection record, exactly as the traveller's GET /bookings/{id}/receipt picks it.
 */
export interface PaymentReceiptInput {
  companyId: string;
  source: PaymentSource;
  id: string;
  locale: DocumentLocale;
}

interface OperationRow {
  id: string;
  booking_id: string;
  source: PaymentSource;
  method: string;
  amount: number;
  status: string;
  collected_at: string | null;
  refunded_at: string | null;
}

const notFound = () => refuseDocument('notFound');

export async function buildPaymentReceipt(
  db: Database,
  input: PaymentReceiptInput,
): Promise<BookingDocument> {
  if (input.source === 'booking') {
    return buildBookingDocument(db, {
      bookingId: input.id,
      kind: 'PAYMENT_RECEIPT',
      locale: input.locale,
      viewer: { kind: 'COMPANY', companyId: input.companyId },
    });
  }
  const [operation] = await db.query<OperationRow>(
    `select id, booking_id, source, method, amount::float8 as amount, status, collected_at, refunded_at
       from payment_operations where id = $1 and company_id = $2 and source = $3`,
    [input.id, input.companyId, input.source],
  );
  if (!operation) throw notFound();
  const booking = await readBookingFacts(db, operation.booking_id);
  if (!booking || booking.companyId !== input.companyId) throw notFound();
  const receipt = receiptOf('PAYMENT_RECEIPT', collectionRecordOf(operation));
  return documentOf(booking, input.locale, await issuedReceipt(db, booking, receipt));
}

/** The operation as a collection record; an incomplete one (PENDING, CANCELLED, FAILED) has none. */
function collectionRecordOf(row: OperationRow): CollectionRecord | undefined {
  if (row.collected_at === null || !['COMPLETED', 'REFUND_DUE', 'REFUNDED'].includes(row.status)) {
    return undefined;
  }
  return {
    id: row.id,
    source: row.source,
    method: row.method,
    amount: row.amount,
    // A refund still owed is money collected: its receipt stands until the refund is paid.
    status: row.status === 'REFUNDED' ? 'REFUNDED' : 'COMPLETED',
    collectedAt: new Date(row.collected_at).toISOString(),
    refundedAt: row.refunded_at === null ? null : new Date(row.refunded_at).toISOString(),
  };
}
