import {
  bookingReference,
  bookingSection,
  page,
  priceTable,
  tripSection,
  type DocumentView,
} from './common.js';

/** The invoice: what the booking costs, with its discount, for the trip booked. */
export function invoiceHtml(view: DocumentView): string {
  return page(view, bookingReference(view), [bookingSection(view), tripSection(view), priceTable(view)]);
}
