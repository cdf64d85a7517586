import type { DocumentKind, DocumentLocale, SnapshotData, SnapshotKind } from '../../domain/documents.js';
import type { ReportSnapshotData } from '../../domain/reports.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';

/**
 * Stored document snapshots and their rendered bytes (db/writes/documents.ts saves them). Both
 * reads run on their own or inside the caller's transaction (SqlRunner).
 */

interface SnapshotRow {
  id: string;
  kind: SnapshotKind;
  locale: DocumentLocale;
  booking_id: string;
  company_id: string;
  owner_user_id: string | null;
  number: string | null;
  /** A booking document's SnapshotData, or a REPORT's ReportSnapshotData. */
  data: unknown;
  created_at: string;
}

interface SnapshotFacts {
  id: string;
  locale: DocumentLocale;
  /** The booking; for a REPORT, the report export. */
  bookingId: string;
  companyId: string;
  ownerUserId: string | null;
  number: string | null;
  createdAt: Date;
}

/** A stored snapshot: a booking document, or a company report (its data typed by its kind). */
export type DocumentSnapshot = SnapshotFacts &
  ({ kind: DocumentKind; data: SnapshotData } | { kind: 'REPORT'; data: ReportSnapshotData });

function toDocumentSnapshot(row: SnapshotRow): DocumentSnapshot {
  const facts: SnapshotFacts = {
    id: row.id,
    locale: row.locale,
    bookingId: row.booking_id,
    companyId: row.company_id,
    ownerUserId: row.owner_user_id,
    number: row.number,
    createdAt: new Date(row.created_at),
  };
  // The data was written for the row's kind (db/writes/documents.ts saveSnapshot), so it is that kind's.
  return row.kind === 'REPORT'
    ? { ...facts, kind: row.kind, data: row.data as ReportSnapshotData }
    : { ...facts, kind: row.kind, data: row.data as SnapshotData };
}

export async function loadSnapshot(runner: SqlRunner, snapshotId: string): Promise<DocumentSnapshot | null> {
  const [row] = await rowsOf<SnapshotRow>(
    runner,
    `select id, kind, locale, booking_id, company_id, owner_user_id, number, data, created_at
       from document_snapshots where id = $1`,
    [snapshotId],
  );
  return row ? toDocumentSnapshot(row) : null;
}

/** What a snapshot is about, without its data: what its render shows operators in the Temporal UI. */
export interface SnapshotSubject {
  kind: SnapshotKind;
  locale: DocumentLocale;
  /** The booking; for a REPORT, the report export. */
  bookingId: string;
  /** The booking's journey (null for a REPORT or a booking made before journeys). */
  journeyId: string | null;
  companyId: string;
}

export async function loadSnapshotSubject(
  runner: SqlRunner,
  snapshotId: string,
): Promise<SnapshotSubject | null> {
  const [row] = await rowsOf<
    Pick<SnapshotRow, 'kind' | 'locale' | 'booking_id' | 'company_id'> & { journey_id: string | null }
  >(
    runner,
    `select s.kind, s.locale, s.booking_id, s.company_id, b.journey_id
       from document_snapshots s left join bookings b on b.id = s.booking_id and s.kind <> 'REPORT'
      where s.id = $1`,
    [snapshotId],
  );
  return row
    ? {
        kind: row.kind,
        locale: row.locale,
        bookingId: row.booking_id,
        journeyId: row.journey_id,
        companyId: row.company_id,
      }
    : null;
}

/** A snapshot's stored bytes with the checksum recorded before any of them was sent. */
export interface StoredRender {
  bytes: Buffer;
  sha256: string;
  size: number;
}

interface RenderRow {
  bytes: Buffer;
  sha256: string;
  size: number;
}

const toStoredRender = (row: RenderRow): StoredRender => ({
  bytes: row.bytes,
  sha256: row.sha256,
  size: row.size,
});

/** The stored bytes of a snapshot, or null when it has not been rendered yet. */
export async function readRender(runner: SqlRunner, snapshotId: string): Promise<StoredRender | null> {
  const [row] = await rowsOf<RenderRow>(
    runner,
    `select bytes, sha256, size from document_renders where snapshot_id = $1`,
    [snapshotId],
  );
  return row ? toStoredRender(row) : null;
}
