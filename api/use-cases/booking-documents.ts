import { bookingTraveller } from '../../db/queries/booking-ownership.js';
import {
  buildBookingDocument,
  recordAccess,
  saveSnapshot,
  type BookingDocument,
  type BookingDocumentInput,
} from '../../db/writes/documents.js';
import { releaseOverdueScopesOf } from '../../db/writes/journeys/index.js';
import type { DocumentKind, DocumentLocale } from '../../domain/documents.js';
import {
  renderedDocument,
  type RenderContext,
  type RenderedDocument,
} from '../temporal/document-render-client.js';

/**
 * A booking's PDF on every surface: build data → immutable snapshot → stored render (bytes and
 * SHA-256 recorded before any byte is sent) → access log; the route then sends the stored bytes.
 */
export interface RenderedBookingDocument {
  document: BookingDocument;
  snapshotId: string;
  rendered: RenderedDocument;
}

/**
 * The document built for its viewer (a refusal is thrown), saved as an immutable snapshot, and
 * that snapshot's stored render. A booking whose request passed its decision deadline is released
 * first (releaseOverdueScopesOf), so its documents are those of a cancelled booking.
 */
export async function renderBookingDocument(
  context: RenderContext,
  input: BookingDocumentInput,
): Promise<RenderedBookingDocument> {
  await releaseOverdueScopesOf(context.db, { kind: 'BOOKING', id: input.bookingId });
  const document = await buildBookingDocument(context.db, input);
  const { snapshotId } = await saveSnapshot(context.db, document);
  return { document, snapshotId, rendered: await renderedDocument(context, snapshotId) };
}

/**
 * A traveller's own booking document (owned, or made for their canonical passenger: ownsBooking), its
 * view logged with the checksum of the bytes about to go.
 */
export async function travellerBookingDocument(
  context: RenderContext,
  input: { bookingId: string; kind: DocumentKind; locale: DocumentLocale; userId: string; requestId: string },
): Promise<RenderedBookingDocument> {
  const rendered = await renderBookingDocument(context, {
    bookingId: input.bookingId,
    kind: input.kind,
    locale: input.locale,
    viewer: { kind: 'TRAVELLER', ...(await bookingTraveller(context.db, input.userId)) },
  });
  await recordAccess(context.db, {
    snapshotId: rendered.snapshotId,
    actorKind: 'TRAVELLER',
    actorId: input.userId,
    action: 'VIEW',
    sha256: rendered.rendered.sha256,
    size: rendered.rendered.size,
    requestId: input.requestId,
  });
  return rendered;
}
