import type { DocumentKind, DocumentLocale, SnapshotData } from '../../domain/documents.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';

/**
 * Stored document snapshots and their rendered bytes (db/writes/documents.ts saves them). Both
 * reads run on their own or inside the caller's transaction (SqlRunner).
 */

interface SnapshotRow {
  id: string;
  kind: DocumentKind;
  locale: DocumentLocale;
  booking_id: string;
  company_id: string;
  owner_user_id: string | null;
  number: string | null;
  data: SnapshotData;
  created_at: string;
}

export interface DocumentSnapshot {
  id: string;
  kind: DocumentKind;
  locale: DocumentLocale;
  bookingId: string;
  companyId: string;
  ownerUserId: string | null;
  number: string | null;
  data: SnapshotData;
  createdAt: Date;
}

const toDocumentSnapshot = (row: SnapshotRow): DocumentSnapshot => ({
  id: row.id,
  kind: row.kind,
  locale: row.locale,
  bookingId: row.booking_id,
  companyId: row.company_id,
  ownerUserId: row.owner_user_id,
  number: row.number,
  data: row.data,
  createdAt: new Date(row.created_at),
});

export async function loadSnapshot(runner: SqlRunner, snapshotId: string): Promise<DocumentSnapshot | null> {
  const [row] = await rowsOf<SnapshotRow>(
    runner,
    `select id, kind, locale, booking_id, company_id, owner_user_id, number, data, created_at
       from document_snapshots where id = $1`,
    [snapshotId],
  );
  return row ? toDocumentSnapshot(row) : null;
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
