import { receiptPage, type DocumentView } from './common.js';

/** The refund notice: its fixed refund number, what was returned, how and when. */
export function refundNoticeHtml(view: DocumentView): string {
  return receiptPage(view, view.t.refundNumber, view.t.refundedAt);
}
