import { randomUUID } from 'node:crypto';
import {
  findShareGrant,
  recipientSessionSummary,
  shareableBooking,
  type RecipientSessionSummary,
  type ShareGrant,
} from '../../db/queries/document-shares.js';
import {
  acceptGrant,
  recordRecipientAccess,
  revokeUnattendedGrant,
  touchRecipientSession,
} from '../../db/writes/document-shares.js';
import { buildBookingDocument } from '../../db/writes/documents.js';
import { releaseOverdueScopesOf } from '../../db/writes/journeys/index.js';
import {
  actorOf,
  idleExpiresAt,
  issuerMember,
  mayRevoke,
  reaches,
  sessionEndedRefusal,
  shareableKinds,
  unacceptable,
  type SessionEnd,
  type ShareDocumentKind,
  type ShareIssuer,
  type SharePresentation,
} from '../../domain/document-sharing.js';
import type { DocumentLocale } from '../../domain/documents.js';
import { scaledMilliseconds } from '../../domain/journey-confirmation.js';
import type { AppContext } from '../app.js';
import { hashSecret, newSecret, sameSecret } from '../auth/secrets.js';
import { Refusal } from '../http/errors.js';
import {
  shareGrantClient,
  ShareProcessEnded,
  type ShareGrantClient,
} from '../temporal/share-grant-client.js';
import { renderBookingDocument, type RenderedBookingDocument } from './booking-documents.js';

/**
 * Document sharing (SPEC "Document sharing"), the same on every surface: an issuer shares one
 * document of a booking through a one-use link; its recipient accepts it once and then views (or
 * downloads) the document within a short session. The rules are in domain/document-sharing.ts;
 * every state change of a grant goes through its share-grant workflow (api/temporal/share-grant-client.ts),
 * unless that has ended with the grant still live (orFromRow).
 */

const notFound = () => new Refusal(404, 'SHARE_NOT_FOUND', 'No such share');
const sessionRequired = () =>
  new Refusal(401, 'SHARE_SESSION_REQUIRED', 'Open the share link and accept it first');

/** What a recipient session shows: the shared document and when the session ends. */
export interface RecipientSessionView {
  documentKind: ShareDocumentKind;
  presentation: SharePresentation;
  expiresAt: string;
  idleExpiresAt: string;
}

/** What the sharing operations run on: the app's database and Temporal, the grant's workflow, the lifetimes. */
export interface DocumentSharing {
  context: AppContext;
  workflow: ShareGrantClient;
  /** SHARE_LINK_MINUTES, SHARE_SESSION_MAX_MINUTES and SHARE_SESSION_IDLE_MINUTES after TIME_SCALE. */
  linkMilliseconds: number;
  sessionMilliseconds: number;
  idleMilliseconds: number;
}

export function documentSharing(context: AppContext): DocumentSharing {
  const scaled = (minutes: number) => scaledMilliseconds(minutes, context.config.TIME_SCALE);
  return {
    context,
    workflow: shareGrantClient(context.temporal, context.config),
    linkMilliseconds: scaled(context.config.SHARE_LINK_MINUTES),
    sessionMilliseconds: scaled(context.config.SHARE_SESSION_MAX_MINUTES),
    idleMilliseconds: scaled(context.config.SHARE_SESSION_IDLE_MINUTES),
  };
}

/**
 * Issues a share: the booking must be one the issuer reaches (else 404 BOOKING_NOT_FOUND) and the
 * kind one its role may share (else 403 SHARE_KIND_NOT_ALLOWED); a document that cannot be issued
 * now is refused up front with its own errorCode; then the grant's workflow starts and writes the grant,
 * reading a company user's company and session again (db/writes/document-shares.ts openGrant): a
 * suspension or deactivation committed meanwhile is refused as the request would have been.
 */
export async function issueShare(
  sharing: DocumentSharing,
  issuer: ShareIssuer,
  request: { bookingId: string; documentKind: ShareDocumentKind; presentation: SharePresentation },
): Promise<{ grantId: string; url: string; expiresAt: string }> {
  const { db } = sharing.context;
  const booking = await shareableBooking(db, request.bookingId);
  if (!booking || !reaches(issuer, booking)) throw new Refusal(404, 'BOOKING_NOT_FOUND', 'No such booking');
  const allowedKinds = shareableKinds(issuer);
  if (!allowedKinds.includes(request.documentKind)) {
    throw new Refusal(403, 'SHARE_KIND_NOT_ALLOWED', 'Your role may not share this kind of document', {
      documentKind: request.documentKind,
      allowedKinds: [...allowedKinds],
    });
  }
  // A request past its decision deadline is released first: its documents are a cancelled booking's.
  await releaseOverdueScopesOf(db, { kind: 'BOOKING', id: booking.id });
  await buildBookingDocument(db, {
    bookingId: booking.id,
    kind: request.documentKind,
    locale: 'en',
    viewer: { kind: 'GRANT' },
  });
  const secret = newSecret();
  const grantId = randomUUID();
  // A company user is checked again as the grant is written (the document was rendered since).
  const member = issuerMember(issuer, request.documentKind);
  const opened = await sharing.workflow.open(
    {
      grantId,
      bookingId: booking.id,
      companyId: booking.companyId,
      documentKind: request.documentKind,
      presentation: request.presentation,
      issuer: actorOf(issuer),
      secretHash: hashSecret(secret),
      linkMilliseconds: sharing.linkMilliseconds,
      sessionMilliseconds: sharing.sessionMilliseconds,
      ...(member ? { member } : {}),
    },
    booking.journeyId,
  );
  return { grantId, url: `/share/${grantId}#token=${secret}`, expiresAt: opened.linkExpiresAt };
}

/**
 * A grant's Update, or, when its workflow has ended (ShareProcessEnded), the same transaction the
 * workflow's activity runs. The workflow ends by itself only once the row is REVOKED or EXPIRED;
 * an operator's terminate or cancel ends it with the row CREATED or ACCEPTED, and the database is
 * the judge of a grant: its row and clocks, which preview, the recipient's session and the
 * document already read, then decide accept and revoke too (a live grant is accepted or revoked,
 * one past its link or session is expired), so the answers agree.
 */
async function orFromRow<T>(update: Promise<T>, fromRow: () => Promise<T>): Promise<T> {
  try {
    return await update;
  } catch (error) {
    if (error instanceof ShareProcessEnded) return fromRow();
    throw error;
  }
}

/** Revokes a share (mayRevoke; anyone else gets 404 SHARE_NOT_FOUND); revoking again answers the same. */
export async function revokeShare(
  sharing: DocumentSharing,
  issuer: ShareIssuer,
  grantId: string,
): Promise<{ grantId: string; status: 'REVOKED'; revokedAt: string }> {
  const grant = await findShareGrant(sharing.context.db, grantId);
  if (!grant || !mayRevoke(issuer, grant)) throw notFound();
  if (grant.status === 'EXPIRED') throw new Refusal(410, 'SHARE_EXPIRED', 'This share has already expired');
  const by = actorOf(issuer);
  const revoked =
    grant.status === 'REVOKED' && grant.revokedAt
      ? { revokedAt: grant.revokedAt.toISOString() }
      : await orFromRow(sharing.workflow.revoke(grant.id, by), () =>
          revokeUnattendedGrant(sharing.context.db, { grantId: grant.id, by }),
        );
  return { grantId: grant.id, status: 'REVOKED', revokedAt: revoked.revokedAt };
}

/** The grant whose secret the caller knows (anything else is the same 404), while its link can be accepted. */
async function acceptableGrant(
  sharing: DocumentSharing,
  grantId: string,
  secret: string,
): Promise<ShareGrant> {
  const grant = await findShareGrant(sharing.context.db, grantId);
  if (!grant || !sameSecret(hashSecret(secret), grant.secretHash)) throw notFound();
  const refusal = unacceptable(grant);
  if (refusal) throw refusal;
  return grant;
}

/** What a link opens, for the holder of its secret: the document kind and the operating company. */
export async function previewShare(sharing: DocumentSharing, grantId: string, secret: string) {
  const grant = await acceptableGrant(sharing, grantId, secret);
  return { documentKind: grant.documentKind, company: grant.company };
}

function sessionView(
  sharing: DocumentSharing,
  grant: ShareGrant,
  summary: RecipientSessionSummary,
): RecipientSessionView {
  return {
    documentKind: grant.documentKind,
    presentation: grant.presentation,
    expiresAt: summary.expiresAt.toISOString(),
    idleExpiresAt: idleExpiresAt(summary, sharing.idleMilliseconds).toISOString(),
  };
}

/** Accepts the link once: a new recipient session, whose token the caller hands out (as a cookie). */
export async function acceptShare(
  sharing: DocumentSharing,
  grantId: string,
  secret: string,
): Promise<{ grantId: string; sessionToken: string; session: RecipientSessionView }> {
  const grant = await acceptableGrant(sharing, grantId, secret);
  const sessionToken = newSecret();
  const sessionTokenHash = hashSecret(sessionToken);
  const accepted = await orFromRow(
    sharing.workflow.accept(grant.id, hashSecret(secret), sessionTokenHash),
    // The secret was checked against the row (acceptableGrant), as the workflow checks it.
    () =>
      acceptGrant(sharing.context.db, {
        grantId: grant.id,
        sessionTokenHash,
        sessionMilliseconds: sharing.sessionMilliseconds,
      }),
  );
  const summary = await recipientSessionSummary(sharing.context.db, accepted.sessionId);
  return { grantId: grant.id, sessionToken, session: sessionView(sharing, grant, summary) };
}

function refuseDeadSession(
  sharing: DocumentSharing,
  grantId: string,
  used: { sessionId: string } | { ended: SessionEnd } | null,
): asserts used is { sessionId: string } {
  if (!used) throw sessionRequired();
  if ('ended' in used) {
    // The workflow may expire the grant now rather than at the session's hard end.
    if (used.ended === 'IDLE') void sharing.workflow.reportIdle(grantId);
    throw sessionEndedRefusal(used.ended);
  }
}

interface Recipient extends ShareGrant {
  sessionId: string;
  sessionTokenHash: string;
}

/** The recipient session of this grant from its token, checked and touched (idleness ends it). */
async function recipientOf(
  sharing: DocumentSharing,
  grantId: string,
  sessionToken: string | undefined,
): Promise<Recipient> {
  if (!sessionToken) throw sessionRequired();
  const sessionTokenHash = hashSecret(sessionToken);
  const used = await touchRecipientSession(sharing.context.db, {
    grantId,
    sessionTokenHash,
    idleMilliseconds: sharing.idleMilliseconds,
  });
  refuseDeadSession(sharing, grantId, used);
  const grant = await findShareGrant(sharing.context.db, grantId);
  if (!grant) throw notFound();
  return { ...grant, sessionId: used.sessionId, sessionTokenHash };
}

/** The recipient session behind this token (asking counts as activity). */
export async function recipientSession(
  sharing: DocumentSharing,
  grantId: string,
  sessionToken: string | undefined,
): Promise<RecipientSessionView> {
  const recipient = await recipientOf(sharing, grantId, sessionToken);
  const summary = await recipientSessionSummary(sharing.context.db, recipient.sessionId);
  return sessionView(sharing, recipient, summary);
}

/**
 * The shared document for its recipient: rendered first, then the session re-checked (revoked,
 * expired or idle meanwhile: refused, no byte sent) and the view or download logged with the
 * checksum and size of the bytes about to be sent. A download needs a grant with presentation
 * DOWNLOAD (else 403 SHARE_DOWNLOAD_NOT_ALLOWED).
 */
export async function recipientDocument(
  sharing: DocumentSharing,
  grantId: string,
  sessionToken: string | undefined,
  request: { download: boolean; locale: DocumentLocale; requestId: string },
): Promise<RenderedBookingDocument> {
  const recipient = await recipientOf(sharing, grantId, sessionToken);
  if (request.download && recipient.presentation !== 'DOWNLOAD') {
    throw new Refusal(403, 'SHARE_DOWNLOAD_NOT_ALLOWED', 'This share may only be viewed');
  }
  const rendered = await renderBookingDocument(sharing.context, {
    bookingId: recipient.bookingId,
    kind: recipient.documentKind,
    locale: request.locale,
    viewer: { kind: 'GRANT' },
  });
  const final = await recordRecipientAccess(sharing.context.db, {
    grantId,
    sessionTokenHash: recipient.sessionTokenHash,
    idleMilliseconds: sharing.idleMilliseconds,
    snapshotId: rendered.snapshotId,
    action: request.download ? 'DOWNLOAD' : 'VIEW',
    sha256: rendered.rendered.sha256,
    size: rendered.rendered.size,
    requestId: request.requestId,
  });
  refuseDeadSession(sharing, grantId, final);
  return rendered;
}
