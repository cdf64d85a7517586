import { z } from 'zod';
import { SHARE_DOCUMENT_KINDS, SHARE_PRESENTATIONS } from '../../domain/document-sharing.js';
import { Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText as DateTime, IdText, successWith } from '../http/answer-schemas.js';

/** Answer primitives shared by every surface, re-exported for this module's importers. */
export { DateTime };

/** Schemas and prose of the share routes that every issuing surface declares (api/documents/share-routes.ts). */

export const GrantParams = z.object({ grantId: Uuid }).strict();

export const CreateShareBody = z
  .object({
    bookingId: Uuid.meta({
      description:
        'the booking id, or the id of a journey that has one booking, as the document routes take it',
    }),
    documentKind: z.enum(SHARE_DOCUMENT_KINDS),
    presentation: z.enum(SHARE_PRESENTATIONS).meta({
      description: 'DOWNLOAD: the recipient may view and download; VIEW: the recipient may only view',
    }),
  })
  .strict()
  .meta({ id: 'DocumentShareRequest' });

const CreatedShare = successWith(
  z.object({
    grantId: IdText,
    url: z.string().meta({
      description: 'the one-use link, /share/{grantId}#token=<secret>; the secret is shown only here',
    }),
    expiresAt: DateTime.meta({ description: 'the link can be accepted until then' }),
  }),
);

const RevokedShare = successWith(
  z.object({
    grantId: IdText,
    status: z.literal('REVOKED'),
    revokedAt: DateTime,
  }),
);

/**
 * The docs of the issuer routes, in the order they are registered; each surface adds its suffix to
 * the operationId (share-routes.ts).
 */
export const docs = taggedOperations(['Documents'], {
  createDocumentShare: {
    summary: 'Share one document of a booking through a one-use link',
    description:
      'The issuer is resolved from the session: the traveller whose booking it is (one they made or one made ' +
      'for their passenger profile, as GET /bookings shows it; every kind); a company ' +
      'OWNER or ADMIN of the booking’s company (every kind); DISPATCHER and STAFF (BOOKING_CONFIRMATION and ' +
      'CANCELLATION_CONFIRMATION only); the driver assigned to the booking’s trip (BOOKING_CONFIRMATION and ' +
      'PAYMENT_RECEIPT only; driver app bearer token); ACCOUNTANT none; a platform administrator (SUPPORT ' +
      'included) 403 SHARE_ISSUER_FORBIDDEN; staff and drivers of a suspended company 403 COMPANY_SUSPENDED. ' +
      'A booking the issuer does not reach is 404 BOOKING_NOT_FOUND, also when a driver is taken off the ' +
      'trip (or the booking moved to another trip) while the share is made; a ' +
      'kind the role may not share is 403 SHARE_KIND_NOT_ALLOWED; a document that cannot be issued now keeps ' +
      'its document errorCode (409/410). The link is valid 5 minutes and for one use; the secret is returned ' +
      'only here and stored only as a hash.',
    responses: answers(201, 'Created', CreatedShare, [400, 401, 403, 404, 409, 410, 429, 503]),
  },
  revokeDocumentShare: {
    summary: 'Revoke a share; its recipient session ends at once',
    description:
      'Allowed to the issuer, the traveller whose booking it is (as GET /bookings shows it), and an OWNER or ADMIN of the booking’s ' +
      'company; anyone else gets 404 SHARE_NOT_FOUND; staff and drivers of a suspended company 403 ' +
      'COMPANY_SUSPENDED. Revoking again answers the same; an expired share is ' +
      '410 SHARE_EXPIRED.',
    responses: answers(200, 'Revoked', RevokedShare, [400, 401, 403, 404, 410, 429, 503]),
  },
});
