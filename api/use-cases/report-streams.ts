import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import type { CompanySettingsView } from '../../db/queries/company-settings.js';
import type { Database } from '../../db/orm.js';
import { failExport, finishExport } from '../../db/writes/reports.js';
import {
  CSV_BOM,
  csvLine,
  ReportTotals,
  type ReportColumn,
  type ReportLocale,
  type ReportRow,
  type ReportType,
} from '../../domain/reports.js';

/**
 * CSV and JSON reports as streams: the rows come batch by batch from the report's cursor and go
 * out as they come, so memory holds one batch whatever the length. The bytes are hashed on the
 * way; when the last one is written the export is recorded (row count, SHA-256, size) before the
 * response ends. A stream that stops early (the client went away, the database failed) closes the
 * cursor and records export_failed; so does one destroyed before its first read (a HEAD, a client
 * gone while the first rows were read), which holds the cursor's connection all the same.
 */
export interface StreamedReport {
  exportId: string;
  type: ReportType;
  locale: ReportLocale;
  from: string;
  to: string;
  company: CompanySettingsView;
  /** The columns the asking role gets (reportColumnsFor: no money for a DISPATCHER), which the rows carry. */
  columns: readonly ReportColumn[];
  /** The cursor's batches, the first one already read (it decided ready or no_data). */
  first: IteratorResult<ReportRow[]>;
  rows: AsyncGenerator<ReportRow[]>;
  /** The download's request id, for the log line of a stream that stops short (it outlives the route). */
  requestId: string;
}

interface Writer {
  db: Database;
  logger: Logger;
  /** REPORT_STREAM_STALL_SECONDS; without it (a stream read in process) a stream never stalls. */
  config?: Pick<Config, 'REPORT_STREAM_STALL_SECONDS'>;
}

/**
 * The most bytes one chunk of the stream carries: the response takes them chunk by chunk as its
 * socket drains, so a client reading slowly but steadily takes one within the stall deadline, and a
 * stream buffers at most 16 of them (Readable.from's high-water mark) however long its batches.
 */
const CHUNK_BYTES = 64 * 1024;

/**
 * The streamed exports one API process serves at once (config/deployment.ts
 * `reportStreamsPerProcess`): `take` gives a slot's release, or null when all are taken.
 */
export interface StreamSlots {
  take(): (() => void) | null;
}

export function streamSlots(max: number): StreamSlots {
  let taken = 0;
  return {
    take: () => {
      if (taken >= max) return null;
      taken += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        taken -= 1;
      };
    },
  };
}

/**
 * What ends a stream whose client took none of its bytes for REPORT_STREAM_STALL_SECONDS. Its
 * headers are sent, so nothing of it reaches the client: `expose` keeps Koa's default error printer
 * quiet (the stream logs it once itself, without a stack).
 */
class StreamStalled extends Error {
  readonly expose = true;
  constructor(readonly stallSeconds: number) {
    super(`the client took no bytes for ${stallSeconds} s`);
  }
}

interface Pieces {
  head: string;
  row: (row: ReportRow, index: number) => string;
  tail: (totals: ReportTotals) => string;
}

/**
 * How a report stream ends: `completed` once its export is recorded, else `stop` (which acts once),
 * with the error that cut it short, if one did (a client that left has none).
 */
interface Ending {
  completed: boolean;
  stop: (cause?: unknown) => Promise<void>;
  /** A chunk waits for the client: the stall deadline runs until `taken`. */
  waiting: () => void;
  taken: () => void;
}

/**
 * The report's bytes as a stream. However it ends short of its last byte, the cursor is closed
 * (its connection goes back to the pool) and the export recorded export_failed, once. A stream
 * that was read stops in its generator's finally, before the stream errors or closes. Koa ends a
 * HEAD, or a response whose client has left, without reading the body and destroys the stream:
 * its generator never started, and return() on it skips the finally, so the close stops it.
 *
 * A client that stops reading (a paused download, a phone gone quiet with its socket open) would
 * keep the cursor's connection, idle in its transaction, for as long as it keeps the socket: once
 * a chunk has waited REPORT_STREAM_STALL_SECONDS to be taken, the stream is destroyed, which cuts
 * the response off (Koa pipes it with stream.pipeline) and stops the stream as above, recorded
 * with error_code REPORT_STREAM_STALLED and logged in one line.
 */
function recordedStream(writer: Writer, report: StreamedReport, pieces: Pieces): Readable {
  let stopping: Promise<void> | undefined;
  let deadline: NodeJS.Timeout | undefined;
  const stallSeconds = writer.config?.REPORT_STREAM_STALL_SECONDS;
  const ending: Ending = {
    completed: false,
    stop: (cause) =>
      (stopping ??= (async () => {
        const context = { requestId: report.requestId, exportId: report.exportId };
        if (cause instanceof StreamStalled) {
          writer.logger.warn(
            { ...context, stallSeconds: cause.stallSeconds },
            'report stream ended: its client stopped reading',
          );
        } else {
          writer.logger.warn({ ...context, err: cause }, 'report stream stopped before its end');
        }
        await report.rows.return(undefined).catch(() => undefined);
        const errorCode =
          cause instanceof StreamStalled ? 'REPORT_STREAM_STALLED' : 'REPORT_STREAM_INTERRUPTED';
        await failExport(writer.db, report.exportId, errorCode).catch(() => undefined);
      })()),
    waiting: () => {
      if (stallSeconds === undefined) return;
      deadline = setTimeout(() => body.destroy(new StreamStalled(stallSeconds)), stallSeconds * 1000);
      deadline.unref();
    },
    taken: () => clearTimeout(deadline),
  };
  const body = Readable.from(recorded(writer.db, report, pieces, ending));
  body.once('close', () => {
    clearTimeout(deadline);
    if (!ending.completed) void ending.stop();
  });
  return body;
}

async function* recorded(
  db: Database,
  report: StreamedReport,
  pieces: Pieces,
  ending: Ending,
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  const totals = new ReportTotals(report.type, report.columns);
  let size = 0;
  let cause: unknown;
  const emit = (text: string) => {
    const chunk = Buffer.from(text, 'utf8');
    hash.update(chunk);
    size += chunk.length;
    return chunk;
  };
  /** The text's bytes, at most CHUNK_BYTES a chunk, each waiting for the client at most the stall deadline. */
  async function* sent(text: string): AsyncGenerator<Buffer> {
    const bytes = emit(text);
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      ending.waiting();
      yield bytes.subarray(at, at + CHUNK_BYTES);
      ending.taken();
    }
  }
  try {
    yield* sent(pieces.head);
    for (let batch = report.first; !batch.done; batch = await report.rows.next()) {
      let text = '';
      for (const row of batch.value) {
        text += pieces.row(row, totals.rowCount);
        totals.add(row);
      }
      yield* sent(text);
    }
    const tail = emit(pieces.tail(totals));
    await finishExport(db, report.exportId, { rowCount: totals.rowCount, sha256: hash.digest('hex'), size });
    ending.completed = true;
    yield tail;
  } catch (error) {
    // The cursor or the export's record failed: the cause goes to the log (never to the client).
    cause = error;
    throw error;
  } finally {
    if (!ending.completed) await ending.stop(cause);
  }
}

/** UTF-8 with a byte-order mark (spreadsheets then read Arabic right), CRLF lines, a header row of column names. */
export function csvStream(writer: Writer, report: StreamedReport): Readable {
  const { columns } = report;
  return recordedStream(writer, report, {
    head: CSV_BOM + csvLine(columns.map((column) => column.label[report.locale])),
    row: (row) => csvLine(columns.map((column) => row[column.key] ?? null)),
    tail: () => '',
  });
}

/** The JSON envelope, rows streamed inside it; rowCount and totals come last. */
export function jsonStream(writer: Writer, report: StreamedReport): Readable {
  const { columns } = report;
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
  return recordedStream(writer, report, {
    // The envelope without its two closing braces, then the rows array.
    head: `${opening.slice(0, -2)},"rows":[`,
    row: (row, index) => `${index ? ',' : ''}${JSON.stringify(row)}`,
    tail: (totals) =>
      `],"rowCount":${totals.rowCount},"totals":${totals.rowCount ? JSON.stringify(totals.row()) : 'null'}}}`,
  });
}
