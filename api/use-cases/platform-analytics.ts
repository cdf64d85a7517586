import type { Database } from '../../db/orm.js';
import {
  bookingFigures,
  confirmationFunnel,
  decisionFigures,
  type AnalyticsFilter,
  type DecisionRow,
  type FigureRow,
} from '../../db/queries/platform-analytics.js';
import { recordedTransaction, type AuditActor } from '../../db/writes/audit.js';
import { metDeadlineShare, periodDates } from '../../domain/platform-analytics.js';

/**
 * The platform's figures for a period (GET /admin/api/analytics), read in one transaction with
 * its audit row (analytics.read): the figures are per company and so commercially sensitive.
 */
export function platformAnalytics(db: Database, audit: AuditActor, filter: AnalyticsFilter) {
  return recordedTransaction(
    db,
    async (sql) => ({
      figures: await bookingFigures(sql, filter),
      funnel: await confirmationFunnel(sql, filter),
      decisions: await decisionFigures(sql, filter),
    }),
    () => ({
      ...audit,
      action: 'analytics.read',
      targetKind: 'analytics',
      details: { from: filter.from, to: filter.to, companyId: filter.companyId ?? null },
    }),
  ).then((read) => shape(filter, read));
}

const measures = (row: FigureRow) => ({
  bookings: row.bookings,
  revenue: Number(row.revenue),
  activeTravellers: row.active_travellers,
});

const decisionsOf = (row: DecisionRow | undefined) => {
  const counts = row ?? { requests: 0, pending: 0, approved: 0, rejected: 0, expired: 0, cancelled: 0 };
  const decided = counts.approved + counts.rejected;
  return {
    requests: counts.requests,
    pending: counts.pending,
    approved: counts.approved,
    rejected: counts.rejected,
    expired: counts.expired,
    cancelled: counts.cancelled,
    metDeadline: decided,
    missedDeadline: counts.expired,
    metDeadlineShare: metDeadlineShare({ decided, expired: counts.expired }),
  };
};

function shape(
  filter: AnalyticsFilter,
  read: {
    figures: FigureRow[];
    funnel: Awaited<ReturnType<typeof confirmationFunnel>>;
    decisions: DecisionRow[];
  },
) {
  const at = (level: number) => read.figures.filter((row) => row.level === level);
  const total = at(3)[0];
  const byDay = new Map(at(2).map((row) => [row.day!, row]));
  return {
    period: { from: filter.from, to: filter.to, companyId: filter.companyId ?? null },
    totals: total ? measures(total) : { bookings: 0, revenue: 0, activeTravellers: 0 },
    perCompany: at(1).map((row) => ({
      companyId: row.company_id!,
      companyName: row.company_name ?? '',
      ...measures(row),
    })),
    perDay: periodDates(filter.from, filter.to).map((date) => {
      const row = byDay.get(date);
      return { date, ...(row ? measures(row) : { bookings: 0, revenue: 0, activeTravellers: 0 }) };
    }),
    perCompanyPerDay: at(0).map((row) => ({ date: row.day!, companyId: row.company_id!, ...measures(row) })),
    funnel: {
      quoted: read.funnel.quoted,
      held: read.funnel.held,
      submitted: read.funnel.submitted,
      requested: read.funnel.requested,
      confirmed: read.funnel.confirmed,
      cancelled: read.funnel.cancelled,
      releasedOrExpired: read.funnel.released_or_expired,
    },
    manualDecisions: {
      ...decisionsOf(read.decisions.find((row) => row.level === 1)),
      perCompany: read.decisions
        .filter((row) => row.level === 0)
        .map((row) => ({
          companyId: row.company_id!,
          companyName: row.company_name ?? '',
          ...decisionsOf(row),
        })),
    },
  };
}
