import { p } from '@mikro-orm/core';
import { SHARE_DOCUMENT_KINDS, SHARE_PRESENTATIONS, type IssuerKind } from '../../domain/document-sharing.js';
import { DOCUMENT_LOCALES, SNAPSHOT_KINDS, type SnapshotData } from '../../domain/documents.js';
import { baseEntity, entity, idEntity, sessionToken, stampedNow } from './base.js';

/**
 * Documents: immutable snapshots, their rendered bytes, the access log, and share grants of one
 * document to a second device with the recipient's session.
 */
export const DocumentSnapshot = baseEntity('DocumentSnapshot', 'document_snapshots', {
  kind: p.enum(SNAPSHOT_KINDS),
  locale: p.enum(DOCUMENT_LOCALES),
  /**
   * The booking the client names (a bookings row or a journey), hence no foreign key; for a
   * REPORT, the report export.
   */
  bookingId: p.uuid(),
  companyId: p.uuid(),
  ownerUserId: p.uuid().nullable(),
  number: p.text().nullable(),
  data: p.json<SnapshotData>(),
  /** SHA-256 of kind, locale and the canonical JSON of data. */
  fingerprint: p.text(),
});

/** The first stored bytes of a snapshot, with their checksum written before any byte is sent. */
export const DocumentRender = entity('DocumentRender', 'document_renders', {
  snapshotId: p.uuid().primary(),
  bytes: p.blob(),
  sha256: p.text(),
  size: p.integer(),
  renderedAt: stampedNow(),
});

export const DocumentAccessLogEntry = idEntity('DocumentAccessLogEntry', 'document_access_log', {
  snapshotId: p.uuid(),
  actorKind: p.enum(['TRAVELLER', 'STAFF', 'DRIVER', 'ADMIN', 'SHARE_RECIPIENT'] as const),
  actorId: p.text(),
  action: p.enum(['VIEW', 'DOWNLOAD'] as const),
  sha256: p.text(),
  size: p.integer(),
  requestId: p.text().nullable(),
  at: stampedNow(),
});

const IssuerKinds = ['TRAVELLER', 'STAFF', 'DRIVER'] as const satisfies readonly IssuerKind[];

/** The record of a share-grant/{id} workflow; only hashes of secrets are stored. */
export const DocumentShareGrant = baseEntity('DocumentShareGrant', 'document_share_grants', {
  bookingId: p.uuid(),
  companyId: p.uuid(),
  documentKind: p.enum(SHARE_DOCUMENT_KINDS),
  presentation: p.enum(SHARE_PRESENTATIONS),
  issuerKind: p.enum(IssuerKinds),
  /** users.id of a traveller, staff_users.id of a company user or driver. */
  issuerId: p.uuid(),
  /** TRAVELLER, or the company membership role the issuer acted with. */
  issuerRole: p.text(),
  secretHash: p.text(),
  status: p.enum(['CREATED', 'ACCEPTED', 'REVOKED', 'EXPIRED'] as const).default('CREATED'),
  linkExpiresAt: p.datetime(),
  acceptedAt: p.datetime().nullable(),
  revokedAt: p.datetime().nullable(),
  revokedBy: p.uuid().nullable(),
  revokedByKind: p.enum(IssuerKinds).nullable(),
  expiredAt: p.datetime().nullable(),
});

/** At most one per grant, ever: the database refuses a second accept. */
export const ShareRecipientSession = baseEntity('ShareRecipientSession', 'share_recipient_sessions', {
  grantId: p.uuid().unique(),
  ...sessionToken(),
  endedAt: p.datetime().nullable(),
  endedReason: p.enum(['REVOKED', 'EXPIRED', 'IDLE'] as const).nullable(),
});
