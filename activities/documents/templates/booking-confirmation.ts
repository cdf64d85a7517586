import { boardingPage, bookingSection, type DocumentView } from './common.js';

/**
 * The booking confirmation: booking facts, the trip, travellers, and one signed boarding
 * credential QR per traveller (the credential the driver app verifies offline).
 */
export function bookingConfirmationHtml(view: DocumentView): string {
  return boardingPage(view, [bookingSection(view)]);
}
