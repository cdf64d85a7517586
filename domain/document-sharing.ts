/**
 * Value types of document sharing (SPEC "Document share grant") shared by the API, the share-grant
 * workflow's contract, its activities and the database writes: what a grant shares, who issues it,
 * what each transition answers, and the refusals with their HTTP status.
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
} as const;

export type ShareRefusalCode = keyof typeof SHARE_REFUSAL_STATUS;
