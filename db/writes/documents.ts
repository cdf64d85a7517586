import { createHash } from 'node:crypto';
import {
  asStored,
  mayView,
  receiptOf,
  refuseDocument,
  snapshotFingerprint,
  type DocumentKind,
  type ReceiptKind,
  type DocumentLocale,
  type DocumentViewer,
  type SnapshotData,
} from '../../domain/documents.js';
import type { Database } from '../orm.js';
import {
  boardingDocumentData,
  cancellationDocumentData,
  invoiceDocumentData,
  pickCollectionRecord,
  readBookingFacts,
  receiptDocumentData,
  type BookingFacts,
  type CollectionRecord,
} from '../queries/documents.js';
import { readRender, type StoredRender } from '../queries/document-snapshots.js';
import type { ReportSnapshotData } from '../../domain/reports.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';
import { issueReceiptNumber } from './receipts.js';

/**
 * Booking documents, their snapshots, their stored renders and the access log. A function that
 * takes a SqlRunner runs on its own (the Database) or inside the caller's transaction (a PoolClient).
 */

export interface BookingDocumentInput {
  /** The compatibility booking id, or the id of a journey that has exactly one booking row. */
  bookingId: string;
  kind: DocumentKind;
  locale: DocumentLocale;
  viewer: DocumentViewer;
}

/** Everything saveSnapshot needs, plus what a route names the file after. */
export interface BookingDocument {
  /** May differ from the kind asked: a PAYMENT_RECEIPT of a refunded payment is its REFUND_NOTICE. */
  kind: DocumentKind;
  locale: DocumentLocale;
  /** Always the compatibility bookings row id (also when a journey id was given). */
  bookingId: string;
  bookingCode: string;
  companyId: string;
  ownerUserId: string | null;
  /** The fixed receipt or refund number; null for other kinds. */
  number: string | null;
  data: SnapshotData;
}

/**
 * The document of a booking for this viewer, or the DocumentRefusal when it may not be given
 * (SPEC "Tickets and documents", "Document ticket validity", the 410 rule; domain/documents.ts).
 * The customer document and receipt routes and document shares all build through here, so a
 * traveller and the recipient of a share see the same snapshot. For PAYMENT_RECEIPT and
 * REFUND_NOTICE it assigns the collection record's fixed number on first use (its one write), so
 * every way of asking for the receipt gets the same number.
 */
export async function buildBookingDocument(
  db: Database,
  input: BookingDocumentInput,
): Promise<BookingDocument> {
  const booking = await readBookingFacts(db, input.bookingId);
  if (!booking || !mayView(input.viewer, booking)) throw refuseDocument('notFound');
  return documentOf(booking, input.locale, await documentData(db, booking, input));
}

/** The document of a booking with the content built for it. */
export function documentOf(
  booking: BookingFacts,
  locale: DocumentLocale,
  content: { kind: DocumentKind; number: string | null; data: SnapshotData },
): BookingDocument {
  return {
    ...content,
    locale,
    bookingId: booking.id,
    bookingCode: booking.code,
    companyId: booking.companyId,
    ownerUserId: booking.ownerUserId,
  };
}

async function documentData(
  db: Database,
  booking: BookingFacts,
  input: BookingDocumentInput,
): Promise<{ kind: DocumentKind; number: string | null; data: SnapshotData }> {
  switch (input.kind) {
    case 'TICKET':
    case 'BOOKING_CONFIRMATION':
      return { kind: input.kind, number: null, data: await boardingDocumentData(db, booking, input.kind) };
    case 'PAYMENT_RECEIPT':
    case 'REFUND_NOTICE':
      return receiptDocument(db, booking, input.kind);
    case 'INVOICE':
      return { kind: input.kind, number: null, data: await invoiceDocumentData(db, booking) };
    case 'CANCELLATION_CONFIRMATION':
      return { kind: input.kind, number: null, data: await cancellationDocumentData(db, booking) };
  }
}

/**
 * A receipt of the booking's collection record (pickCollectionRecord) under its fixed number,
 * assigned here on first use (db/writes/receipts.ts). Every language prints the data the number
 * was first issued with (receiptDocumentData).
 */
async function receiptDocument(
  db: Database,
  booking: BookingFacts,
  asked: 'PAYMENT_RECEIPT' | 'REFUND_NOTICE',
): Promise<{ kind: DocumentKind; number: string; data: SnapshotData }> {
  return issuedReceipt(db, booking, receiptOf(asked, await pickCollectionRecord(db, booking)));
}

/**
 * The receipt or refund notice of `receipt.record` under its fixed number (issued on first use) and
 * the data that number was first issued with: the traveller's receipt above and the company's
 * (db/writes/payment-receipts.ts) alike.
 */
export async function issuedReceipt(
  db: Database,
  booking: BookingFacts,
  receipt: { kind: ReceiptKind; record: CollectionRecord },
): Promise<{ kind: DocumentKind; number: string; data: SnapshotData }> {
  const issued = await issueReceiptNumber(db, {
    paymentId: receipt.record.id,
    kind: receipt.kind,
    companyId: booking.companyId,
    bookingId: booking.id,
  });
  const data = await receiptDocumentData(db, booking, receipt, issued);
  return { kind: receipt.kind, number: issued.number, data };
}

interface SnapshotIdRow {
  id: string;
}

export interface SnapshotInput {
  kind: DocumentKind;
  locale: DocumentLocale;
  bookingId: string;
  companyId: string;
  /** The traveller who owns the booking; null for documents only staff ask for. */
  ownerUserId: string | null;
  /** The fixed receipt or refund number, when the kind has one. */
  number?: string | null;
  data: SnapshotData;
}

/** A company report's snapshot: bookingId is the report export's id. */
export interface ReportSnapshotInput extends Omit<SnapshotInput, 'kind' | 'data'> {
  kind: 'REPORT';
  data: ReportSnapshotData;
}

/**
 * Saves a snapshot, or finds the one this booking already has with the same content (kind, locale
 * and data): the same document asked twice is the same snapshot, hence the same bytes.
 */
export async function saveSnapshot(
  runner: SqlRunner,
  input: SnapshotInput | ReportSnapshotInput,
): Promise<{ snapshotId: string; reused: boolean }> {
  const fingerprint = snapshotFingerprint(input.kind, input.locale, input.data);
  const inserted = await rowsOf<SnapshotIdRow>(
    runner,
    `insert into document_snapshots (kind, locale, booking_id, company_id, owner_user_id, number, data, fingerprint)
     values ($1, $2, $3, $4, $5, $6, $7, $8)
     on conflict (booking_id, fingerprint) do nothing
     returning id`,
    [
      input.kind,
      input.locale,
      input.bookingId,
      input.companyId,
      input.ownerUserId,
      input.number ?? null,
      JSON.stringify(asStored(input.data)),
      fingerprint,
    ],
  );
  if (inserted[0]) return { snapshotId: inserted[0].id, reused: false };
  const [existing] = await rowsOf<SnapshotIdRow>(
    runner,
    `select id from document_snapshots where booking_id = $1 and fingerprint = $2`,
    [input.bookingId, fingerprint],
  );
  if (!existing) throw new Error(`snapshot of booking ${input.bookingId} vanished after a conflict`);
  return { snapshotId: existing.id, reused: true };
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Stores a snapshot's rendered bytes with their checksum and returns the row that is stored: under
 * a retry or a race the first stored bytes win, so every download of a snapshot is byte-identical.
 */
export async function storeRender(
  db: Database,
  snapshotId: string,
  bytes: Uint8Array,
): Promise<StoredRender> {
  return db.transaction(async (client) => {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    await client.query(
      `insert into document_renders (snapshot_id, bytes, sha256, size) values ($1, $2, $3, $4)
       on conflict (snapshot_id) do nothing`,
      [snapshotId, buffer, sha256Of(buffer), buffer.byteLength],
    );
    const stored = await readRender(client, snapshotId);
    if (!stored) throw new Error(`render of snapshot ${snapshotId} was not stored`);
    return stored;
  });
}

export type DocumentActorKind = 'TRAVELLER' | 'STAFF' | 'DRIVER' | 'ADMIN' | 'SHARE_RECIPIENT';
export type DocumentAction = 'VIEW' | 'DOWNLOAD';

export interface AccessInput {
  snapshotId: string;
  actorKind: DocumentActorKind;
  /** The user, staff user, driver, administrator or share grant that received the bytes. */
  actorId: string;
  action: DocumentAction;
  sha256: string;
  size: number;
  requestId?: string | null;
}

/** Logs one view or download with the checksum and size of the bytes about to be sent. */
export async function recordAccess(runner: SqlRunner, input: AccessInput): Promise<void> {
  await rowsOf(
    runner,
    `insert into document_access_log (snapshot_id, actor_kind, actor_id, action, sha256, size, request_id)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      input.snapshotId,
      input.actorKind,
      input.actorId,
      input.action,
      input.sha256,
      input.size,
      input.requestId ?? null,
    ],
  );
}
