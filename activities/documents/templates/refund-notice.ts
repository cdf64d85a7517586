import { numberedReference, page, paymentFacts, tripSection, type DocumentView } from './common.js';

/** The refund notice: its fixed refund number, what was returned, how and when. */
export function refundNoticeHtml(view: DocumentView): string {
  const number = view.data.payment?.number ?? '';
  return page(view, numberedReference(view.t.refundNumber, number, view), [
    paymentFacts(view, view.t.refundedAt),
    tripSection(view),
  ]);
}
