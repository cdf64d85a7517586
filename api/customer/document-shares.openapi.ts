import { z } from 'zod';
import { SHARE_DOCUMENT_KINDS, SHARE_PRESENTATIONS } from '../../domain/document-sharing.js';
import { DateTime } from '../documents/share-routes.openapi.js';
import { errorResponses, FileBytes, Locale } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/** Schemas and prose of the recipient's share routes (preview, accept, session, document). */

const TAGS = ['Documents'];

export const SecretBody = z
  .object({ secret: z.string().min(1).max(256).meta({ description: 'the token from the link fragment' }) })
  .strict();

export const DocumentQuery = z
  .object({
    action: z.enum(['view', 'download']),
    locale: Locale.default('ar'),
  })
  .strict();

const SharePreview = successWith(
  z.object({
    documentKind: z.enum(SHARE_DOCUMENT_KINDS),
    company: z.object({ name_ar: z.string(), name_en: z.string() }),
  }),
);

const RecipientSession = successWith(
  z.object({
    documentKind: z.enum(SHARE_DOCUMENT_KINDS),
    presentation: z.enum(SHARE_PRESENTATIONS),
    expiresAt: DateTime.meta({ description: 'hard end of the session' }),
    idleExpiresAt: DateTime.meta({ description: 'the session ends then unless another request comes first' }),
  }),
);

const PdfResponse = {
  description: 'The PDF (private, no-store, noindex); inline for view, attachment for download',
  contentType: 'application/pdf',
  schema: FileBytes,
};

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  previewDocumentShare: {
    summary: 'What a share link opens: the document kind and the operating company, nothing else',
    description:
      'No session needed; the secret from the link fragment goes in the body. A wrong secret is 404 ' +
      'SHARE_NOT_FOUND like an unknown grant; an expired link 410 SHARE_EXPIRED; a revoked share 410 ' +
      'SHARE_REVOKED; a link already accepted 409 SHARE_ALREADY_ACCEPTED.',
    responses: answers(200, 'Preview', SharePreview, [400, 404, 409, 410, 429]),
  },
  acceptDocumentShare: {
    summary: 'Accept a share link (once) and open the recipient session',
    description:
      'Sets the recipient cookie bb_share (HttpOnly, SameSite=Strict, Path=/api/document-shares/{grantId}); ' +
      'the session lasts at most 30 minutes and ends after 15 minutes without a request. The cookie opens ' +
      'only this grant’s session and document; it is no traveller credential. Two accepts never give two ' +
      'sessions: the second is 409 SHARE_ALREADY_ACCEPTED. Sharing busy: 503 SHARE_UNAVAILABLE (Retry-After); ' +
      'an accept still unwritten when the request stops waiting never commits later, so the retry with ' +
      'the same secret accepts the link.',
    responses: answers(200, 'Accepted', RecipientSession, [400, 404, 409, 410, 429, 503]),
  },
  getDocumentShareSession: {
    summary: 'The recipient session of a share (recipient cookie)',
    description:
      'No cookie or another grant’s cookie: 401 SHARE_SESSION_REQUIRED. Revoked: 410 SHARE_REVOKED. Past ' +
      'its 30 minutes or idle for 15: 410 SHARE_SESSION_EXPIRED (an idle session ends then and there).',
    responses: answers(200, 'The session', RecipientSession, [400, 401, 410, 429]),
  },
  getSharedDocument: {
    summary: 'The shared document as PDF (recipient cookie)',
    description:
      'Builds the document’s snapshot and renders it first, then re-checks the session (revoked, expired or ' +
      'idle meanwhile: refused, no byte sent) and logs the view or download with the checksum and size ' +
      'before the bytes go. action=download needs a grant with presentation DOWNLOAD (else 403 ' +
      'SHARE_DOWNLOAD_NOT_ALLOWED). 500 DOCUMENT_RENDER_FAILED when the PDF cannot be produced; 503 ' +
      'SERVICE_UNAVAILABLE with Retry-After when Temporal does not answer or the render has not finished within ' +
      '20 s (nothing sent or logged; the render goes on and a retry gets its PDF). A HEAD sends no bytes, so it ' +
      'is 405 METHOD_NOT_ALLOWED (Allow: GET): nothing rendered, nothing logged.',
    responses: {
      200: PdfResponse,
      ...errorResponses(400, 401, 403, 405, 409, 410, 429, 500),
    },
  },
});
