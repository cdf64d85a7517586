import { randomUUID } from 'node:crypto';
import {
  nextReportState,
  type ReportEvent,
  type ReportFormat,
  type ReportLocale,
  type ReportSnapshotData,
  type ReportState,
  type ReportType,
} from '../../domain/reports.js';
import type { Database } from '../orm.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';
import { saveSnapshot } from './documents.js';

/**
 * report_exports: one row per report request, moved through the states of domain/reports.ts
 * (REPORT_TRANSITIONS) and nowhere else. A finished file records its row count and the SHA-256
 * and size of its bytes; a PDF also its document snapshot.
 */
export interface ExportRequest {
  companyId: string;
  requestedBy: string;
  type: ReportType;
  format: ReportFormat;
  locale: ReportLocale;
  from: string;
  to: string;
  requestId: string;
}

async function insertExport(
  runner: SqlRunner,
  id: string,
  request: ExportRequest,
  event: ReportEvent,
  errorCode: string | null = null,
): Promise<void> {
  const state = nextReportState('new', event);
  await rowsOf(
    runner,
    `insert into report_exports (id, company_id, requested_by, type, format, locale, from_date, to_date, state, error_code,
                                 request_id, finished_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, case when $9 = 'pending' then null else now() end)`,
    [
      id,
      request.companyId,
      request.requestedBy,
      request.type,
      request.format,
      request.locale,
      request.from,
      request.to,
      state,
      errorCode,
      request.requestId,
    ],
  );
}

/** A request refused before anything was made: the role may not (unauthorized) or a PDF too long (export_failed). */
export async function recordRefusedExport(
  db: Database,
  request: ExportRequest,
  event: 'refused' | 'tooLarge',
  errorCode: string,
): Promise<string> {
  const id = randomUUID();
  await insertExport(db, id, request, event, errorCode);
  return id;
}

/** A CSV or JSON export about to stream: pending until its last byte is written. */
export async function startExport(db: Database, request: ExportRequest): Promise<string> {
  const id = randomUUID();
  await insertExport(db, id, request, 'accepted');
  return id;
}

/** A PDF export: its pending row and its document snapshot, in one transaction. */
export async function startPdfExport(
  db: Database,
  request: ExportRequest & { id: string },
  data: ReportSnapshotData,
): Promise<{ snapshotId: string }> {
  return db.transaction(async (client) => {
    await insertExport(client, request.id, request, 'accepted');
    const { snapshotId } = await saveSnapshot(client, {
      kind: 'REPORT',
      locale: request.locale,
      bookingId: request.id,
      companyId: request.companyId,
      ownerUserId: null,
      data,
    });
    await client.query(`update report_exports set snapshot_id = $2 where id = $1`, [request.id, snapshotId]);
    return { snapshotId };
  });
}

/** The file is complete: ready with rows, no_data without; its row count and checksum are recorded. */
export async function finishExport(
  db: Database,
  exportId: string,
  file: { rowCount: number; sha256: string; size: number },
): Promise<ReportState> {
  const state = nextReportState('pending', 'completed', file.rowCount);
  const rows = await db.query(
    `update report_exports set state = $2, row_count = $3, sha256 = $4, size = $5, finished_at = now()
      where id = $1 and state = 'pending' returning id`,
    [exportId, state, file.rowCount, file.sha256, file.size],
  );
  if (rows.length === 0) throw new Error(`report export ${exportId} is not pending`);
  return state;
}

/** The render or the stream failed: export_failed with the reason. */
export async function failExport(db: Database, exportId: string, errorCode: string): Promise<void> {
  const state = nextReportState('pending', 'failed');
  await db.query(
    `update report_exports set state = $2, error_code = $3, finished_at = now() where id = $1 and state = 'pending'`,
    [exportId, state, errorCode],
  );
}
