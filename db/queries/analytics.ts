import {
  countInBuckets,
  FREQUENCY_BUCKETS,
  SOLD_STATUSES,
  type CountBucket,
  type DateRange,
  type DayMeasures,
} from '../../domain/analytics.js';
import type { SqlRunner } from '../sql-runner.js';
import { rowsOf } from '../sql-runner.js';

/**
 * Reads behind GET /analytics and /analytics/advanced. Booking figures come from the booking
 * statistics (booking_stats_daily plus the deltas not folded into it yet, read in ONE statement so
 * they are one consistent snapshot: exact, never stale); seats offered come from trips; travel
 * frequency needs one count per traveller and is read from bookings (or its stored snapshot).
 */

export type StatBasis = 'SALES' | 'TRAVEL';

/** The statistics rows matching `where`: the folded days and the deltas not folded yet, as one row source `s`. */
const statsRows = (where: string) => `(
  select route_id, day, bookings, sold, seats_sold, seats_sold_bp, revenue, discount, cancelled
    from booking_stats_daily where ${where}
  union all
  select route_id, day, bookings, sold, seats_sold, seats_sold_bp, revenue, discount, cancelled
    from booking_stats_deltas where ${where}
) s`;

/**
 * The statistics rows of a company ($1), a basis and a range of days, given as SQL expressions
 * (parameters or literals): the folded days and the deltas not folded yet, as one row source `s`.
 */
export const statsSource = (basis: string, from: string, to: string) =>
  statsRows(`company_id = $1 and basis = ${basis} and day between ${from} and ${to}`);

/**
 * Every day's statistics of `company` (an SQL expression) on the SALES basis, where each booking
 * counts once, whatever its status, on the day it was made: its `bookings` sum to the company's
 * bookings and its `revenue` to their revenue as bookingMeasures counts it, at a few rows a day
 * instead of one a booking.
 */
export const allSalesStats = (company: string) => statsRows(`company_id = ${company} and basis = 'SALES'`);

/**
 * What one booking row (`alias`) counts for, as a row source of bookings, sold, seats_sold,
 * seats_sold_bp, revenue, discount and cancelled: the database's one definition
 * (booking_stats_measures, see the insight and stretch_occupancy migrations). Revenue is the total
 * price of a sold booking that was not refunded; seats_sold_bp its sold seats times the share of the
 * trip they are sold for (bookings.trip_share_bp).
 */
export const bookingMeasures = (alias: string) =>
  `booking_stats_measures(${alias}.status, ${alias}.payment_status, ${alias}.seats_count, ${alias}.trip_share_bp, ${alias}.total_price, ${alias}.discount)`;

const STATS = statsSource('$2', '$3', '$4');

const SUMS = `sum(s.bookings)::int as bookings, sum(s.sold)::int as sold, sum(s.seats_sold)::int as seats_sold,
  sum(s.seats_sold_bp)::float8 as seats_sold_bp, sum(s.revenue)::float8 as revenue, sum(s.discount)::float8 as discount,
  sum(s.cancelled)::int as cancelled`;

interface MeasureRow {
  bookings: number;
  sold: number;
  seats_sold: number;
  seats_sold_bp: number;
  revenue: number;
  discount: number;
  cancelled: number;
}

const toMeasures = (row: MeasureRow): DayMeasures => ({
  bookings: row.bookings,
  sold: row.sold,
  seatsSold: row.seats_sold,
  seatsSoldBp: row.seats_sold_bp,
  revenue: row.revenue,
  discount: row.discount,
  cancelled: row.cancelled,
});

/** Measures grouped by `key` (a column of the stats), keyed by its text. */
async function measuresBy(
  runner: SqlRunner,
  key: 's.day' | 's.route_id',
  companyId: string,
  basis: StatBasis,
  range: DateRange,
): Promise<Map<string, DayMeasures>> {
  const rows = await rowsOf<MeasureRow & { key: string }>(
    runner,
    `select ${key}::text as key, ${SUMS} from ${STATS} group by ${key}`,
    [companyId, basis, range.from, range.to],
  );
  return new Map(rows.map((row) => [row.key, toMeasures(row)]));
}

/** Measures per day (summed over routes), keyed by date. */
export const dailyMeasures = (runner: SqlRunner, companyId: string, basis: StatBasis, range: DateRange) =>
  measuresBy(runner, 's.day', companyId, basis, range);

/** Measures per route over a period, keyed by route id. */
export const routeMeasures = (runner: SqlRunner, companyId: string, basis: StatBasis, range: DateRange) =>
  measuresBy(runner, 's.route_id', companyId, basis, range);

export interface Offered {
  trips: number;
  cancelledTrips: number;
  /** Seats of the trips that were not cancelled. */
  seatsOffered: number;
}

interface OfferedRow {
  key: string;
  trips: number;
  cancelled_trips: number;
  seats_offered: number;
}

const toOffered = (row: OfferedRow): Offered => ({
  trips: row.trips,
  cancelledTrips: row.cancelled_trips,
  seatsOffered: row.seats_offered,
});

/** Trips and seats offered per operating date or per route, in a period. */
export async function offeredSeats(
  runner: SqlRunner,
  companyId: string,
  range: DateRange,
  by: 'day' | 'route',
): Promise<Map<string, Offered>> {
  const key = by === 'day' ? 'operating_date::text' : 'route_id::text';
  const rows = await rowsOf<OfferedRow>(
    runner,
    `select ${key} as key, count(*)::int as trips, count(*) filter (where status = 'CANCELLED')::int as cancelled_trips,
            coalesce(sum(seats_total) filter (where status <> 'CANCELLED'), 0)::int as seats_offered
       from trips where company_id = $1 and operating_date between $2 and $3
      group by 1`,
    [companyId, range.from, range.to],
  );
  return new Map(rows.map((row) => [row.key, toOffered(row)]));
}

export interface RouteName {
  id: string;
  nameAr: string;
  nameEn: string;
}

export async function companyRoutes(runner: SqlRunner, companyId: string): Promise<Map<string, RouteName>> {
  const rows = await rowsOf<{ id: string; name_ar: string; name_en: string }>(
    runner,
    `select id, name_ar, name_en from routes where company_id = $1`,
    [companyId],
  );
  return new Map(rows.map((row) => [row.id, { id: row.id, nameAr: row.name_ar, nameEn: row.name_en }]));
}

/**
 * A traveller (of a bookings row `b`) is their canonical passenger profile, else the account that
 * booked. A booking made before its account had a profile (an identity-provider account adds its
 * phone later) carries no passenger_id: the account's profile, read now, names the same traveller
 * as the bookings made after it.
 */
export const CUSTOMER_KEY = `coalesce(b.passenger_id,
  (select u.passenger_id from users u where u.id = b.owner_user_id), b.owner_user_id)`;

/**
 * How many travellers took how many trips (sold bookings whose trip operates in the period):
 * a map of trips per traveller to the number of travellers. Reads the bookings themselves.
 */
export async function tripsPerCustomer(
  runner: SqlRunner,
  companyId: string,
  range: DateRange,
): Promise<Map<number, number>> {
  const rows = await rowsOf<{ trips: number; customers: number }>(
    runner,
    `select trips, count(*)::int as customers
       from (select ${CUSTOMER_KEY} as customer, count(*)::int as trips
               from bookings b join trips t on t.id = b.trip_id
              where b.company_id = $1 and t.operating_date between $2 and $3
                and b.status = any($4::text[]) and ${CUSTOMER_KEY} is not null
              group by 1) per_customer
      group by trips`,
    [companyId, range.from, range.to, [...SOLD_STATUSES]],
  );
  return new Map(rows.map((row) => [row.trips, row.customers]));
}

export interface FrequencyCount {
  buckets: CountBucket[];
  customers: number;
  trips: number;
}

/** Travellers per number of trips in the horizon, counted now from the bookings. */
export async function countTravelFrequency(
  runner: SqlRunner,
  companyId: string,
  horizon: DateRange,
): Promise<FrequencyCount> {
  const perCustomer = await tripsPerCustomer(runner, companyId, horizon);
  let customers = 0;
  let trips = 0;
  for (const [count, travellers] of perCustomer) {
    customers += travellers;
    trips += count * travellers;
  }
  return { buckets: countInBuckets(FREQUENCY_BUCKETS, perCustomer), customers, trips };
}

export interface FrequencySnapshot {
  horizon: DateRange;
  customers: number;
  trips: number;
  buckets: CountBucket[];
  computedAt: Date;
}

interface SnapshotRow {
  horizon_from: string;
  horizon_to: string;
  customers: number;
  trips: number;
  buckets: { label: string; count: number }[];
  computed_at: string;
}

/** The stored travel frequency of a company and period (the analytics-rollup workflow keeps it), if any. */
export async function storedFrequency(
  runner: SqlRunner,
  companyId: string,
  period: string,
): Promise<FrequencySnapshot | null> {
  const [row] = await rowsOf<SnapshotRow>(
    runner,
    `select horizon_from::text, horizon_to::text, customers, trips, buckets, computed_at
       from customer_frequency_snapshots where company_id = $1 and period = $2`,
    [companyId, period],
  );
  return row
    ? {
        horizon: { from: row.horizon_from, to: row.horizon_to },
        customers: row.customers,
        trips: row.trips,
        buckets: row.buckets,
        computedAt: new Date(row.computed_at),
      }
    : null;
}
