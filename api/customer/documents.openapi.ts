import { z } from 'zod';
import type { DocumentKind } from '../../domain/documents.js';
import { errorResponses, FileBytes, Locale } from '../http/schemas.js';
import { taggedOperations } from '../http/operation-docs.js';

/** Schemas and prose of GET /bookings/{id}/document and GET /bookings/{id}/receipt. */

export const DocumentQuery = z
  .object({
    type: z.enum(['ticket', 'confirmation']).meta({
      description:
        'ticket: one page per ticket (traveller × leg) with its QR; confirmation: the booking confirmation',
    }),
    locale: Locale.default('ar'),
  })
  .strict();

export const ReceiptQuery = z.object({ locale: Locale.default('ar') }).strict();

export const KIND_OF_TYPE: Record<'ticket' | 'confirmation', DocumentKind> = {
  ticket: 'TICKET',
  confirmation: 'BOOKING_CONFIRMATION',
};

const PdfResponse = {
  description:
    'The PDF (Cache-Control: private, no-store; X-Robots-Tag: noindex; Digest: sha-256 of the bytes)',
  contentType: 'application/pdf',
  schema: FileBytes,
};

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Tickets and documents'], {
  getBookingDocument: {
    summary: 'Ticket or booking confirmation PDF of an own booking',
    description:
      "The traveller's own booking only (one they made or one made for their passenger profile, as GET /bookings " +
      "shows it; another traveller's, or none: 404 BOOKING_NOT_FOUND); {id} is the " +
      'booking id, or the id of a journey that has one booking. Issued only while the confirmation ' +
      'projection authorizes boarding (journey CONFIRMED, tickets VALID with boarding_authorized): a ' +
      'request still awaiting the company, or held, gets 409 BOOKING_NOT_CONFIRMED and no QR. An expired QR ' +
      'or a consumed one (ticket USED) gets 410 DOCUMENT_GONE. A QR expires when the trip arrived, ' +
      "completed or was cancelled, or the booking was cancelled; when the bus has left the traveller's " +
      "boarding stop: at DEPART for a traveller boarding at the trip's first stop, while one boarding at a " +
      "later stop keeps it until that stop's planned departure plus the trip's lateness (its announced " +
      'delay, or how late it left its first stop if more) has passed; and, before the trip departs, once ' +
      "the alighting stop's planned arrival plus the announced delay has passed (a DELAYED trip keeps its " +
      'documents past its planned times). The confirmation lists every traveller with one QR per traveller whose QR ' +
      'can still be printed (one already checked in is listed without a QR); type=ticket prints one page per ' +
      'printable ticket with its QR. A QR encodes the signed boarding credential exactly as the driver ' +
      'app verifies it: the canonical JSON `{"payload":{…},"signature":"…"}` (POST it to /driver/api/verify ' +
      'with the trip being boarded). The document is an immutable snapshot: asked again with nothing ' +
      'changed it is byte-identical; after the tickets were re-issued it is a new snapshot with the new ' +
      'credentials. Its SHA-256 is recorded in the render log before any byte is sent (also sent as the ' +
      'Digest header). Inline, file name booking-<code>-<type>-<locale>.pdf; locale defaults to ar. 500 ' +
      'DOCUMENT_RENDER_FAILED when the PDF or its checksum cannot be stored; 503 SERVICE_UNAVAILABLE (Retry-After: 5, ' +
      'details.retryAfterSeconds) when it still has to be rendered and Temporal does not answer, or when its render ' +
      'has not finished within 20 s (no worker free to run it): nothing sent or logged, the render goes on and a ' +
      'retry gets its PDF. A HEAD sends no bytes, so it ' +
      'is 405 METHOD_NOT_ALLOWED (Allow: GET): nothing rendered, nothing logged.',
    responses: {
      200: PdfResponse,
      ...errorResponses(400, 401, 404, 405, 409, 410, 500),
    },
  },
  getBookingReceipt: {
    summary: 'Payment receipt (or refund notice) PDF of an own booking',
    description:
      "The traveller's own booking only (one they made or one made for their passenger profile, as GET /bookings " +
      'shows it; else 404 BOOKING_NOT_FOUND). Issued only after collection is proved: a ' +
      "COMPLETED payment operation of the booking's company (409 PAYMENT_NOT_COLLECTED before); when that payment was " +
      'refunded the answer is the refund notice. A record of another company than the booking, or a booking whose trip ' +
      'or route belongs to another company, is never used. The most reliable record is chosen: a verified operation ' +
      "record ('transaction'), then 'driver', 'office', and the 'booking' payment fact, newest first within a source. " +
      'Its number is assigned once and never changes: RCP-<year>-<6 digits> for a receipt, RFD-<year>-<6 digits> for a ' +
      'refund notice, numbered per company and year (Damascus time). The first snapshot of a number is kept: later ' +
      'downloads reuse it and re-render from it when its bytes are missing; in the other locale they print its facts ' +
      "(the company's name and phone as they were at issue) in that language. The checksum is recorded before any byte " +
      'is sent; 500 DOCUMENT_RENDER_FAILED when it cannot be (503 SERVICE_UNAVAILABLE with Retry-After while ' +
      'Temporal does not answer, or when the render has not finished within 20 s: the render goes on and a retry ' +
      'gets its PDF). File name booking-<code>-receipt|refund-<locale>.pdf. ' +
      'A HEAD sends no bytes, so it is 405 METHOD_NOT_ALLOWED (Allow: GET): nothing rendered, nothing logged.',
    responses: {
      200: PdfResponse,
      ...errorResponses(400, 401, 404, 405, 409, 500),
    },
  },
});
