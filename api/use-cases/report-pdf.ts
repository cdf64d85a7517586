import type { PoolClient } from 'pg';
import { companyRoutes, dailyMeasures, offeredSeats, routeMeasures } from '../../db/queries/analytics.js';
import type { CompanySettingsView } from '../../db/queries/company-settings.js';
import { reportRowsIn, type ReportQuery } from '../../db/queries/reports.js';
import type { Database } from '../../db/orm.js';
import { inOneSnapshot } from '../../db/sql-runner.js';
import { datesIn, NO_MEASURES, percent, wholeTripSeats } from '../../domain/analytics.js';
import {
  reportChartsFor,
  ReportTotals,
  REPORT_PDF_MAX_ROWS,
  type ReportCharts,
  type ReportColumn,
  type ReportLocale,
  type ReportRow,
  type ReportSnapshotData,
  type ReportType,
} from '../../domain/reports.js';

/** What a report's charts are drawn for: the report, the role asking, the company and locale. */
interface ChartAsk {
  type: ReportType;
  role: string;
  companyId: string;
  locale: ReportLocale;
  from: string;
  to: string;
}

/**
 * What a report PDF prints (its snapshot data): the company's identity, the rows and totals, and
 * the charts its type shows to the role asking, read with the rows (readPdfReport).
 */
interface PdfFacts {
  exportId: string;
  type: ReportType;
  locale: ReportLocale;
  from: string;
  to: string;
  generatedAt: Date;
  company: CompanySettingsView;
  rows: ReportRow[];
  /** The columns the role gets (reportColumnsFor): the table and totals print these only. */
  columns: readonly ReportColumn[];
  charts: ReportCharts;
}

/**
 * The charts its type shows to the role asking (reportChartsFor: no money charts for a role that
 * may not see revenue, as its columns have no money), over the report's period. Read on the rows'
 * connection, one statement after the other (pg refuses a query sent while another runs).
 */
async function chartsOf(client: PoolClient, ask: ChartAsk): Promise<ReportCharts> {
  const wanted = reportChartsFor(ask.type, ask.role);
  const range = { from: ask.from, to: ask.to };
  const charts: ReportCharts = {};
  if (wanted.includes('revenuePerDay')) {
    const sales = await dailyMeasures(client, ask.companyId, 'SALES', range);
    charts.revenuePerDay = datesIn(range).map((date) => ({
      date,
      revenue: (sales.get(date) ?? NO_MEASURES).revenue,
    }));
  }
  if (wanted.includes('occupancyPerRoute')) {
    const names = await companyRoutes(client, ask.companyId);
    const travel = await routeMeasures(client, ask.companyId, 'TRAVEL', range);
    const offered = await offeredSeats(client, ask.companyId, range, 'route');
    charts.occupancyPerRoute = [...offered].flatMap(([routeId, run]) => {
      const name = names.get(routeId);
      if (!name || run.seatsOffered === 0) return [];
      // Whole-trip seats, as the trips and occupancy reports' seatsSold (exact: the table adds up to it).
      const seatsSold = wholeTripSeats((travel.get(routeId) ?? NO_MEASURES).seatsSoldBp);
      return [
        {
          route: ask.locale === 'ar' ? name.nameAr : name.nameEn,
          seatsSold,
          seatsOffered: run.seatsOffered,
          percent: percent(seatsSold, run.seatsOffered),
        },
      ];
    });
  }
  return charts;
}

/** Reads at most one row more than a PDF prints, so a report too long for paper is known before anything is made. */
async function collectForPdf(batches: AsyncGenerator<ReportRow[]>): Promise<ReportRow[] | null> {
  const rows: ReportRow[] = [];
  for await (const batch of batches) {
    rows.push(...batch);
    if (rows.length > REPORT_PDF_MAX_ROWS) {
      await batches.return(undefined);
      return null;
    }
  }
  return rows;
}

/**
 * A PDF report's rows and charts, read in ONE snapshot (the rows' cursor and the charts on one
 * connection, in one read-only REPEATABLE READ transaction): a sale committed while it is read is
 * in neither its table nor its charts, so the two agree. Null when there are more rows than a PDF
 * prints; no charts when there are no rows.
 */
export function readPdfReport(
  db: Database,
  query: ReportQuery,
  keys: readonly string[],
  ask: ChartAsk,
): Promise<{ rows: ReportRow[]; charts: ReportCharts } | null> {
  return inOneSnapshot(db, async (client) => {
    const rows = await collectForPdf(reportRowsIn(client, query, keys));
    if (!rows) return null;
    return { rows, charts: rows.length ? await chartsOf(client, ask) : {} };
  });
}

export function reportSnapshotData(facts: PdfFacts): ReportSnapshotData {
  const totals = new ReportTotals(facts.type, facts.columns);
  for (const row of facts.rows) totals.add(row);
  const { company } = facts;
  return {
    company: {
      name_ar: company.nameAr,
      name_en: company.nameEn,
      phone: company.phone,
      email: company.email,
      address_ar: company.addressAr,
      address_en: company.addressEn,
    },
    report: {
      id: facts.exportId,
      type: facts.type,
      from: facts.from,
      to: facts.to,
      generated_at: facts.generatedAt.toISOString(),
      state: facts.rows.length ? 'ready' : 'no_data',
      row_count: facts.rows.length,
      currency: 'SYP',
    },
    columns: facts.columns.map((column) => ({
      key: column.key,
      kind: column.kind,
      label: column.label[facts.locale],
    })),
    rows: facts.rows,
    totals: facts.rows.length ? totals.row() : null,
    charts: facts.charts,
  };
}
