import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import {
  asStored,
  snapshotFingerprint,
  type DocumentKind,
  type DocumentLocale,
  type SnapshotData,
} from '../../domain/documents.js';
import type { Database } from '../orm.js';

/**
 * Document snapshots, their stored renders and the access log. Every function takes either the
 * Database (it runs on its own) or a PoolClient (it runs inside the caller's transaction).
 */
export type SqlRunner = Database | PoolClient;

async function rowsOf<Row>(runner: SqlRunner, sql: string, params: unknown[]): Promise<Row[]> {
  if ('transaction' in runner) return runner.query<Row>(sql, params);
  return (await runner.query(sql, params)).rows as Row[];
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

/**
 * Saves a snapshot, or finds the one this booking already has with the same content (kind, locale
 * and data): the same document asked twice is the same snapshot, hence the same bytes.
 */
export async function saveSnapshot(
  runner: SqlRunner,
  input: SnapshotInput,
): Promise<{ snapshotId: string; reused: boolean }> {
  const fingerprint = snapshotFingerprint(input.kind, input.locale, input.data);
  const inserted = await rowsOf<{ id: string }>(
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
  const [existing] = await rowsOf<{ id: string }>(
    runner,
    `select id from document_snapshots where booking_id = $1 and fingerprint = $2`,
    [input.bookingId, fingerprint],
  );
  if (!existing) throw new Error(`snapshot of booking ${input.bookingId} vanished after a conflict`);
  return { snapshotId: existing.id, reused: true };
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

export async function loadSnapshot(runner: SqlRunner, snapshotId: string): Promise<DocumentSnapshot | null> {
  const [row] = await rowsOf<{
    id: string;
    kind: DocumentKind;
    locale: DocumentLocale;
    booking_id: string;
    company_id: string;
    owner_user_id: string | null;
    number: string | null;
    data: SnapshotData;
    created_at: Date;
  }>(
    runner,
    `select id, kind, locale, booking_id, company_id, owner_user_id, number, data, created_at
       from document_snapshots where id = $1`,
    [snapshotId],
  );
  if (!row) return null;
  return {
    id: row.id,
    kind: row.kind,
    locale: row.locale,
    bookingId: row.booking_id,
    companyId: row.company_id,
    ownerUserId: row.owner_user_id,
    number: row.number,
    data: row.data,
    createdAt: row.created_at,
  };
}

export interface StoredRender {
  bytes: Buffer;
  sha256: string;
  size: number;
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

/** The stored bytes of a snapshot, or null when it has not been rendered yet. */
export async function readRender(runner: SqlRunner, snapshotId: string): Promise<StoredRender | null> {
  const [row] = await rowsOf<{ bytes: Buffer; sha256: string; size: number }>(
    runner,
    `select bytes, sha256, size from document_renders where snapshot_id = $1`,
    [snapshotId],
  );
  return row ? { bytes: row.bytes, sha256: row.sha256, size: row.size } : null;
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
