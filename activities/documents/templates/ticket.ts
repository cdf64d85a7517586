import { boardingPage, type DocumentView } from './common.js';

/** The ticket: the trip, who sits where, and each traveller's boarding pass. */
export function ticketHtml(view: DocumentView): string {
  return boardingPage(view);
}
