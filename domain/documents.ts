import { createHash } from 'node:crypto';
import { authorizesBoarding, canonicalJson } from './boarding-credential.js';
import { ownsBooking, type BookingOwnership, type BookingTraveller } from './booking-ownership.js';
import { Refusal } from './refusal.js';
import type { ReportSnapshotData } from './reports.js';

/**
 * Customer and company documents (SPEC "Tickets and documents"). Every document is an immutable
 * snapshot: `SnapshotData` holds everything a template prints, frozen when the snapshot is saved,
 * so the same snapshot always renders the same words (and, once stored, the same bytes).
 */
export const DOCUMENT_KINDS = [
  'TICKET',
  'BOOKING_CONFIRMATION',
  'INVOICE',
  'CANCELLATION_CONFIRMATION',
  'PAYMENT_RECEIPT',
  'REFUND_NOTICE',
] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** Every kind a stored snapshot may have: the booking documents and company reports (domain/reports.ts). */
export const SNAPSHOT_KINDS = [...DOCUMENT_KINDS, 'REPORT'] as const;
export type SnapshotKind = (typeof SNAPSHOT_KINDS)[number];

export const DOCUMENT_LOCALES = ['ar', 'en'] as const;
export type DocumentLocale = (typeof DOCUMENT_LOCALES)[number];

/** A name in both languages; the template picks the document's locale. */
export interface BilingualName {
  ar: string;
  en: string;
}

export interface SnapshotCompany {
  name_ar: string;
  name_en: string;
  phone?: string | null;
}

export interface SnapshotBooking {
  id: string;
  code: string;
  status: string;
  /** ISO-8601 instant. */
  created_at: string;
  seats_count: number;
  /** Money: integers in the currency's smallest unit (SYP). */
  subtotal: number;
  discount: number;
  total: number;
  currency: string;
  payment_status: string;
}

export interface SnapshotPickup {
  name: BilingualName;
  address: BilingualName;
  directions?: BilingualName;
}

export interface SnapshotTrip {
  origin: BilingualName;
  destination: BilingualName;
  /** ISO-8601 instants. */
  departure_at: string;
  arrival_at: string;
  pickup?: SnapshotPickup | null;
}

export interface SnapshotTraveller {
  name: string;
  /** The layout seat label (seatNumber). */
  seat_number: string;
  /** 1-based leg of the journey this seat belongs to. */
  leg: number;
  /** The exact text encoded in the traveller's QR code (the signed boarding credential). */
  credential?: string;
}

export interface SnapshotPayment {
  /** The fixed receipt number (PAYMENT_RECEIPT) or refund number (REFUND_NOTICE). */
  number: string;
  method: string;
  amount: number;
  /** ISO-8601 instant of the collection (or of the refund for a refund notice). */
  collected_at: string;
  source: string;
}

export interface SnapshotCancellation {
  cancelled_at: string;
  reason?: string | null;
}

export interface SnapshotData {
  company: SnapshotCompany;
  booking: SnapshotBooking;
  trip: SnapshotTrip;
  travellers: SnapshotTraveller[];
  payment?: SnapshotPayment | null;
  cancellation?: SnapshotCancellation | null;
  /**
   * ISO-8601 instant the document was issued. Take a stable instant of the facts (confirmation,
   * collection, cancellation time), never "now": a new value is new data, hence a new snapshot.
   */
  issued_at: string;
}

/** The identity of a document's content: the same kind, locale and data give the same fingerprint. */
export function snapshotFingerprint(
  kind: SnapshotKind,
  locale: DocumentLocale,
  data: SnapshotData | ReportSnapshotData,
): string {
  return createHash('sha256')
    .update(canonicalJson({ kind, locale, data: asStored(data) }))
    .digest('hex');
}

/**
 * The data as PostgreSQL's jsonb gives it back: undefined members dropped. The fingerprint is taken
 * of this form so a builder that writes `pickup: undefined` and one that omits it agree.
 */
export function asStored<Data extends SnapshotData | ReportSnapshotData>(data: Data): Data {
  return JSON.parse(JSON.stringify(data)) as Data;
}

/**
 * The text of a ticket's QR code: the signed boarding credential exactly as the driver app sends
 * it to POST /driver/api/verify (with the trip it is boarding), `{"payload":…,"signature":…}` in
 * canonical JSON. The payload goes through canonicalJson because jsonb re-orders its keys.
 */
export function credentialText(payload: unknown, signature: string): string {
  const value: unknown = typeof payload === 'string' ? JSON.parse(payload) : payload;
  return canonicalJson({ payload: value, signature });
}

/** Who asks for a document: the route has authenticated them; the builder checks they may see the booking. */
export type DocumentViewer =
  /** A traveller: only their own bookings (ownsBooking: owned, or made for their canonical passenger). */
  | ({ kind: 'TRAVELLER' } & BookingTraveller)
  /** A company user or driver: only bookings of that company. */
  | { kind: 'COMPANY'; companyId: string }
  /** Access already proved elsewhere (an accepted document share grant). */
  | { kind: 'GRANT' };

export function mayView(viewer: DocumentViewer, booking: BookingOwnership & { companyId: string }): boolean {
  if (viewer.kind === 'TRAVELLER') return ownsBooking(viewer, booking);
  if (viewer.kind === 'COMPANY') return booking.companyId === viewer.companyId;
  return true;
}

/** Why a document may not be issued (404, 409 or 410 with its errorCode). */
export class DocumentRefusal extends Refusal {
  constructor(facts: { status: 404 | 409 | 410; errorCode: string; message: string }) {
    super(facts.status, facts.errorCode, facts.message);
  }
}

const DOCUMENT_REFUSALS = {
  notFound: { status: 404, errorCode: 'BOOKING_NOT_FOUND', message: 'No such booking' },
  notConfirmed: {
    status: 409,
    errorCode: 'BOOKING_NOT_CONFIRMED',
    message: 'The booking is not confirmed for boarding yet; no ticket document exists',
  },
  gone: {
    status: 410,
    errorCode: 'DOCUMENT_GONE',
    message:
      'The boarding credential of this booking expired or was used; the ticket document is no longer issued',
  },
  notCollected: {
    status: 409,
    errorCode: 'PAYMENT_NOT_COLLECTED',
    message: 'No collected payment is recorded for this booking yet',
  },
  notRefunded: {
    status: 409,
    errorCode: 'PAYMENT_NOT_REFUNDED',
    message: 'The payment of this booking was not refunded',
  },
  notCancelled: { status: 409, errorCode: 'BOOKING_NOT_CANCELLED', message: 'The booking is not cancelled' },
} as const;

export const refuseDocument = (refusal: keyof typeof DOCUMENT_REFUSALS) =>
  new DocumentRefusal(DOCUMENT_REFUSALS[refusal]);

export type TicketStatus = 'PENDING_CONFIRMATION' | 'VALID' | 'CANCELLED' | 'USED' | 'REISSUED';

/** What decides whether a ticket's boarding credential may be printed. */
export interface BoardingTicketFacts {
  status: TicketStatus;
  boardingAuthorized: boolean;
  signature: string | null;
  revoked: boolean;
  /** Epoch milliseconds the credential was signed; null while it never was. */
  issuedAt: number | null;
}

/** The booking facts that decide whether its boarding documents are issued. */
export interface BoardingBookingFacts {
  status: string;
  journeyStatus: string | null;
  /**
   * The booking's leg no longer boards: the trip arrived, completed or was cancelled, the bus left
   * the leg's boarding call, or the alighting time (plus the trip's delay) passed.
   */
  tripOver: boolean;
}

/**
 * The boarding-document verdict (TICKET, BOOKING_CONFIRMATION; SPEC "Document ticket validity"):
 * the tickets to print while the confirmation projection authorizes boarding, else the refusal:
 * 409 BOOKING_NOT_CONFIRMED while not (yet) confirmed, 410 DOCUMENT_GONE once the credentials
 * expired (trip over, booking cancelled) or were consumed.
 */
export function boardingTickets<T extends BoardingTicketFacts>(
  booking: BoardingBookingFacts,
  tickets: T[],
): (T & { signature: string })[] {
  const cancelled = booking.status === 'CANCELLED' || booking.journeyStatus === 'CANCELLED';
  const everSigned = tickets.some((ticket) => ticket.issuedAt !== null);
  if (!everSigned) throw refuseDocument(cancelled || booking.tripOver ? 'gone' : 'notConfirmed');
  if (cancelled || booking.tripOver) throw refuseDocument('gone');
  if (booking.journeyStatus !== 'CONFIRMED') throw refuseDocument('notConfirmed');
  const printable = tickets.filter(authorizesBoarding);
  if (printable.length > 0) return printable;
  throw refuseDocument(
    tickets.some((ticket) => ticket.status === 'PENDING_CONFIRMATION') ? 'notConfirmed' : 'gone',
  );
}

/** The instant a boarding document is issued: when its newest credential was signed. */
export const newestIssue = (tickets: BoardingTicketFacts[]): string =>
  new Date(Math.max(...tickets.map((ticket) => ticket.issuedAt ?? 0))).toISOString();

const CONFIRMED_BOOKING_STATUSES = new Set(['CONFIRMED', 'CHECKED_IN', 'NO_SHOW', 'COMPLETED']);

/** An INVOICE exists once the booking is confirmed; a cancelled booking's is gone. */
export function refuseInvoice(bookingStatus: string): DocumentRefusal | null {
  if (CONFIRMED_BOOKING_STATUSES.has(bookingStatus)) return null;
  return refuseDocument(bookingStatus === 'CANCELLED' ? 'gone' : 'notConfirmed');
}

/** A CANCELLATION_CONFIRMATION exists only for a cancelled booking. */
export function refuseCancellation(bookingStatus: string): DocumentRefusal | null {
  return bookingStatus === 'CANCELLED' ? null : refuseDocument('notCancelled');
}

/** The kinds with a fixed number (SPEC "Payment receipt"). */
export type ReceiptKind = 'PAYMENT_RECEIPT' | 'REFUND_NOTICE';

/**
 * Which receipt a collection record gives: a refunded payment's is its REFUND_NOTICE, whatever was
 * asked. No collected record is 409 PAYMENT_NOT_COLLECTED; a refund notice of a payment that was
 * not refunded is 409 PAYMENT_NOT_REFUNDED.
 */
export function receiptOf<Record extends { status: 'COMPLETED' | 'REFUNDED' }>(
  asked: ReceiptKind,
  record: Record | undefined,
): { kind: ReceiptKind; record: Record } {
  if (!record) throw refuseDocument('notCollected');
  if (asked === 'REFUND_NOTICE' && record.status !== 'REFUNDED') throw refuseDocument('notRefunded');
  return { kind: record.status === 'REFUNDED' ? 'REFUND_NOTICE' : 'PAYMENT_RECEIPT', record };
}
