import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Boarding credentials: what a ticket's QR code carries and the driver app checks. The payload is
 * serialised as canonical JSON and signed with Ed25519; the signature travels beside it in
 * base64url. Anyone holding the published public key for `keyId` can verify a credential offline.
 *
 * The payload holds only what a scanner needs to decide "may this person board this bus here":
 * which ticket (to look it up in the revocation list), which trip and company, which seat and
 * traveller (to show the driver), between which stop calls, and which key signed it. No phone
 * number, price or account id: a QR code is shown to strangers.
 */
export const CREDENTIAL_VERSION = 1;
export const CREDENTIAL_ALGORITHM = 'Ed25519';

export interface BoardingCredentialPayload {
  v: typeof CREDENTIAL_VERSION;
  ticketId: string;
  tripId: string;
  companyId: string;
  /** 1-based leg of the journey this ticket is for. */
  legSequence: number;
  travellerName: string;
  /** The passenger-visible seat label. */
  seatNumber: string;
  boardStopCallId: string;
  alightStopCallId: string;
  /** When the bus leaves the boarding stop (ISO 8601, UTC). */
  departureAt: string;
  /** When the credential was signed (ISO 8601, UTC). */
  issuedAt: string;
  keyId: string;
}

/** The ticket a credential is signed for: what its payload says, departureAt as an instant. */
export interface CredentialTicket extends Omit<
  BoardingCredentialPayload,
  'v' | 'departureAt' | 'issuedAt' | 'keyId'
> {
  departureAt: Date;
}

export function credentialPayload(
  ticket: CredentialTicket,
  issuedAt: Date,
  keyId: string,
): BoardingCredentialPayload {
  return {
    v: CREDENTIAL_VERSION,
    ticketId: ticket.ticketId,
    tripId: ticket.tripId,
    companyId: ticket.companyId,
    legSequence: ticket.legSequence,
    travellerName: ticket.travellerName,
    seatNumber: ticket.seatNumber,
    boardStopCallId: ticket.boardStopCallId,
    alightStopCallId: ticket.alightStopCallId,
    departureAt: ticket.departureAt.toISOString(),
    issuedAt: issuedAt.toISOString(),
    keyId,
  };
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Canonical JSON (the RFC 8785 rules for the values a credential uses): object keys sorted by
 * UTF-16 code units, no whitespace, strings and numbers written as JSON.stringify writes them.
 * The bytes signed must be the bytes verified, whichever store or client re-ordered the keys
 * (PostgreSQL jsonb does), so both sides serialise through this one function.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no form for a non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON has no form for a value of type ${typeof value}`);
}

/** Signs the canonical form of a payload; the signature in base64url (no padding). */
export function signCredential(payload: BoardingCredentialPayload, privateKey: KeyObject): string {
  return sign(null, Buffer.from(canonicalJson(payload), 'utf8'), privateKey).toString('base64url');
}

/**
 * Whether `signature` is a valid Ed25519 signature of the payload's canonical form under
 * `publicKey`. Malformed input (a value canonical JSON cannot express, a signature that is not
 * base64url of 64 bytes, a key that is not Ed25519) is simply not valid.
 */
export function verifyCredential(
  payload: unknown,
  signatureBase64url: string,
  publicKey: KeyObject,
): boolean {
  if (publicKey.asymmetricKeyType !== 'ed25519') return false;
  if (!/^[A-Za-z0-9_-]+$/.test(signatureBase64url)) return false;
  const signature = Buffer.from(signatureBase64url, 'base64url');
  if (signature.length !== 64) return false;
  let message: Buffer;
  try {
    message = Buffer.from(canonicalJson(payload), 'utf8');
  } catch {
    return false;
  }
  return verify(null, message, publicKey, signature);
}

/** A published public key (SPKI PEM, as stored) as a key object for verifyCredential. */
export function publicKeyFromPem(pem: string): KeyObject {
  return createPublicKey(pem);
}

/** The JSON Web Key (RFC 8037, kty OKP, crv Ed25519) of a public key, as the keys endpoint publishes it. */
export function publicJwk(
  publicKey: KeyObject,
  keyId: string,
): { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' } {
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.x) throw new TypeError('not an Ed25519 public key');
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: keyId, alg: 'EdDSA', use: 'sig' };
}

/** Why a presented credential does not let its holder board (POST /driver/api/verify). */
export type CredentialRefusal =
  'UNKNOWN_KEY' | 'SIGNATURE_INVALID' | 'WRONG_TRIP' | 'REVOKED' | 'TICKET_NOT_VALID' | 'EXPIRED';

/** A credential held up at the door (verified by the driver app or scanned), with its ticket as it is now. */
export interface PresentedCredential<Status extends string = string> {
  /** The payload names a key that was published. */
  keyKnown: boolean;
  /** The signature verifies under that key. */
  signatureValid: boolean;
  /** The trip the payload names. */
  payloadTripId: unknown;
  /** The ticket as it is now; undefined when no ticket has the payload's id. */
  ticket?: (TicketBoardingState & { status: Status }) | undefined;
  presentedSignature: string;
}

/**
 * The first checks of every presented credential, in this order: a key we published, an authentic
 * signature (nothing in an unauthentic payload is believed), and the trip at the door.
 */
export function authenticityRefusal(
  credential: PresentedCredential,
  tripId: string,
): 'UNKNOWN_KEY' | 'SIGNATURE_INVALID' | 'WRONG_TRIP' | null {
  if (!credential.keyKnown) return 'UNKNOWN_KEY';
  if (!credential.signatureValid) return 'SIGNATURE_INVALID';
  if (credential.payloadTripId !== tripId) return 'WRONG_TRIP';
  return null;
}

export interface CredentialFacts extends PresentedCredential {
  /** The trip being boarded. */
  boardingTripId: string;
  /**
   * The ticket as it is now; `expired`: its QR has expired (the bus left the leg's boarding stop,
   * or the trip is over: the rule of its ticket document). Absent counts as not expired.
   */
  ticket?: (TicketBoardingState & { expired?: boolean }) | undefined;
}

/**
 * The verdict on a presented credential, checks in this order: its authenticity for the trip
 * being boarded (authenticityRefusal), the revocation list, the ticket's current state: VALID,
 * authorised to board, and still carrying this very signature (a ticket re-signed since makes
 * older copies worthless), and last its QR not expired (EXPIRED).
 */
export function credentialRefusal(facts: CredentialFacts): CredentialRefusal | null {
  const unauthentic = authenticityRefusal(facts, facts.boardingTripId);
  if (unauthentic) return unauthentic;
  const ticket = facts.ticket;
  if (ticket?.revoked) return 'REVOKED';
  if (
    !ticket ||
    ticket.status !== 'VALID' ||
    !ticket.boardingAuthorized ||
    ticket.signature !== facts.presentedSignature
  ) {
    return 'TICKET_NOT_VALID';
  }
  if (ticket.expired) return 'EXPIRED';
  return null;
}

/** A ticket's boarding state, as its QR code and its documents depend on it. */
export interface TicketBoardingState {
  status: string;
  boardingAuthorized: boolean;
  /** Its credential is on the revocation list. */
  revoked: boolean;
  signature: string | null;
}

/**
 * Whether a ticket lets its holder board right now, so its signed credential (the QR code) may be
 * shown: VALID, authorised to board, signed, and not revoked.
 */
export function authorizesBoarding<T extends TicketBoardingState>(
  ticket: T,
): ticket is T & { signature: string } {
  return (
    ticket.status === 'VALID' && ticket.boardingAuthorized && ticket.signature !== null && !ticket.revoked
  );
}

/**
 * revoked_at is stamped inside the revoking transaction (its start, or a write time read once it
 * holds its locks) but is seen only at its COMMIT: an entry may appear behind one a scanner was
 * already handed. When a scanner has caught up, its next poll starts this far before the first page
 * of that catch-up (revocationPage), so such an entry is handed to it as long as its transaction
 * committed within this time of its stamp, however long the paging took. A transaction that
 * revokes must therefore stay short: it never waits for anything but row locks and the database.
 */
export const REVOCATION_OVERLAP_SECONDS = 300;

/**
 * Where a poll of the revocation list starts: strictly after one entry in list order (its
 * revoked_at to the microsecond and its ticket id), or, with no ticket id, at an instant. One
 * transaction revokes all its tickets at one instant (a trip cancelled), so an instant alone cannot
 * say where a full page ended: a page cut among them would be read again forever.
 */
export interface RevocationCursor {
  /** ISO 8601 UTC; to the microsecond when it is an entry's revoked_at. */
  at: string;
  afterTicketId: string | null;
  /**
   * Within a catch-up (with afterTicketId): where the poll after it restarts, REVOCATION_OVERLAP_SECONDS
   * before the catch-up's first page (ISO 8601 UTC). Cursors handed out before it existed have none.
   */
  rewindTo?: string;
}

const CURSOR_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/;
const CURSOR_TICKET = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The cursor as the list hands it out: opaque base64url text. */
export function encodeRevocationCursor(cursor: RevocationCursor): string {
  const rewind = cursor.afterTicketId && cursor.rewindTo ? `/${cursor.rewindTo}` : '';
  return Buffer.from(`${cursor.at}/${cursor.afterTicketId ?? ''}${rewind}`, 'utf8').toString('base64url');
}

/** A real UTC instant as the cursor writes it (from year 1: PostgreSQL has no year 0). */
function cursorInstant(text: string): boolean {
  if (!CURSOR_INSTANT.test(text) || text.startsWith('0000')) return false;
  const instant = Date.parse(text);
  return !Number.isNaN(instant) && new Date(instant).toISOString().slice(0, 19) === text.slice(0, 19);
}

/**
 * The cursor a text encodes, or null when the list never handed it out: only the exact encoding
 * of a real UTC instant and, optionally, a ticket id and then the instant the next poll rewinds to.
 */
export function readRevocationCursor(text: string): RevocationCursor | null {
  const [at = '', afterTicketId, rewindTo, ...rest] = Buffer.from(text, 'base64url')
    .toString('utf8')
    .split('/');
  if (rest.length > 0 || afterTicketId === undefined || !cursorInstant(at)) return null;
  if (afterTicketId !== '' && !CURSOR_TICKET.test(afterTicketId)) return null;
  if (rewindTo !== undefined && (afterTicketId === '' || !cursorInstant(rewindTo))) return null;
  const cursor: RevocationCursor = { at, afterTicketId: afterTicketId || null };
  if (rewindTo !== undefined) cursor.rewindTo = rewindTo;
  return encodeRevocationCursor(cursor) === text ? cursor : null;
}

/** A revocation list entry as paging needs it. */
export interface ListedRevocation {
  ticketId: string;
  revokedAt: Date;
  /** revoked_at to the microsecond (ISO 8601 UTC): a Date keeps milliseconds only. */
  revokedAtExact: string;
}

/**
 * One page of the revocation list, read from `from` with one row more than `limit` to know whether
 * more follow: the page, and where the next poll starts — right after the last entry when more
 * follow, else REVOCATION_OVERLAP_SECONDS before the first page of this catch-up (`asOf` of the
 * page read from a since, an instant or no cursor; the cursors within it carry that point), so an
 * entry committed behind the cursor meanwhile is read again (entries may repeat; scanners keep them
 * by ticket). nextCursor says it exactly; nextSince, the instant alone, stays for scanners that page
 * by instant (it carries no rewind point), and stalls where more than `limit` entries share one instant.
 */
export function revocationPage<T extends ListedRevocation>(
  rows: readonly T[],
  limit: number,
  asOf: Date,
  from: RevocationCursor | null = null,
): { page: T[]; hasMore: boolean; nextSince: Date; nextCursor: string } {
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const overlapStart = new Date(asOf.getTime() - REVOCATION_OVERLAP_SECONDS * 1000);
  const carried = from?.afterTicketId && from.rewindTo ? new Date(from.rewindTo) : null;
  const rewind = carried && carried < overlapStart ? carried : overlapStart;
  if (hasMore && last) {
    const after = { at: last.revokedAtExact, afterTicketId: last.ticketId, rewindTo: rewind.toISOString() };
    return { page, hasMore, nextSince: last.revokedAt, nextCursor: encodeRevocationCursor(after) };
  }
  const restart = { at: rewind.toISOString(), afterTicketId: null };
  return { page, hasMore, nextSince: rewind, nextCursor: encodeRevocationCursor(restart) };
}

/** A ticket as re-issuing its credential sees it. */
export interface ReissuableTicket {
  ownerUserId: string;
  journeyStatus: string;
  status: string;
  boardingAuthorized: boolean;
  /**
   * Its credential is on the revocation list. A ticket still VALID is listed only by a refund that kept
   * its booking (BOOKING_COMPENSATED): every other revocation (a cancel, a re-issue, a modify) also ends the
   * ticket's status. Its traveller no longer boards, so no fresh credential either.
   */
  revoked: boolean;
  /** The bus has not left the leg's boarding call yet (by status, and its time plus the trip's delay). */
  beforeDeparture: boolean;
}

export type ReissueRefusalCode =
  'TICKET_NOT_FOUND' | 'BOOKING_NOT_CONFIRMED' | 'TICKET_NOT_VALID' | 'TRIP_ALREADY_DEPARTED';

/**
 * Why the caller may not re-issue this ticket's credential (undefined: no such ticket), or null:
 * it is the caller's, of a CONFIRMED journey, VALID, authorised to board and not revoked, before departure.
 */
export function reissueRefusal(
  ticket: ReissuableTicket | undefined,
  userId: string,
): { status: 404 | 409; code: ReissueRefusalCode; message: string } | null {
  if (!ticket || ticket.ownerUserId !== userId) {
    return { status: 404, code: 'TICKET_NOT_FOUND', message: 'No such ticket' };
  }
  if (ticket.journeyStatus !== 'CONFIRMED') {
    return {
      status: 409,
      code: 'BOOKING_NOT_CONFIRMED',
      message: 'The booking of this ticket is not confirmed',
    };
  }
  if (ticket.status !== 'VALID' || !ticket.boardingAuthorized || ticket.revoked) {
    return { status: 409, code: 'TICKET_NOT_VALID', message: 'Only a valid ticket can be re-issued' };
  }
  if (!ticket.beforeDeparture) {
    return {
      status: 409,
      code: 'TRIP_ALREADY_DEPARTED',
      message: 'The trip has departed; the ticket can no longer be re-issued',
    };
  }
  return null;
}
