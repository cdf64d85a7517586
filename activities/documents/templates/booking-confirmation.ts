import { boardingPage, bookingSection, type DocumentView } from './common.js';

/**
 * The booking confirmation: booking facts, the trip, every traveller, and one signed boarding
 * credential QR per traveller whose QR can still be printed (the credential the driver app verifies
 * offline; a traveller checked in is listed without one).
 */
export function bookingConfirmationHtml(view: DocumentView): string {
  return boardingPage(view, [bookingSection(view)]);
}
