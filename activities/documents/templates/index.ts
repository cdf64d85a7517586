import type { DocumentKind, DocumentLocale, SnapshotData } from '../../../domain/documents.js';
import { bookingConfirmationHtml } from './booking-confirmation.js';
import { cancellationConfirmationHtml } from './cancellation-confirmation.js';
import { viewOf, type DocumentView } from './common.js';
import { invoiceHtml } from './invoice.js';
import { paymentReceiptHtml } from './payment-receipt.js';
import { refundNoticeHtml } from './refund-notice.js';
import { ticketHtml } from './ticket.js';

const TEMPLATES: Record<DocumentKind, (view: DocumentView) => string> = {
  TICKET: ticketHtml,
  BOOKING_CONFIRMATION: bookingConfirmationHtml,
  INVOICE: invoiceHtml,
  CANCELLATION_CONFIRMATION: cancellationConfirmationHtml,
  PAYMENT_RECEIPT: paymentReceiptHtml,
  REFUND_NOTICE: refundNoticeHtml,
};

/** The complete HTML of a document: Arabic right to left, English left to right. */
export function documentHtml(kind: DocumentKind, locale: DocumentLocale, data: SnapshotData): string {
  return TEMPLATES[kind](viewOf(kind, locale, data));
}
