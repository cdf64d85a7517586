import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Logger } from '../../config/logger.js';
import type { CompanySettingsView } from '../../db/queries/company-settings.js';
import type { Database } from '../../db/orm.js';
import { failExport, finishExport } from '../../db/writes/reports.js';
import {
  CSV_BOM,
  csvLine,
  REPORT_COLUMNS,
  ReportTotals,
  type ReportLocale,
  type ReportRow,
  type ReportType,
} from '../../domain/reports.js';

/**
 * CSV and JSON reports as streams: the rows come batch by batch from the report's cursor and go
 * out as they come, so memory holds one batch whatever the length. The bytes are hashed on the
 * way; when the last one is written the export is recorded (row count, SHA-256, size) before the
 * response ends. A stream that stops early (the client went away, the database failed) closes the
 * cursor and records export_failed.
 */
export interface StreamedReport {
  exportId: string;
  type: ReportType;
  locale: ReportLocale;
  from: string;
  to: string;
  company: CompanySettingsView;
  /** The cursor's batches, the first one already read (it decided ready or no_data). */
  first: IteratorResult<ReportRow[]>;
  rows: AsyncGenerator<ReportRow[]>;
}

interface Writer {
  db: Database;
  logger: Logger;
}

async function* recorded(
  { db, logger }: Writer,
  report: StreamedReport,
  pieces: {
    head: string;
    row: (row: ReportRow, index: number) => string;
    tail: (totals: ReportTotals) => string;
  },
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  const totals = new ReportTotals(report.type);
  let size = 0;
  let completed = false;
  const emit = (text: string) => {
    const chunk = Buffer.from(text, 'utf8');
    hash.update(chunk);
    size += chunk.length;
    return chunk;
  };
  try {
    yield emit(pieces.head);
    for (let batch = report.first; !batch.done; batch = await report.rows.next()) {
      let text = '';
      for (const row of batch.value) {
        text += pieces.row(row, totals.rowCount);
        totals.add(row);
      }
      yield emit(text);
    }
    const tail = emit(pieces.tail(totals));
    await finishExport(db, report.exportId, { rowCount: totals.rowCount, sha256: hash.digest('hex'), size });
    completed = true;
    yield tail;
  } finally {
    if (!completed) {
      logger.warn({ exportId: report.exportId }, 'report stream stopped before its end');
      await report.rows.return(undefined).catch(() => undefined);
      await failExport(db, report.exportId, 'REPORT_STREAM_INTERRUPTED').catch(() => undefined);
    }
  }
}

/** UTF-8 with a byte-order mark (spreadsheets then read Arabic right), CRLF lines, a header row of column names. */
export function csvStream(writer: Writer, report: StreamedReport): Readable {
  const columns = REPORT_COLUMNS[report.type];
  return Readable.from(
    recorded(writer, report, {
      head: CSV_BOM + csvLine(columns.map((column) => column.label[report.locale])),
      row: (row) => csvLine(columns.map((column) => row[column.key] ?? null)),
      tail: () => '',
    }),
  );
}

/** The JSON envelope, rows streamed inside it; rowCount and totals come last. */
export function jsonStream(writer: Writer, report: StreamedReport): Readable {
  const columns = REPORT_COLUMNS[report.type];
  const head = {
    reportId: report.exportId,
    type: report.type,
    format: 'json',
    locale: report.locale,
    period: { fromDate: report.from, toDate: report.to },
    company: { id: report.company.companyId, nameAr: report.company.nameAr, nameEn: report.company.nameEn },
    currency: 'SYP',
    timeZone: 'Asia/Damascus',
    state: report.first.done ? 'no_data' : 'ready',
    columns: columns.map((column) => ({
      key: column.key,
      label: column.label[report.locale],
      kind: column.kind,
    })),
  };
  const opening = JSON.stringify({ success: true, data: head });
  return Readable.from(
    recorded(writer, report, {
      // The envelope without its two closing braces, then the rows array.
      head: `${opening.slice(0, -2)},"rows":[`,
      row: (row, index) => `${index ? ',' : ''}${JSON.stringify(row)}`,
      tail: (totals) =>
        `],"rowCount":${totals.rowCount},"totals":${totals.rowCount ? JSON.stringify(totals.row()) : 'null'}}}`,
    }),
  );
}
