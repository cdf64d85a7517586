import { cancellationReasons, leadDays, retentionCounts } from '../../db/queries/analytics-advanced.js';
import { companyRoutes, dailyMeasures, offeredSeats, routeMeasures } from '../../db/queries/analytics.js';
import type { Database } from '../../db/orm.js';
import { inOneSnapshot } from '../../db/sql-runner.js';
import {
  addDays,
  comparedWindows,
  countInBuckets,
  histogramStats,
  LEAD_TIME_BUCKETS,
  measuresIn,
  NO_MEASURES,
  percent,
  type DateRange,
  type DayMeasures,
} from '../../domain/analytics.js';
import { FORECAST_HISTORY_DAYS, forecastRevenue } from '../../domain/forecast.js';
import { routePerformance } from './analytics.js';

/**
 * GET /analytics/advanced?days=7..30: the heavy figures, loaded on demand, over the last `days`
 * days (today included) compared with the `days` before: cancellations, retention, a revenue
 * forecast for the next `days` days (domain/forecast.ts says how), route ranking and lead time.
 */

function cancellations(
  sales: Map<string, DayMeasures>,
  windows: { current: DateRange; previous: DateRange },
  reasons: { reason: string; count: number }[],
) {
  const now = measuresIn(sales, windows.current);
  const before = measuresIn(sales, windows.previous);
  const days: { date: string; bookings: number; cancellations: number }[] = [];
  for (let date = windows.current.from; date <= windows.current.to; date = addDays(date, 1)) {
    const measures = sales.get(date) ?? NO_MEASURES;
    days.push({ date, bookings: measures.bookings, cancellations: measures.cancelled });
  }
  return {
    total: now.cancelled,
    rate: percent(now.cancelled, now.bookings),
    previousTotal: before.cancelled,
    previousRate: percent(before.cancelled, before.bookings),
    byReason: reasons,
    daily: days,
  };
}

function forecast(sales: Map<string, DayMeasures>, today: string, days: number) {
  const history = Array.from({ length: FORECAST_HISTORY_DAYS }, (_, index) => {
    const date = addDays(today, index - FORECAST_HISTORY_DAYS);
    return (sales.get(date) ?? NO_MEASURES).revenue;
  });
  const result = forecastRevenue(history, days);
  return {
    method: result.method,
    historyDays: result.historyDays,
    history: { from: addDays(today, -FORECAST_HISTORY_DAYS), to: addDays(today, -1) },
    slopePerDay: result.slopePerDay,
    residualStdDev: result.residualStdDev,
    horizonDays: days,
    total: result.points.reduce((sum, item) => sum + item.value, 0),
    points: result.points.map((item, index) => ({
      date: addDays(today, index),
      revenue: item.value,
      low: item.low,
      high: item.high,
    })),
  };
}

export async function advancedAnalytics(
  db: Database,
  input: { companyId: string; days: number; today: string },
) {
  const { companyId, days, today } = input;
  const windows = comparedWindows(days, today);
  const reach = {
    from: [windows.previous.from, addDays(today, -FORECAST_HISTORY_DAYS)].sort()[0]!,
    to: today,
  };
  const [sales, reasons, retention, lead, names, nowSales, nowTravel, nowOffered, beforeSales] =
    // One after the other, as in analyticsSnapshot: one connection runs its statements in turn.
    await inOneSnapshot(
      db,
      async (client) =>
        [
          await dailyMeasures(client, companyId, 'SALES', reach),
          await cancellationReasons(client, companyId, windows.current),
          await retentionCounts(client, companyId, windows),
          await leadDays(client, companyId, windows.current),
          await companyRoutes(client, companyId),
          await routeMeasures(client, companyId, 'SALES', windows.current),
          await routeMeasures(client, companyId, 'TRAVEL', windows.current),
          await offeredSeats(client, companyId, windows.current, 'route'),
          await routeMeasures(client, companyId, 'SALES', windows.previous),
        ] as const,
    );
  const previousRanks = new Map(
    routePerformance(names, beforeSales, new Map(), new Map()).map((route) => [route.routeId, route.rank]),
  );
  const leadStats = histogramStats(lead);
  return {
    days,
    today,
    timeZone: 'Asia/Damascus',
    currency: 'SYP',
    windows,
    cancellations: cancellations(sales, windows, reasons),
    retention: {
      ...retention,
      retentionRate: percent(retention.retainedCustomers, retention.previousCustomers),
      repeatRate: percent(retention.repeatCustomers, retention.currentCustomers),
    },
    revenueForecast: forecast(sales, today, days),
    routeRanking: routePerformance(names, nowSales, nowTravel, nowOffered).map((route) => ({
      ...route,
      previousRank: previousRanks.get(route.routeId) ?? null,
      cancellationRate: percent(route.cancellations, route.bookings),
    })),
    leadTime: {
      bookings: leadStats.count,
      averageDays: leadStats.average,
      medianDays: leadStats.median,
      p90Days: leadStats.p90,
      buckets: countInBuckets(LEAD_TIME_BUCKETS, lead),
    },
  };
}
