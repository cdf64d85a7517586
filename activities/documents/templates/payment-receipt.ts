import { receiptPage, type DocumentView } from './common.js';

/** The payment receipt: its fixed receipt number and the collection it proves. */
export function paymentReceiptHtml(view: DocumentView): string {
  return receiptPage(view, view.t.receiptNumber, view.t.collectedAt);
}
