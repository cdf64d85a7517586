import { z } from 'zod';
import {
  REPORT_FORMATS,
  REPORT_MAX_DAYS,
  REPORT_PDF_MAX_ROWS,
  REPORT_STATES,
  REPORT_TYPES,
} from '../../domain/reports.js';
import { CalendarDate, errorResponses, FileBytes, Locale } from '../http/schemas.js';
import { taggedOperations } from '../http/operation-docs.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/** OpenAPI of GET /reports (reports.ts). */

export const ReportQuery = z
  .object({
    type: z.enum(REPORT_TYPES),
    fromDate: CalendarDate.meta({ description: 'first day of the period (Damascus calendar date)' }),
    toDate: CalendarDate.meta({ description: 'last day of the period, included' }),
    format: z.enum(REPORT_FORMATS),
    locale: Locale.default('ar').meta({ description: 'language of the headers, names and PDF; default ar' }),
  })
  .strict();

const JsonReport = successWith(
  z.object({
    reportId: IdText,
    type: z.enum(REPORT_TYPES),
    format: z.literal('json'),
    locale: Locale,
    period: z.object({ fromDate: z.string(), toDate: z.string() }),
    company: z.object({ id: z.string(), nameAr: z.string(), nameEn: z.string() }),
    currency: z.literal('SYP'),
    timeZone: z.literal('Asia/Damascus'),
    state: z.enum(['ready', 'no_data']),
    columns: z.array(
      z.object({
        key: z.string(),
        label: z.string(),
        kind: z.string().meta({
          description:
            'text, date, datetime, time, integer, seats (whole-trip seats: may have up to 4 decimals), money, percent or code',
        }),
      }),
    ),
    rows: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
    rowCount: z.int(),
    totals: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).nullable(),
  }),
);

const TYPES =
  'revenue: one row per day of the period with sales or cash movements (bookings made, sold, seats, gross sales, ' +
  'discounts and net revenue by booking day; cash collected and refunded by collection and refund day). bookings: ' +
  'one row per booking made in the period, oldest first. trips: one row per trip operating in the period, in ' +
  'departure order, with seats offered (seatsTotal: 0 for a cancelled trip, as in occupancy), seats sold and ' +
  'occupancy. occupancy: one row per route with trips in the period: trips ' +
  'run, cancelled, seats offered and sold, occupancy. In trips and occupancy, seatsSold is whole-trip seats (column ' +
  'kind seats, exact to 1/10000 of a seat): a seat sold for a stretch of its trip counts for the share of the trip ' +
  'it is sold for (alight minus board fare share), so seats sold on consecutive stretches add up to one seat at most, ' +
  'seatsSold never exceeds the seats offered and occupancyPercent (seatsSold of the seats offered) never exceeds 100; ' +
  "the revenue report's seatsSold counts seats sold (tickets) by booking day. Sold means CONFIRMED, CHECKED_IN, " +
  'COMPLETED or NO_SHOW; ' +
  'amounts are integer SYP; dates and times are Damascus time.';
const FORMATS =
  'csv (text/csv, UTF-8 with a byte-order mark so spreadsheets open Arabic correctly, CRLF lines, a header row in ' +
  'the locale, then the rows with the same values as JSON; text a spreadsheet would run as a formula gets a leading ' +
  "apostrophe) and json (the envelope below; the rows' values are the CSV's) stream from a server-side cursor, so " +
  `a year of a busy company never sits in memory. pdf: landscape A4, tagged, at most ${REPORT_PDF_MAX_ROWS} rows ` +
  '(else 422 REPORT_TOO_LARGE_FOR_PDF), with the company identity on top, its charts (revenue per day for revenue ' +
  'and bookings, only for the roles that may export the revenue report, so never for a DISPATCHER; occupancy per ' +
  'route for revenue, trips and occupancy), the table whose header row repeats on ' +
  'every page, the totals, and a footer with the company and page numbers; it is an immutable snapshot rendered ' +
  'by the document-render workflow, its SHA-256 recorded before any byte is sent (Content-Digest). A CSV or JSON ' +
  'stream holds a database connection until its last byte, so each API process streams at most ' +
  'REPORT_STREAMS_MAX at once (default half its connection pool): one more is 503 SERVICE_UNAVAILABLE with ' +
  'Retry-After (try again shortly; nothing recorded), and a download whose client takes none of its bytes for ' +
  'REPORT_STREAM_STALL_SECONDS (default 30) is cut off (a response without its end, recorded export_failed).';
const STATES =
  `Report states (SPEC "Errors"), recorded per request in report_exports with the row count and the SHA-256 and ` +
  'size of the file: ready (rows), no_data (a valid file without rows: the CSV header, JSON rows [], a PDF ' +
  'saying so), unauthorized (403 REPORT_UNAUTHORIZED, body state "unauthorized") and export_failed (500 ' +
  'REPORT_EXPORT_FAILED when the PDF cannot be produced, 503 SERVICE_UNAVAILABLE with Retry-After when it cannot ' +
  'be now because Temporal does not answer or its render has not finished within 20 s (a retry is a new export), 422 REPORT_TOO_LARGE_FOR_PDF; a CSV or JSON stream cut ' +
  'short is recorded so too). Headers X-Report-Id and X-Report-State (ready or no_data) come with every file. A HEAD ' +
  'sends no file, so it is 405 METHOD_NOT_ALLOWED (Allow: GET): no export made, nothing recorded.';
const ACCESS =
  'Reports of the session company only. revenue: OWNER, ADMIN, ACCOUNTANT; bookings, trips, occupancy: also ' +
  "DISPATCHER, whose bookings report has no money columns (subtotal, discount, total: not in the CSV, the JSON's " +
  'columns, rows and totals, nor the PDF); STAFF none. Also for a suspended company (reading its own data). The role comes first: STAFF is ' +
  '403 REPORT_UNAUTHORIZED before its query is read, whatever it sends, and a role asking for a type it may not ' +
  'export is 403 whatever its period; such a refusal is recorded unauthorized (body reportId) when the query is ' +
  'valid and its period runs forwards. For a role that may export the type, the period runs forwards (400 ' +
  `REPORT_PERIOD_INVALID) over at most ${REPORT_MAX_DAYS} days (400 REPORT_PERIOD_TOO_LONG); a bad type, date, ` +
  'format, locale or an unknown parameter is 400 VALIDATION_FAILED; none of these is recorded. Rate limited per ' +
  'company user (REPORT_RATE_LIMIT_PER_MINUTE, 429 RATE_LIMITED). Always Cache-Control: private, no-store.';

export const docs = taggedOperations(['Dashboard: reports'], {
  exportReport: {
    summary: 'A company report as CSV, JSON or PDF',
    description: `${TYPES} ${FORMATS} ${STATES} ${ACCESS} States in report_exports: ${REPORT_STATES.join(', ')}.`,
    responses: {
      200: {
        description:
          'The report in the format asked for: JSON (the envelope), CSV or PDF (a file to download)',
        content: {
          'application/json': JsonReport,
          'text/csv': z
            .string()
            .meta({ description: 'UTF-8 with a byte-order mark, CRLF lines, a header row' }),
          'application/pdf': FileBytes,
        },
      },
      ...errorResponses(400, 401, 403, 405, 422, 429),
      500: { description: 'REPORT_EXPORT_FAILED: the PDF could not be produced (state export_failed)' },
    },
  },
});
