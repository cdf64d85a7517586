import type { Context } from 'koa';
import type { DocumentKind } from '../../domain/documents.js';
import type { RenderedDocument } from '../temporal/document-render-client.js';

export interface SendOptions {
  /** The file name offered to the browser, e.g. `ticket-BK1234-ar.pdf`. */
  filename: string;
  disposition: 'inline' | 'attachment';
}

/** The file name part of each kind, e.g. booking-<code>-<type>-<locale>.pdf. */
export const FILE_TYPE: Record<DocumentKind, string> = {
  TICKET: 'ticket',
  BOOKING_CONFIRMATION: 'confirmation',
  INVOICE: 'invoice',
  CANCELLATION_CONFIRMATION: 'cancellation',
  PAYMENT_RECEIPT: 'receipt',
  REFUND_NOTICE: 'refund',
};

/**
 * Answers with a stored PDF. Documents are personal: never cached by anyone, never indexed, never
 * sniffed into another type. The recorded checksum goes along (Content-Digest, RFC 9530) so a client
 * can verify the bytes. A route that sends one is declared `head: false` (api/http/route.ts): honest
 * headers (length, checksum) need the render, and a render logs the view or download, which a HEAD
 * never receives.
 */
export function sendPdf(ctx: Context, doc: RenderedDocument, options: SendOptions): void {
  ctx.status = 200;
  ctx.set('Content-Type', 'application/pdf');
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.set('Content-Disposition', contentDisposition(options));
  ctx.set('Content-Length', String(doc.size));
  ctx.set('Content-Digest', `sha-256=:${Buffer.from(doc.sha256, 'hex').toString('base64')}:`);
  ctx.body = doc.bytes;
}

/** RFC 6266: an ASCII fallback name plus the UTF-8 name (RFC 8187) for Arabic file names. */
function contentDisposition({ filename, disposition }: SendOptions): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
