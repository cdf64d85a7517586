import type { ActingMember } from './company-actor.js';
import { ownsBooking, type BookingOwnership, type BookingTraveller } from './booking-ownership.js';
import { Refusal } from './refusal.js';

/**
 * Value types and rules of document sharing (SPEC "Document share grant") shared by the API, the share-grant
 * workflow's contract, its activities and the database writes: what a grant shares, who issues it,
 * what each transition answers, the refusals with their HTTP status, and who may share, revoke and
 * keep using a share.
 */
/** The document kinds a grant may share (SPEC "Document share grant"). */
export const SHARE_DOCUMENT_KINDS = [
  'BOOKING_CONFIRMATION',
  'INVOICE',
  'CANCELLATION_CONFIRMATION',
  'PAYMENT_RECEIPT',
] as const;
export type ShareDocumentKind = (typeof SHARE_DOCUMENT_KINDS)[number];

/** DOWNLOAD lets the recipient save the PDF; VIEW only shows it inline. */
export const SHARE_PRESENTATIONS = ['DOWNLOAD', 'VIEW'] as const;
export type SharePresentation = (typeof SHARE_PRESENTATIONS)[number];

export type IssuerKind = 'TRAVELLER' | 'STAFF' | 'DRIVER';

/** Who created (or revokes) a grant: a traveller's user id, or a company user's staff user id. */
export interface ShareActor {
  kind: IssuerKind;
  id: string;
  /** TRAVELLER, or the company membership role the user acted with. */
  role: string;
}

export interface ShareGrantInput {
  grantId: string;
  bookingId: string;
  companyId: string;
  documentKind: ShareDocumentKind;
  presentation: SharePresentation;
  issuer: ShareActor;
  /** SHA-256 (hex) of the one-use link secret. */
  secretHash: string;
  /** How long the link may be accepted (SHARE_LINK_MINUTES after TIME_SCALE). */
  linkMilliseconds: number;
  /** Hard end of the recipient session after accepting (SHARE_SESSION_MAX_MINUTES after TIME_SCALE). */
  sessionMilliseconds: number;
  /**
   * A company user issuer's session and membership, checked again where the grant is written
   * (issuerMember); absent for a traveller, and in the inputs of grants opened before it was carried.
   */
  member?: ActingMember;
}

export interface OpenResult {
  grantId: string;
  /** ISO 8601 instant after which the link can no longer be accepted. */
  linkExpiresAt: string;
}

export interface AcceptResult {
  sessionId: string;
  /** ISO 8601 hard end of the recipient session. */
  expiresAt: string;
}

export interface RevokeResult {
  status: 'REVOKED';
  revokedAt: string;
}

/**
 * Refusals of the workflow and its activities, with their HTTP status. A refusal fails the Update
 * with an ApplicationFailure whose type is the errorCode and whose first detail is {status}.
 * A wrong secret is the same 404 as an unknown grant, so the answer is no oracle.
 */
export const SHARE_REFUSAL_STATUS = {
  SHARE_NOT_FOUND: 404,
  SHARE_ALREADY_ACCEPTED: 409,
  SHARE_EXPIRED: 410,
  SHARE_REVOKED: 410,
  /** Past its deadline (shareAcceptLate): the API answers it as 503 SHARE_UNAVAILABLE. */
  SHARE_ACCEPT_LATE: 503,
} as const;

export type ShareRefusalCode = keyof typeof SHARE_REFUSAL_STATUS;

/** A grant's state in the database; the share-grant workflow moves it. */
export type GrantStatus = 'CREATED' | 'ACCEPTED' | 'REVOKED' | 'EXPIRED';

/** A refusal of a share transition, with the HTTP status its code stands for. */
export class ShareRefusal extends Refusal {
  declare readonly code: ShareRefusalCode;
  constructor(code: ShareRefusalCode, message: string) {
    super(SHARE_REFUSAL_STATUS[code], code, message);
  }
}

/**
 * An accept's deadline (`acceptBy`) is the instant the API gives it to commit by, so that it commits
 * while the request still waits for it. An accept that would commit later is refused with this and
 * writes nothing: the 503 the API answers once it stops waiting stays true, and the retry it asks
 * for finds the link still unused (a session whose token only the abandoned request knew would
 * spend it).
 */
export const shareAcceptLate = () =>
  new ShareRefusal(
    'SHARE_ACCEPT_LATE',
    'The accept came after the request stopped waiting for it; nothing was written',
  );

/**
 * Why a grant that is not CREATED (or whose link ran out) cannot be accepted: the accept's
 * transaction and the API's preview and accept (before the workflow) refuse alike.
 */
export function unacceptable(grant: { status: GrantStatus; linkOpen: boolean } | null): ShareRefusal | null {
  if (!grant) return new ShareRefusal('SHARE_NOT_FOUND', 'No such share');
  if (grant.status === 'ACCEPTED')
    return new ShareRefusal('SHARE_ALREADY_ACCEPTED', 'This link was already used');
  if (grant.status === 'REVOKED') return new ShareRefusal('SHARE_REVOKED', 'This share was revoked');
  if (grant.status === 'EXPIRED' || !grant.linkOpen)
    return new ShareRefusal('SHARE_EXPIRED', 'This link has expired');
  return null;
}

/**
 * Who issues (and revokes) document shares, as the API resolved it from the session alone: a
 * traveller, or a company user (STAFF with the membership role; DRIVER for a DRIVER membership).
 */
export type ShareIssuer =
  | ({ kind: 'TRAVELLER' } & BookingTraveller)
  | {
      kind: 'STAFF' | 'DRIVER';
      staffUserId: string;
      companyId: string;
      role: string;
      /** The session the request came with and its membership, read again when the grant is written. */
      sessionId: string;
      membershipId: string;
    };

/** The facts of a booking that decide who may share its documents. */
export interface SharedBookingFacts extends BookingOwnership {
  companyId: string;
  /** The staff user driving the booking's trip, if one is assigned. */
  driverId: string | null;
}

/**
 * Whether the issuer reaches the booking at all (otherwise it is answered as if it did not exist):
 * its traveller (ownsBooking: owned, or made for their canonical passenger), any company user of
 * its company, or the driver assigned to its trip.
 */
export function reaches(issuer: ShareIssuer, booking: SharedBookingFacts): boolean {
  if (issuer.kind === 'TRAVELLER') return ownsBooking(issuer, booking);
  if (issuer.companyId !== booking.companyId) return false;
  return issuer.kind === 'STAFF' || booking.driverId === issuer.staffUserId;
}

/** What each company role may share (SPEC): OWNER and ADMIN everything, DISPATCHER and STAFF confirmations. */
const COMPANY_ROLE_KINDS: Record<string, readonly ShareDocumentKind[]> = {
  OWNER: SHARE_DOCUMENT_KINDS,
  ADMIN: SHARE_DOCUMENT_KINDS,
  DISPATCHER: ['BOOKING_CONFIRMATION', 'CANCELLATION_CONFIRMATION'],
  STAFF: ['BOOKING_CONFIRMATION', 'CANCELLATION_CONFIRMATION'],
};
/** The driver assigned to the booking's trip: the confirmation and the receipt. */
const DRIVER_KINDS: readonly ShareDocumentKind[] = ['BOOKING_CONFIRMATION', 'PAYMENT_RECEIPT'];

/** The document kinds an issuer may share of a booking it reaches (ACCOUNTANT and unknown roles: none). */
export function shareableKinds(issuer: ShareIssuer): readonly ShareDocumentKind[] {
  if (issuer.kind === 'TRAVELLER') return SHARE_DOCUMENT_KINDS;
  if (issuer.kind === 'DRIVER') return DRIVER_KINDS;
  return COMPANY_ROLE_KINDS[issuer.role] ?? [];
}

/**
 * A company user issuer as the grant's write checks them again (db/writes/acting-member.ts): the
 * same session and membership, still live, with a role that may share `kind`. Null for a traveller,
 * whose share of their own booking is no write of the company.
 */
export function issuerMember(issuer: ShareIssuer, kind: ShareDocumentKind): ActingMember | null {
  if (issuer.kind === 'TRAVELLER') return null;
  const roles =
    issuer.kind === 'DRIVER'
      ? ['DRIVER']
      : Object.entries(COMPANY_ROLE_KINDS)
          .filter(([, kinds]) => kinds.includes(kind))
          .map(([role]) => role);
  const { sessionId, membershipId, staffUserId } = issuer;
  return { sessionId, membershipId, staffUserId, allowedRoles: roles };
}

/** The grant's facts that decide who may revoke it. */
export interface RevocableGrantFacts {
  issuerKind: IssuerKind;
  issuerId: string;
  companyId: string;
  bookingOwnerUserId: string | null;
  bookingPassengerId: string | null;
}

/** The issuer, the booking's traveller (ownsBooking), or an OWNER or ADMIN of the booking's company. */
export function mayRevoke(issuer: ShareIssuer, grant: RevocableGrantFacts): boolean {
  if (issuer.kind === 'TRAVELLER') {
    return (
      (grant.issuerKind === 'TRAVELLER' && grant.issuerId === issuer.userId) ||
      ownsBooking(issuer, { ownerUserId: grant.bookingOwnerUserId, passengerId: grant.bookingPassengerId })
    );
  }
  const isIssuer = grant.issuerKind !== 'TRAVELLER' && grant.issuerId === issuer.staffUserId;
  const companyManager =
    issuer.kind === 'STAFF' &&
    issuer.companyId === grant.companyId &&
    ['OWNER', 'ADMIN'].includes(issuer.role);
  return isIssuer || companyManager;
}

/** The actor a grant records for its issuer (and for whoever revokes it). */
export function actorOf(issuer: ShareIssuer): ShareActor {
  return issuer.kind === 'TRAVELLER'
    ? { kind: 'TRAVELLER', id: issuer.userId, role: 'TRAVELLER' }
    : { kind: issuer.kind, id: issuer.staffUserId, role: issuer.role };
}

/** Why a recipient session cannot be used (any more). */
export type SessionEnd = 'REVOKED' | 'EXPIRED' | 'IDLE';

/**
 * Whether a recipient session is over, and why: ended before, its grant revoked or expired, past
 * its hard end, or idle too long. Null while it is live.
 */
export function sessionEnd(session: {
  endedReason: SessionEnd | null;
  grantStatus: GrantStatus;
  pastEnd: boolean;
  idle: boolean;
}): SessionEnd | null {
  if (session.endedReason) return session.endedReason;
  if (session.grantStatus === 'REVOKED') return 'REVOKED';
  if (session.grantStatus === 'EXPIRED' || session.pastEnd) return 'EXPIRED';
  return session.idle ? 'IDLE' : null;
}

/** The answer to a request of a session that is over: revoked, or simply no longer available. */
export function sessionEndedRefusal(end: SessionEnd): Refusal {
  return end === 'REVOKED'
    ? new Refusal(410, 'SHARE_REVOKED', 'This share was revoked')
    : new Refusal(410, 'SHARE_SESSION_EXPIRED', 'This shared document is no longer available');
}

/** When an idle session ends unless another request comes first: never after its hard end. */
export function idleExpiresAt(
  session: { expiresAt: Date; lastSeenAt: Date },
  idleMilliseconds: number,
): Date {
  return new Date(Math.min(session.lastSeenAt.getTime() + idleMilliseconds, session.expiresAt.getTime()));
}
