import {
  bookingReference,
  boardingPasses,
  page,
  travellersTable,
  tripSection,
  type DocumentView,
} from './common.js';

/** The ticket: the trip, who sits where, and each traveller's boarding pass. */
export function ticketHtml(view: DocumentView): string {
  return page(view, bookingReference(view), [tripSection(view), travellersTable(view), boardingPasses(view)]);
}
