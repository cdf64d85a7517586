import {
  companyRoutes,
  dailyMeasures,
  offeredSeats,
  routeMeasures,
  countTravelFrequency,
  storedFrequency,
  type Offered,
  type RouteName,
} from '../../db/queries/analytics.js';
import type { Database } from '../../db/orm.js';
import { inOneSnapshot, type SqlRunner } from '../../db/sql-runner.js';
import {
  bucketMeasures,
  earliestAnalyticsDay,
  indicator,
  indicatorWindows,
  measuresIn,
  monthOf,
  NO_MEASURES,
  percent,
  periodHorizon,
  rankRoutes,
  seriesBuckets,
  weekStart,
  wholeTripSeats,
  type AnalyticsPeriod,
  type DateRange,
  type DayMeasures,
  type Indicator,
} from '../../domain/analytics.js';

/**
 * GET /analytics: one snapshot of a company's figures (SPEC: indicators, daily and monthly revenue,
 * booking trends, route performance, customer travel frequency; the daily, weekly and monthly
 * series together; geographic and age values empty). Its reads run on one connection in one
 * read-only REPEATABLE READ snapshot (inOneSnapshot), so the series, the indicators and the routes
 * add up; everything else is arithmetic in domain/analytics.ts.
 */

/** What was sold: in a series point (a day, week or month) and in a route's performance. */
export interface SalesFigures {
  bookings: number;
  soldBookings: number;
  seatsSold: number;
  revenue: number;
  cancellations: number;
}

const salesFigures = (measures: DayMeasures): SalesFigures => ({
  bookings: measures.bookings,
  soldBookings: measures.sold,
  seatsSold: measures.seatsSold,
  revenue: measures.revenue,
  cancellations: measures.cancelled,
});

function offeredIn(byDay: ReadonlyMap<string, Offered>, range: DateRange): number {
  let seats = 0;
  for (const [day, offered] of byDay) if (day >= range.from && day <= range.to) seats += offered.seatsOffered;
  return seats;
}

interface Inputs {
  sales: Map<string, DayMeasures>;
  travel: Map<string, DayMeasures>;
  offeredByDay: Map<string, Offered>;
}

function indicators(inputs: Inputs, period: AnalyticsPeriod, today: string): Record<string, Indicator> {
  const { current, previous } = indicatorWindows(period, today);
  const now = measuresIn(inputs.sales, current);
  const before = measuresIn(inputs.sales, previous);
  // Whole-trip seats sold of the seats offered: a seat sold by stretches counts once at most.
  const occupancy = (range: DateRange) =>
    percent(
      wholeTripSeats(measuresIn(inputs.travel, range).seatsSoldBp),
      offeredIn(inputs.offeredByDay, range),
    );
  const average = (measures: DayMeasures) =>
    measures.sold ? Math.round(measures.revenue / measures.sold) : 0;
  return {
    bookings: indicator(now.bookings, before.bookings),
    soldBookings: indicator(now.sold, before.sold),
    seatsSold: indicator(now.seatsSold, before.seatsSold),
    revenue: indicator(now.revenue, before.revenue),
    averageBookingValue: indicator(average(now), average(before)),
    cancellations: indicator(now.cancelled, before.cancelled),
    cancellationRate: indicator(
      percent(now.cancelled, now.bookings),
      percent(before.cancelled, before.bookings),
    ),
    occupancyRate: indicator(occupancy(current), occupancy(previous)),
  };
}

function series(sales: Map<string, DayMeasures>, today: string) {
  const buckets = seriesBuckets(today);
  const daily = bucketMeasures(sales, buckets.days, (day) => day).map((measures, index) => ({
    date: buckets.days[index]!,
    ...salesFigures(measures),
  }));
  const weekly = bucketMeasures(sales, buckets.weeks, weekStart).map((measures, index) => ({
    weekStart: buckets.weeks[index]!,
    ...salesFigures(measures),
  }));
  const monthly = bucketMeasures(sales, buckets.months, monthOf).map((measures, index) => ({
    month: buckets.months[index]!,
    ...salesFigures(measures),
  }));
  return { daily, weekly, monthly };
}

export interface RoutePerformance extends SalesFigures {
  routeId: string;
  nameAr: string;
  nameEn: string;
  trips: number;
  seatsOffered: number;
  /** Whole-trip seats sold on those trips (seats sold by stretches add up to one seat at most), rounded. */
  seatsSoldOnTrips: number;
  occupancyRate: number;
  rank: number;
}

const nothingMeasured = (measures: DayMeasures) => Object.values(measures).every((value) => value === 0);

/** Routes that sold or ran anything in the period, with sales (by booking day) and occupancy (by travel day). */
export function routePerformance(
  names: Map<string, RouteName>,
  sales: Map<string, DayMeasures>,
  travel: Map<string, DayMeasures>,
  offered: Map<string, Offered>,
): RoutePerformance[] {
  const ids = new Set([...sales.keys(), ...travel.keys(), ...offered.keys()]);
  const rows = [...ids].flatMap((routeId) => {
    const name = names.get(routeId);
    if (!name) return [];
    const sold = sales.get(routeId) ?? NO_MEASURES;
    const onTrips = travel.get(routeId) ?? NO_MEASURES;
    const run = offered.get(routeId) ?? { trips: 0, cancelledTrips: 0, seatsOffered: 0 };
    const seatsOnTrips = wholeTripSeats(onTrips.seatsSoldBp);
    // A route whose figures net to nothing (a booking moved off it: +1 then -1) sold and ran nothing.
    if (run.trips === 0 && nothingMeasured(sold) && nothingMeasured(onTrips)) return [];
    return [
      {
        routeId,
        nameAr: name.nameAr,
        nameEn: name.nameEn,
        ...salesFigures(sold),
        trips: run.trips - run.cancelledTrips,
        seatsOffered: run.seatsOffered,
        seatsSoldOnTrips: Math.round(seatsOnTrips),
        occupancyRate: percent(seatsOnTrips, run.seatsOffered),
      },
    ];
  });
  return rankRoutes(rows);
}

export interface TravelFrequency {
  horizon: DateRange;
  /** When the figures were counted: they may be up to one analytics-rollup interval old. */
  asOf: string;
  customers: number;
  trips: number;
  repeatCustomers: number;
  repeatRate: number;
  averageTripsPerCustomer: number;
  buckets: { label: string; customers: number }[];
}

function frequencyFrom(
  horizon: DateRange,
  asOf: Date,
  buckets: { label: string; count: number }[],
  totals: { customers: number; trips: number },
): TravelFrequency {
  const repeatCustomers = totals.customers - (buckets.find((bucket) => bucket.label === '1')?.count ?? 0);
  return {
    horizon,
    asOf: asOf.toISOString(),
    customers: totals.customers,
    trips: totals.trips,
    repeatCustomers,
    repeatRate: percent(repeatCustomers, totals.customers),
    averageTripsPerCustomer: totals.customers ? Math.round((totals.trips / totals.customers) * 100) / 100 : 0,
    buckets: buckets.map(({ label, count }) => ({ label, customers: count })),
  };
}

/**
 * The stored count of the analytics-rollup workflow (at most one interval old), or, for a company
 * it has not counted yet, a count made now.
 */
async function travelFrequency(
  db: SqlRunner,
  companyId: string,
  period: AnalyticsPeriod,
  today: string,
): Promise<TravelFrequency> {
  const stored = await storedFrequency(db, companyId, period);
  if (stored) return frequencyFrom(stored.horizon, stored.computedAt, stored.buckets, stored);
  const horizon = periodHorizon(period, today);
  const counted = await countTravelFrequency(db, companyId, horizon);
  return frequencyFrom(horizon, new Date(), counted.buckets, counted);
}

export async function analyticsSnapshot(
  db: Database,
  input: { companyId: string; period: AnalyticsPeriod; today: string },
) {
  const { companyId, period, today } = input;
  const reach = { from: earliestAnalyticsDay(today), to: today };
  const horizon = periodHorizon(period, today);
  const [sales, travel, offeredByDay, routesSales, routesTravel, routesOffered, names, frequency] =
    // One after the other: statements of one connection run in turn anyway, and pg refuses (from
    // pg@9) a query sent while another is running on the client.
    await inOneSnapshot(
      db,
      async (client) =>
        [
          await dailyMeasures(client, companyId, 'SALES', reach),
          await dailyMeasures(client, companyId, 'TRAVEL', reach),
          await offeredSeats(client, companyId, reach, 'day'),
          await routeMeasures(client, companyId, 'SALES', horizon),
          await routeMeasures(client, companyId, 'TRAVEL', horizon),
          await offeredSeats(client, companyId, horizon, 'route'),
          await companyRoutes(client, companyId),
          await travelFrequency(client, companyId, period, today),
        ] as const,
    );
  const trends = series(sales, today);
  return {
    period,
    today,
    timeZone: 'Asia/Damascus',
    currency: 'SYP',
    windows: indicatorWindows(period, today),
    indicators: indicators({ sales, travel, offeredByDay }, period, today),
    dailyRevenue: trends.daily.map(({ date, revenue, soldBookings }) => ({ date, revenue, soldBookings })),
    monthlyRevenue: trends.monthly.map(({ month, revenue, soldBookings }) => ({
      month,
      revenue,
      soldBookings,
    })),
    bookingTrends: trends,
    routePerformance: {
      horizon,
      routes: routePerformance(names, routesSales, routesTravel, routesOffered),
    },
    customerFrequency: frequency,
    geographic: [] as never[],
    ageGroups: [] as never[],
  };
}
