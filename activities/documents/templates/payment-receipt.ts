import { numberedReference, page, paymentFacts, tripSection, type DocumentView } from './common.js';

/** The payment receipt: its fixed receipt number and the collection it proves. */
export function paymentReceiptHtml(view: DocumentView): string {
  const number = view.data.payment?.number ?? '';
  return page(view, numberedReference(view.t.receiptNumber, number, view), [
    paymentFacts(view, view.t.collectedAt),
    tripSection(view),
  ]);
}
