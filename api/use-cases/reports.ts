import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Config } from '../../config/index.js';
import { readCompanySettings, type CompanySettingsView } from '../../db/queries/company-settings.js';
import { reportRowBatches, type ReportQuery } from '../../db/queries/reports.js';
import { recordAccess } from '../../db/writes/documents.js';
import {
  failExport,
  finishExport,
  recordRefusedExport,
  startExport,
  startPdfExport,
  type ExportRequest,
} from '../../db/writes/reports.js';
import {
  mayExport,
  periodRefusal,
  REPORT_PDF_MAX_ROWS,
  REPORT_ROLES,
  REPORT_TYPES,
  reportColumnsFor,
  type ReportColumn,
  type ReportState,
} from '../../domain/reports.js';
import { Refusal, unavailableFor } from '../http/errors.js';
import {
  renderedDocument,
  renderUnavailable,
  type RenderContext,
  type RenderedDocument,
} from '../temporal/document-render-client.js';
import { readPdfReport, reportSnapshotData } from './report-pdf.js';
import { csvStream, jsonStream, type StreamedReport, type StreamSlots } from './report-streams.js';

/**
 * GET /reports: checks the role, then the period, records the request in report_exports, and makes
 * the file: CSV and JSON stream from the report's cursor; a PDF is an immutable snapshot rendered
 * by the document-render workflow (its checksum stored before any byte is sent).
 */
export interface ReportAsk extends Omit<ExportRequest, 'requestedBy'> {
  staff: { staffUserId: string; role: string };
}

/** What an export needs beside the render's: its process's stream slots and the stall deadline. */
export interface ReportContext extends RenderContext {
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'REPORT_STREAM_STALL_SECONDS'>;
  reportStreams: StreamSlots;
}

export type ReportAnswer =
  | {
      kind: 'stream';
      exportId: string;
      state: ReportState;
      filename: string;
      contentType: string;
      body: Readable;
    }
  | {
      kind: 'pdf';
      exportId: string;
      state: ReportState;
      filename: string;
      rowCount: number;
      rendered: RenderedDocument;
    };

const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', json: 'application/json; charset=utf-8' } as const;

const filenameOf = (ask: ReportAsk) => `report-${ask.type}-${ask.from}-${ask.to}-${ask.locale}.${ask.format}`;

/** Every role that may export some report, for the refusal of a request that names none. */
const EXPORTING_ROLES = [...new Set(REPORT_TYPES.flatMap((type) => REPORT_ROLES[type]))];

/**
 * 403 REPORT_UNAUTHORIZED for a role that may not export the report asked for. The request is
 * recorded `unauthorized` whenever it names a report a report_exports row holds: a type, format and
 * locale over a forwards period (however long; the role is checked before the period). One that
 * names none is refused alike with nothing recorded: a backwards period, or (`request` null) a query
 * that is not valid from a role that may export no report, refused before its query is read.
 */
export async function refuseReport(
  context: RenderContext,
  role: string,
  request: ExportRequest | null,
): Promise<never> {
  const reportId =
    request && request.from <= request.to
      ? await recordRefusedExport(context.db, request, 'refused', 'REPORT_UNAUTHORIZED')
      : undefined;
  const allowedRoles = request ? REPORT_ROLES[request.type] : EXPORTING_ROLES;
  throw new Refusal(
    403,
    'REPORT_UNAUTHORIZED',
    request
      ? `The ${request.type} report is for the roles ${allowedRoles.join(', ')}`
      : `Reports are for the roles ${allowedRoles.join(', ')}`,
    { role, allowedRoles: [...allowedRoles] },
    { state: 'unauthorized', ...(reportId ? { reportId } : {}) },
  );
}

export async function exportReport(context: ReportContext, ask: ReportAsk): Promise<ReportAnswer> {
  const request: ExportRequest = { ...ask, requestedBy: ask.staff.staffUserId };
  if (!mayExport(ask.staff.role, ask.type)) return refuseReport(context, ask.staff.role, request);
  const period = periodRefusal(ask.from, ask.to);
  if (period) throw period;
  const company = await readCompanySettings(context.db, ask.companyId);
  // The role's columns decide every format's header, rows and totals: no money for a DISPATCHER.
  const columns = reportColumnsFor(ask.type, ask.staff.role);
  const query = { companyId: ask.companyId, type: ask.type, from: ask.from, to: ask.to, locale: ask.locale };
  if (ask.format === 'pdf') return pdfReport(context, { ask, request, company, columns, query });

  // A stream holds a pooled connection until its last byte: past the process's slots, the export is
  // refused before anything is recorded, so streams never take every connection from other requests.
  const release = context.reportStreams.take();
  if (!release) {
    throw unavailableFor(
      'SERVICE_UNAVAILABLE',
      'Too many report downloads are running at once; try again shortly',
    );
  }
  try {
    const answer = await streamedReport(context, ask.format, { ask, request, company, columns, query });
    answer.body.once('close', release);
    return answer;
  } catch (error) {
    release();
    throw error;
  }
}

/** A CSV or JSON export: its rows' cursor read from, its file streamed as they come. */
async function streamedReport(
  context: ReportContext,
  format: keyof typeof CONTENT_TYPES,
  { ask, request, company, columns, query }: ExportAsk,
): Promise<Extract<ReportAnswer, { kind: 'stream' }>> {
  const keys = columns.map((column) => column.key);
  const exportId = await startExport(context.db, request);
  const rows = reportRowBatches(context.db, query, keys);
  const first = await rows.next().catch(async (error: unknown) => {
    await failExport(context.db, exportId, 'REPORT_QUERY_FAILED');
    throw error;
  });
  const streamed: StreamedReport = {
    exportId,
    type: ask.type,
    locale: ask.locale,
    from: ask.from,
    to: ask.to,
    company,
    columns,
    first,
    rows,
    requestId: ask.requestId,
  };
  const body = format === 'csv' ? csvStream(context, streamed) : jsonStream(context, streamed);
  return {
    kind: 'stream',
    exportId,
    state: first.done ? 'no_data' : 'ready',
    filename: filenameOf(ask),
    contentType: CONTENT_TYPES[format],
    body,
  };
}

/** What an export is made of: the request, the company, the columns the asking role gets, the rows' query. */
interface ExportAsk {
  ask: ReportAsk;
  request: ExportRequest;
  company: CompanySettingsView;
  columns: readonly ReportColumn[];
  query: ReportQuery;
}

async function pdfReport(
  context: RenderContext,
  { ask, request, company, columns, query }: ExportAsk,
): Promise<ReportAnswer> {
  const keys = columns.map((column) => column.key);
  const read = await readPdfReport(context.db, query, keys, { ...query, role: ask.staff.role });
  if (!read) {
    const reportId = await recordRefusedExport(context.db, request, 'tooLarge', 'REPORT_TOO_LARGE_FOR_PDF');
    throw new Refusal(
      422,
      'REPORT_TOO_LARGE_FOR_PDF',
      `A PDF report prints at most ${REPORT_PDF_MAX_ROWS} rows; export this period as CSV or JSON`,
      { maxRows: REPORT_PDF_MAX_ROWS },
      { state: 'export_failed', reportId },
    );
  }
  const { rows, charts } = read;
  const exportId = randomUUID();
  const data = reportSnapshotData({
    ...ask,
    exportId,
    company,
    columns,
    rows,
    charts,
    generatedAt: new Date(),
  });
  const { snapshotId } = await startPdfExport(context.db, { ...request, id: exportId }, data);
  let rendered: RenderedDocument;
  try {
    rendered = await renderedDocument(context, snapshotId);
  } catch (error) {
    // Temporal or PostgreSQL does not answer: recorded so, and thrown on for the error writer's 503
    // SERVICE_UNAVAILABLE with Retry-After (the client may ask again); a failed render is 500.
    const unavailable = renderUnavailable(error);
    await failExport(
      context.db,
      exportId,
      unavailable ? 'REPORT_RENDER_UNAVAILABLE' : 'REPORT_RENDER_FAILED',
    );
    if (unavailable) throw error;
    throw new Refusal(
      500,
      'REPORT_EXPORT_FAILED',
      'The report could not be produced; try again later',
      undefined,
      {
        state: 'export_failed',
        reportId: exportId,
      },
    );
  }
  const state = await finishExport(context.db, exportId, {
    rowCount: rows.length,
    sha256: rendered.sha256,
    size: rendered.size,
  });
  await recordAccess(context.db, {
    snapshotId,
    actorKind: 'STAFF',
    actorId: ask.staff.staffUserId,
    action: 'DOWNLOAD',
    sha256: rendered.sha256,
    size: rendered.size,
    requestId: ask.requestId,
  });
  return { kind: 'pdf', exportId, state, filename: filenameOf(ask), rowCount: rows.length, rendered };
}
