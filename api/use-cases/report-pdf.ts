import { companyRoutes, dailyMeasures, offeredSeats, routeMeasures } from '../../db/queries/analytics.js';
import type { CompanySettingsView } from '../../db/queries/company-settings.js';
import type { Database } from '../../db/orm.js';
import { datesIn, NO_MEASURES, percent } from '../../domain/analytics.js';
import {
  reportChartsFor,
  ReportTotals,
  type ReportCharts,
  type ReportColumn,
  type ReportLocale,
  type ReportRow,
  type ReportSnapshotData,
  type ReportType,
} from '../../domain/reports.js';

/**
 * What a report PDF prints (its snapshot data): the company's identity, the rows and totals, and
 * the charts its type shows to the role asking (reportChartsFor: no money charts for a role that
 * may not see revenue, as its columns have no money), over the same period.
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
  /** The role of the staff member asking: decides the money charts. */
  role: string;
}

async function chartsOf(db: Database, facts: PdfFacts): Promise<ReportCharts> {
  const wanted = reportChartsFor(facts.type, facts.role);
  const range = { from: facts.from, to: facts.to };
  const charts: ReportCharts = {};
  if (wanted.includes('revenuePerDay')) {
    const sales = await dailyMeasures(db, facts.company.companyId, 'SALES', range);
    charts.revenuePerDay = datesIn(range).map((date) => ({
      date,
      revenue: (sales.get(date) ?? NO_MEASURES).revenue,
    }));
  }
  if (wanted.includes('occupancyPerRoute')) {
    const companyId = facts.company.companyId;
    const [names, travel, offered] = await Promise.all([
      companyRoutes(db, companyId),
      routeMeasures(db, companyId, 'TRAVEL', range),
      offeredSeats(db, companyId, range, 'route'),
    ]);
    charts.occupancyPerRoute = [...offered].flatMap(([routeId, run]) => {
      const name = names.get(routeId);
      if (!name || run.seatsOffered === 0) return [];
      const seatsSold = (travel.get(routeId) ?? NO_MEASURES).seatsSold;
      return [
        {
          route: facts.locale === 'ar' ? name.nameAr : name.nameEn,
          seatsSold,
          seatsOffered: run.seatsOffered,
          percent: percent(seatsSold, run.seatsOffered),
        },
      ];
    });
  }
  return charts;
}

export async function reportSnapshotData(db: Database, facts: PdfFacts): Promise<ReportSnapshotData> {
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
    charts: facts.rows.length ? await chartsOf(db, facts) : {},
  };
}
