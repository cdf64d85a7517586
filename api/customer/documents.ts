import type { Context } from 'koa';
import type { z } from 'zod';
import type { DocumentKind, DocumentLocale } from '../../domain/documents.js';
import type { AppContext } from '../app.js';
import { FILE_TYPE, sendPdf } from '../documents/send.js';
import type { Infer, OperationDoc, Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { travellerBookingDocument } from '../use-cases/booking-documents.js';
import { docs, DocumentQuery, KIND_OF_TYPE, ReceiptQuery } from './documents.openapi.js';

/**
 * GET /bookings/{id}/document and GET /bookings/{id}/receipt: a booking's PDFs for its traveller,
 * sent as the stored bytes, private and no-store (api/use-cases/booking-documents.ts).
 */
async function sendBookingDocument(
  context: AppContext,
  ctx: Context,
  input: { bookingId: string; kind: DocumentKind; locale: DocumentLocale },
): Promise<void> {
  const { document, rendered } = await travellerBookingDocument(context, {
    ...input,
    userId: ctx.state.traveller!.userId,
    requestId: ctx.state.requestId,
  });
  sendPdf(ctx, rendered, {
    filename: `booking-${document.bookingCode}-${FILE_TYPE[document.kind]}-${document.locale}.pdf`,
    disposition: 'inline',
  });
}

export function registerDocumentRoutes(surface: Surface, context: AppContext): void {
  registerBookingPdfRoute(
    surface,
    context,
    { ...docs.getBookingDocument, path: '/bookings/{id}/document', query: DocumentQuery },
    (query) => ({ kind: KIND_OF_TYPE[query.type], locale: query.locale }),
  );
  registerBookingPdfRoute(
    surface,
    context,
    { ...docs.getBookingReceipt, path: '/bookings/{id}/receipt', query: ReceiptQuery },
    (query) => ({ kind: 'PAYMENT_RECEIPT', locale: query.locale }),
  );
}

/** A route that sends a PDF of the traveller's booking {id}: the kind and language its query asks for. */
function registerBookingPdfRoute<Q extends z.ZodType>(
  surface: Surface,
  context: AppContext,
  route: OperationDoc & { path: string; query: Q },
  documentOf: (query: Infer<Q>) => { kind: DocumentKind; locale: DocumentLocale },
): void {
  surface.route({
    ...route,
    method: 'get',
    head: false,
    security: 'traveller',
    params: IdParams,
    handler: async (ctx, { params, query }) => {
      await sendBookingDocument(context, ctx, { bookingId: params.id, ...documentOf(query) });
    },
  });
}
