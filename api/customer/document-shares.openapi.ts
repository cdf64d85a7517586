import { z } from 'zod';
import { SHARE_DOCUMENT_KINDS, SHARE_PRESENTATIONS } from '../../domain/document-sharing.js';
import { DateTime } from '../documents/share-routes.openapi.js';
import { Locale } from '../http/schemas.js';

/** Schemas and prose of the recipient's share routes (preview, accept, session, document). */

export const SecretBody = z
  .object({ secret: z.string().min(1).max(256).meta({ description: 'the token from the link fragment' }) })
  .strict();

export const DocumentQuery = z
  .object({
    action: z.enum(['view', 'download']),
    locale: Locale.default('ar'),
  })
  .strict();

export const SharePreview = z.object({
  success: z.literal(true),
  data: z.object({
    documentKind: z.enum(SHARE_DOCUMENT_KINDS),
    company: z.object({ name_ar: z.string(), name_en: z.string() }),
  }),
});

export const RecipientSession = z.object({
  success: z.literal(true),
  data: z.object({
    documentKind: z.enum(SHARE_DOCUMENT_KINDS),
    presentation: z.enum(SHARE_PRESENTATIONS),
    expiresAt: DateTime.meta({ description: 'hard end of the session' }),
    idleExpiresAt: DateTime.meta({ description: 'the session ends then unless another request comes first' }),
  }),
});

export const PdfResponse = {
  description: 'The PDF (private, no-store, noindex); inline for view, attachment for download',
  contentType: 'application/pdf',
  schema: z.string().meta({ format: 'binary' }),
};

export const PREVIEW_DESCRIPTION =
  'No session needed; the secret from the link fragment goes in the body. A wrong secret is 404 ' +
  'SHARE_NOT_FOUND like an unknown grant; an expired link 410 SHARE_EXPIRED; a revoked share 410 ' +
  'SHARE_REVOKED; a link already accepted 409 SHARE_ALREADY_ACCEPTED.';

export const ACCEPT_DESCRIPTION =
  'Sets the recipient cookie bb_share (HttpOnly, SameSite=Strict, Path=/api/document-shares/{grantId}); ' +
  'the session lasts at most 30 minutes and ends after 15 minutes without a request. The cookie opens ' +
  'only this grant’s session and document; it is no traveller credential. Two accepts never give two ' +
  'sessions: the second is 409 SHARE_ALREADY_ACCEPTED.';

export const SESSION_DESCRIPTION =
  'No cookie or another grant’s cookie: 401 SHARE_SESSION_REQUIRED. Revoked: 410 SHARE_REVOKED. Past ' +
  'its 30 minutes or idle for 15: 410 SHARE_SESSION_EXPIRED (an idle session ends then and there).';

export const DOCUMENT_DESCRIPTION =
  'Builds the document’s snapshot and renders it first, then re-checks the session (revoked, expired or ' +
  'idle meanwhile: refused, no byte sent) and logs the view or download with the checksum and size ' +
  'before the bytes go. action=download needs a grant with presentation DOWNLOAD (else 403 ' +
  'SHARE_DOWNLOAD_NOT_ALLOWED).';
