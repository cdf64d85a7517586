import { createHash } from 'node:crypto';
import { canonicalJson } from './boarding-credential.js';

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
export function snapshotFingerprint(kind: DocumentKind, locale: DocumentLocale, data: SnapshotData): string {
  return createHash('sha256')
    .update(canonicalJson({ kind, locale, data: asStored(data) }))
    .digest('hex');
}

/**
 * The data as PostgreSQL's jsonb gives it back: undefined members dropped. The fingerprint is taken
 * of this form so a builder that writes `pickup: undefined` and one that omits it agree.
 */
export function asStored(data: SnapshotData): SnapshotData {
  return JSON.parse(JSON.stringify(data)) as SnapshotData;
}
