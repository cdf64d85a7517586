import {
  boardingPage,
  boardingPasses,
  bookingReference,
  credentialHolders,
  pagedDocument,
  travellersTable,
  tripSection,
  type DocumentView,
} from './common.js';

/**
 * The ticket: one page per ticket (traveller × leg), each with the company, the booking, the trip,
 * that ticket's traveller and seat, and its boarding pass with its QR. A booking without a signed
 * credential (never issued as a ticket: the route refuses it) prints the trip and who sits where
 * on one page.
 */
export function ticketHtml(view: DocumentView): string {
  const holders = credentialHolders(view.data);
  if (holders.length === 0) return boardingPage(view);
  return pagedDocument(
    view,
    bookingReference(view),
    holders.map((holder) => [
      tripSection(view),
      travellersTable(view, [holder]),
      boardingPasses(view, [holder]),
    ]),
  );
}
