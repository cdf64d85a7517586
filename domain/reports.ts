import { Refusal } from './refusal.js';

/**
 * Company reports (SPEC "Company dashboard API", GET /reports; "Errors": report states). A report
 * is one of four types over a period of Damascus calendar dates, exported as CSV, JSON or PDF in
 * Arabic or English. What each type's rows are and which roles may ask for it are decided here;
 * the rows themselves come from db/queries/reports.ts.
 */
export const REPORT_TYPES = ['revenue', 'bookings', 'trips', 'occupancy'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_FORMATS = ['csv', 'json', 'pdf'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export type ReportLocale = 'ar' | 'en';

/** The longest period one report covers (a year, leap day included). */
export const REPORT_MAX_DAYS = 366;
/** A PDF prints at most this many rows (about 60 landscape pages); a longer report is exported as CSV or JSON. */
export const REPORT_PDF_MAX_ROWS = 2000;

/**
 * Report states (SPEC "Errors": ready data, no data, unauthorized, export failure), one row per
 * request in report_exports. A request the role may not make is recorded `unauthorized` and
 * answered 403; a PDF over REPORT_PDF_MAX_ROWS is `export_failed` before anything is built; any
 * other request starts `pending` and ends `ready` (rows), `no_data` (a valid file without rows) or
 * `export_failed` (the render or the stream failed; the client gets no file, or a cut one).
 */
export const REPORT_STATES = ['pending', 'ready', 'no_data', 'unauthorized', 'export_failed'] as const;
export type ReportState = (typeof REPORT_STATES)[number];

export type ReportEvent = 'refused' | 'tooLarge' | 'accepted' | 'completed' | 'failed';

/** The state machine of one report request; `new` is the request before it has a row. */
export const REPORT_TRANSITIONS: {
  readonly [From in 'new' | ReportState]: Partial<Record<ReportEvent, 'byRows' | ReportState>>;
} = {
  new: { refused: 'unauthorized', tooLarge: 'export_failed', accepted: 'pending' },
  // completed: ready when the file has rows, else no_data.
  pending: { completed: 'byRows', failed: 'export_failed' },
  ready: {},
  no_data: {},
  unauthorized: {},
  export_failed: {},
};

/** The state an event leads to, or an Error when the table has no such transition (a bug, not a refusal). */
export function nextReportState(from: 'new' | ReportState, event: ReportEvent, rowCount = 0): ReportState {
  const to = REPORT_TRANSITIONS[from][event];
  if (!to) throw new Error(`report state ${from} has no transition on ${event}`);
  if (to === 'byRows') return rowCount > 0 ? 'ready' : 'no_data';
  return to;
}

/**
 * Who may export what (SPEC: sensitive operations need OWNER, ADMIN or ACCOUNTANT): revenue is
 * financial; bookings, trips and occupancy are operations a DISPATCHER also plans with. STAFF
 * (office clerks) export nothing.
 */
export const REPORT_ROLES: Record<ReportType, readonly string[]> = {
  revenue: ['OWNER', 'ADMIN', 'ACCOUNTANT'],
  bookings: ['OWNER', 'ADMIN', 'ACCOUNTANT', 'DISPATCHER'],
  trips: ['OWNER', 'ADMIN', 'ACCOUNTANT', 'DISPATCHER'],
  occupancy: ['OWNER', 'ADMIN', 'ACCOUNTANT', 'DISPATCHER'],
};

export function mayExport(role: string, type: ReportType): boolean {
  return REPORT_ROLES[type].includes(role);
}

/** Whether `role` may export any report at all (STAFF may not). */
export function mayExportAny(role: string): boolean {
  return REPORT_TYPES.some((type) => mayExport(role, type));
}

/**
 * How a column's values are written: the CSV and JSON carry the plain value, the PDF formats it.
 * `seats`: whole-trip seats (seat-equivalents), exact to 1/10000 of a seat: a seat sold for a stretch
 * of its trip counts for the share of the trip it is sold for (domain/analytics.ts wholeTripSeats).
 */
export type ColumnKind =
  'text' | 'date' | 'datetime' | 'time' | 'integer' | 'seats' | 'money' | 'percent' | 'code';

export interface ReportColumn {
  key: string;
  kind: ColumnKind;
  label: Record<ReportLocale, string>;
  /** Summed in the totals row (integers and money); percents are recomputed from their parts. */
  summed?: boolean;
}

const column = (
  key: string,
  kind: ColumnKind,
  en: string,
  ar: string,
  summed = kind === 'integer' || kind === 'seats' || kind === 'money',
): ReportColumn => ({ key, kind, label: { en, ar }, summed });

/** Columns several reports print alike, each with its words written once. */
const SHARED_COLUMNS = {
  date: column('date', 'date', 'Date', 'التاريخ'),
  departureTime: column('departureTime', 'time', 'Departure', 'المغادرة'),
  route: column('route', 'text', 'Route', 'الخط'),
  status: column('status', 'code', 'Status', 'الحالة'),
  /** The revenue report's: seats sold (tickets) by booking day, whatever stretch of the trip each is for. */
  seatsSold: column('seatsSold', 'integer', 'Seats sold', 'المقاعد المباعة'),
  /**
   * The trips and occupancy reports': whole-trip seats sold (by travel day), the part of occupancy:
   * seats sold by stretches add up to one seat of the trip at most, so never more than the seats offered.
   */
  seatsSoldOnTrips: column('seatsSold', 'seats', 'Seats sold', 'المقاعد المباعة'),
  occupancyPercent: column('occupancyPercent', 'percent', 'Occupancy %', 'نسبة الإشغال %'),
};

/** A report's columns in order; a row is an object with exactly these keys. */
export const REPORT_COLUMNS: Record<ReportType, readonly ReportColumn[]> = {
  revenue: [
    SHARED_COLUMNS.date,
    column('bookings', 'integer', 'Bookings', 'الحجوزات'),
    column('soldBookings', 'integer', 'Sold bookings', 'الحجوزات المباعة'),
    SHARED_COLUMNS.seatsSold,
    column('grossSales', 'money', 'Gross sales', 'إجمالي المبيعات'),
    column('discounts', 'money', 'Discounts', 'الخصومات'),
    column('netRevenue', 'money', 'Net revenue', 'صافي الإيراد'),
    column('cancelled', 'integer', 'Cancelled', 'الملغاة'),
    column('collected', 'money', 'Cash collected', 'النقد المحصل'),
    column('refunded', 'money', 'Refunded', 'المسترد'),
  ],
  bookings: [
    column('bookingCode', 'text', 'Booking code', 'رمز الحجز'),
    column('createdAt', 'datetime', 'Booked at', 'وقت الحجز'),
    column('travelDate', 'date', 'Travel date', 'تاريخ السفر'),
    SHARED_COLUMNS.departureTime,
    SHARED_COLUMNS.route,
    column('passengerName', 'text', 'Passenger', 'المسافر'),
    column('seats', 'integer', 'Seats', 'المقاعد'),
    column('seatNumbers', 'text', 'Seat numbers', 'أرقام المقاعد'),
    SHARED_COLUMNS.status,
    column('paymentStatus', 'code', 'Payment', 'الدفع'),
    column('channel', 'code', 'Channel', 'القناة'),
    column('subtotal', 'money', 'Subtotal', 'المبلغ قبل الخصم'),
    column('discount', 'money', 'Discount', 'الخصم'),
    column('total', 'money', 'Total', 'الإجمالي'),
  ],
  trips: [
    SHARED_COLUMNS.date,
    SHARED_COLUMNS.departureTime,
    SHARED_COLUMNS.route,
    column('bus', 'text', 'Bus', 'الحافلة'),
    SHARED_COLUMNS.status,
    // Seats offered: none on a cancelled trip, so the totals' occupancy is the occupancy report's.
    column('seatsTotal', 'integer', 'Seats offered', 'المقاعد المعروضة'),
    SHARED_COLUMNS.seatsSoldOnTrips,
    SHARED_COLUMNS.occupancyPercent,
    column('bookings', 'integer', 'Sold bookings', 'الحجوزات المباعة'),
    column('cancelled', 'integer', 'Cancelled bookings', 'الحجوزات الملغاة'),
    column('delayMinutes', 'integer', 'Delay (min)', 'التأخير (دقيقة)', false),
  ],
  occupancy: [
    SHARED_COLUMNS.route,
    column('trips', 'integer', 'Trips', 'الرحلات'),
    column('cancelledTrips', 'integer', 'Cancelled trips', 'الرحلات الملغاة'),
    column('seatsOffered', 'integer', 'Seats offered', 'المقاعد المعروضة'),
    SHARED_COLUMNS.seatsSoldOnTrips,
    SHARED_COLUMNS.occupancyPercent,
  ],
};

/**
 * The columns of a report as `role` gets it, the same in every format (CSV, JSON, PDF): without the
 * money columns (a booking's subtotal, discount and total) for a role that may not export the revenue
 * report, or a DISPATCHER's bookings report would give row by row what the revenue report keeps
 * from it. Left out rather than blanked: a blank money column would print as unknown amounts and
 * total to 0, and each format already lists exactly its columns (CSV header, JSON `columns`, PDF table).
 * Trips and occupancy carry no money, so every role that may export them gets all their columns.
 */
export function reportColumnsFor(type: ReportType, role: string): readonly ReportColumn[] {
  if (mayExport(role, 'revenue')) return REPORT_COLUMNS[type];
  return REPORT_COLUMNS[type].filter((column) => column.kind !== 'money');
}

export type ReportValue = string | number | null;
export type ReportRow = Record<string, ReportValue>;

/** A share as a percentage with one decimal (0 when there is no whole). */
export function percentOf(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;
}

/** The percent columns' parts: occupancy is (whole-trip) seats sold of the seats offered on the same rows. */
const PERCENT_PARTS: Partial<Record<ReportType, { part: string; whole: string }>> = {
  trips: { part: 'seatsSold', whole: 'seatsTotal' },
  occupancy: { part: 'seatsSold', whole: 'seatsOffered' },
};

/** Adds up the summed columns as rows stream past, without keeping the rows. */
export class ReportTotals {
  private readonly sums = new Map<string, number>();
  rowCount = 0;

  /** `columns`: those the report is made of for its reader (reportColumnsFor), all its type's by default. */
  constructor(
    readonly type: ReportType,
    private readonly columns: readonly ReportColumn[] = REPORT_COLUMNS[type],
  ) {}

  add(row: ReportRow): void {
    this.rowCount += 1;
    for (const { key, summed } of this.columns) {
      if (summed) this.sums.set(key, (this.sums.get(key) ?? 0) + Number(row[key] ?? 0));
    }
  }

  /** The totals row: sums (seats exact to 1/10000, as their rows), a recomputed percent, empty text. */
  row(): ReportRow {
    const parts = PERCENT_PARTS[this.type];
    const sum = (key: string) => this.sums.get(key) ?? 0;
    const seats = (key: string) => Math.round(sum(key) * 10_000) / 10_000;
    return Object.fromEntries(
      this.columns.map(({ key, kind, summed }) => {
        if (summed) return [key, kind === 'seats' ? seats(key) : sum(key)];
        if (kind === 'percent' && parts)
          return [key, percentOf(this.sums.get(parts.part) ?? 0, this.sums.get(parts.whole) ?? 0)];
        return [key, null];
      }),
    );
  }
}

/** Number of days from `from` to `to`, both included (calendar dates YYYY-MM-DD). */
export function daysInPeriod(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/** The period must run forwards and be at most REPORT_MAX_DAYS long. */
export function periodRefusal(from: string, to: string): Refusal | null {
  const days = daysInPeriod(from, to);
  if (days < 1) {
    return new Refusal(400, 'REPORT_PERIOD_INVALID', 'fromDate must not be after toDate', {
      fromDate: from,
      toDate: to,
    });
  }
  if (days > REPORT_MAX_DAYS) {
    return new Refusal(400, 'REPORT_PERIOD_TOO_LONG', `A report covers at most ${REPORT_MAX_DAYS} days`, {
      days,
      maxDays: REPORT_MAX_DAYS,
    });
  }
  return null;
}

/**
 * CSV (RFC 4180): a field with a comma, quote or line break is quoted, quotes doubled; null is
 * empty. Text a spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage
 * return: a passenger may name themselves so) gets a leading apostrophe, as OWASP advises. A
 * semicolon is quoted too: spreadsheets of locales whose list separator it is split unquoted text
 * there, and the part after it would be a cell of its own, its formula not defused.
 */
export function csvField(value: ReportValue): string {
  if (value === null) return '';
  const text = typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : String(value);
  return /[",;\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: readonly ReportValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** The byte-order mark that makes spreadsheet programs read the file as UTF-8 (Arabic included). */
export const CSV_BOM = '\uFEFF';

/** A chart printed on a report: revenue per day, or occupancy per route. */
export interface ReportCharts {
  revenuePerDay?: { date: string; revenue: number }[];
  occupancyPerRoute?: { route: string; seatsSold: number; seatsOffered: number; percent: number }[];
}

/**
 * What a report PDF prints, frozen in its document snapshot (kind REPORT): the company's identity,
 * the report's facts, its columns and rows, the totals and the charts. Rendering the same snapshot
 * gives the same words.
 */
export interface ReportSnapshotData {
  company: {
    name_ar: string;
    name_en: string;
    phone: string | null;
    email: string | null;
    address_ar: string;
    address_en: string;
  };
  report: {
    id: string;
    type: ReportType;
    from: string;
    to: string;
    /** ISO-8601 instant the export was asked for. */
    generated_at: string;
    state: 'ready' | 'no_data';
    row_count: number;
    currency: string;
  };
  columns: { key: string; kind: ColumnKind; label: string }[];
  rows: ReportRow[];
  totals: ReportRow | null;
  charts: ReportCharts;
}

/** Which charts each report's PDF shows: financial charts only where the rows are financial too. */
export const REPORT_CHARTS: Record<ReportType, readonly (keyof ReportCharts)[]> = {
  revenue: ['revenuePerDay', 'occupancyPerRoute'],
  bookings: ['revenuePerDay'],
  trips: ['occupancyPerRoute'],
  occupancy: ['occupancyPerRoute'],
};

/** Charts of money: printed only for a role that may see revenue (the revenue report's roles). */
const MONEY_CHARTS: readonly (keyof ReportCharts)[] = ['revenuePerDay'];

/**
 * The charts a report's PDF shows to `role`: those of its type, without the money charts for a
 * role that may not export the revenue report (a DISPATCHER exports bookings, not revenue).
 */
export function reportChartsFor(type: ReportType, role: string): (keyof ReportCharts)[] {
  return REPORT_CHARTS[type].filter((chart) => !MONEY_CHARTS.includes(chart) || mayExport(role, 'revenue'));
}
