/**
 * Company analytics (SPEC GET /analytics and /analytics/advanced): which days each figure covers
 * and how figures are put together, without I/O. Dates are Damascus calendar dates (YYYY-MM-DD).
 *
 * A booking counts on its sales day (the day it was made) for bookings, revenue and cancellations,
 * and on its travel day (its trip's operating date) for seats sold against seats offered
 * (occupancy) and for travel frequency. Sold means one of SOLD_STATUSES; a refunded booking
 * brings no revenue (the database's booking_stats_measures says the same, see the insight
 * migration).
 *
 * Seats sold are counted two ways. `seatsSold` is the number of seats sold (tickets), whatever
 * stretch of the trip each is for. Occupancy counts the share of the trip each seat is sold for
 * (`seatsSoldBp`, see the stretch_occupancy migration): a seat sold A → B and again B → C on a trip
 * A → B → C is one whole-trip seat, so seats sold by stretches never fill a bus more than once.
 */
export const SOLD_STATUSES = ['CONFIRMED', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW'] as const;

export const ANALYTICS_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type AnalyticsPeriod = (typeof ANALYTICS_PERIODS)[number];

/** SPEC "Limits": the advanced analytics horizon is 7 to 30 days. */
export const ADVANCED_DAYS = { min: 7, max: 30 } as const;

export interface DateRange {
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;
const toUtc = (date: string) => Date.parse(`${date}T00:00:00Z`);
const fromUtc = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The date `days` after `date`. Past 9999-12-31 it is no date ("+010000-01"), so never walk with it: see datesIn. */
export function addDays(date: string, days: number): string {
  return fromUtc(toUtc(date) + days * DAY_MS);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((toUtc(to) - toUtc(from)) / DAY_MS);
}

/**
 * Every date of the range, oldest first (none when `to` is before `from`). Counted, not walked while
 * `date <= to`: the day after 9999-12-31 sorts before it, and such a walk would never end.
 */
export function datesIn({ from, to }: DateRange): string[] {
  return Array.from({ length: Math.max(0, daysBetween(from, to) + 1) }, (_, index) => addDays(from, index));
}

/** The Monday of the ISO week a date is in. */
export function weekStart(date: string): string {
  const weekday = new Date(toUtc(date)).getUTCDay(); // 0 = Sunday
  return addDays(date, -((weekday + 6) % 7));
}

/** YYYY-MM of a date. */
export const monthOf = (date: string) => date.slice(0, 7);

function addMonths(month: string, months: number): string {
  const [year, index] = month.split('-').map(Number) as [number, number];
  const total = year * 12 + (index - 1) + months;
  return `${Math.floor(total / 12)}-${String((total % 12) + 1).padStart(2, '0')}`;
}

/** Days in each indicator window: today, the last 7 days, the last 30 days (today included). */
const WINDOW_DAYS: Record<AnalyticsPeriod, number> = { daily: 1, weekly: 7, monthly: 30 };

/**
 * Indicators compare the window ending today (1, 7 or 30 days by period) with the window of the
 * same length just before it.
 */
export function indicatorWindows(
  period: AnalyticsPeriod,
  today: string,
): { current: DateRange; previous: DateRange } {
  return comparedWindows(WINDOW_DAYS[period], today);
}

/** The last `days` days up to today, and the `days` days before them. */
export function comparedWindows(days: number, today: string): { current: DateRange; previous: DateRange } {
  const from = addDays(today, 1 - days);
  return { current: { from, to: today }, previous: { from: addDays(from, -days), to: addDays(from, -1) } };
}

export const SERIES_LENGTH = { days: 30, weeks: 12, months: 12 } as const;

/** The buckets of the three series, oldest first: 30 days, 12 ISO weeks, 12 calendar months, each up to today. */
export function seriesBuckets(today: string): { days: string[]; weeks: string[]; months: string[] } {
  const thisWeek = weekStart(today);
  const thisMonth = monthOf(today);
  return {
    days: Array.from({ length: SERIES_LENGTH.days }, (_, index) =>
      addDays(today, index - SERIES_LENGTH.days + 1),
    ),
    weeks: Array.from({ length: SERIES_LENGTH.weeks }, (_, index) =>
      addDays(thisWeek, 7 * (index - SERIES_LENGTH.weeks + 1)),
    ),
    months: Array.from({ length: SERIES_LENGTH.months }, (_, index) =>
      addMonths(thisMonth, index - SERIES_LENGTH.months + 1),
    ),
  };
}

/**
 * The horizon of route performance and customer travel frequency: what the period's series
 * covers (the last 30 days, the last 12 ISO weeks, the last 12 months), up to today.
 */
export function periodHorizon(period: AnalyticsPeriod, today: string): DateRange {
  const buckets = seriesBuckets(today);
  if (period === 'daily') return { from: buckets.days[0]!, to: today };
  if (period === 'weekly') return { from: buckets.weeks[0]!, to: today };
  return { from: `${buckets.months[0]!}-01`, to: today };
}

/** The earliest day any series or window of any period reads. */
export function earliestAnalyticsDay(today: string): string {
  const horizons = ANALYTICS_PERIODS.map((period) => periodHorizon(period, today).from);
  const previousMonth = indicatorWindows('monthly', today).previous.from;
  return [...horizons, previousMonth].sort()[0]!;
}

/** What a booking contributes on a day, summed over the days and routes of a bucket. */
export interface DayMeasures {
  bookings: number;
  sold: number;
  /** Seats sold (tickets), whatever stretch of the trip each is for. */
  seatsSold: number;
  /** Seats sold times the share of the trip each is sold for, in basis points of a whole-trip seat. */
  seatsSoldBp: number;
  revenue: number;
  discount: number;
  cancelled: number;
}

export const NO_MEASURES: DayMeasures = {
  bookings: 0,
  sold: 0,
  seatsSold: 0,
  seatsSoldBp: 0,
  revenue: 0,
  discount: 0,
  cancelled: 0,
};

export function addMeasures(a: DayMeasures, b: DayMeasures): DayMeasures {
  return {
    bookings: a.bookings + b.bookings,
    sold: a.sold + b.sold,
    seatsSold: a.seatsSold + b.seatsSold,
    seatsSoldBp: a.seatsSoldBp + b.seatsSoldBp,
    revenue: a.revenue + b.revenue,
    discount: a.discount + b.discount,
    cancelled: a.cancelled + b.cancelled,
  };
}

/** The measures of the days in a range, from a map keyed by date. */
export function measuresIn(byDay: ReadonlyMap<string, DayMeasures>, range: DateRange): DayMeasures {
  let total = NO_MEASURES;
  for (const [day, measures] of byDay) {
    if (day >= range.from && day <= range.to) total = addMeasures(total, measures);
  }
  return total;
}

/** The measures of each bucket, in bucket order; `bucketOf` names the bucket a day falls in. */
export function bucketMeasures(
  byDay: ReadonlyMap<string, DayMeasures>,
  buckets: readonly string[],
  bucketOf: (day: string) => string,
): DayMeasures[] {
  const sums = new Map(buckets.map((bucket) => [bucket, NO_MEASURES]));
  for (const [day, measures] of byDay) {
    const bucket = bucketOf(day);
    const sum = sums.get(bucket);
    if (sum) sums.set(bucket, addMeasures(sum, measures));
  }
  return buckets.map((bucket) => sums.get(bucket)!);
}

export interface Indicator {
  current: number;
  previous: number;
  /** Change from previous to current in percent, one decimal; null when previous is 0. */
  changePercent: number | null;
}

export function indicator(current: number, previous: number): Indicator {
  const changePercent = previous === 0 ? null : Math.round(((current - previous) / previous) * 1000) / 10;
  return { current, previous, changePercent };
}

/** Basis points of a whole-trip seat: the share of its trip a seat sold for the whole of it rides. */
export const WHOLE_TRIP_BP = 10_000;

/**
 * Whole-trip seats sold (seat-equivalents) of a sum of seat shares (`seatsSoldBp`): what occupancy
 * counts against the seats offered. Exact to 1/10000 of a seat.
 */
export const wholeTripSeats = (seatsSoldBp: number): number => seatsSoldBp / WHOLE_TRIP_BP;

/** A ratio in percent with one decimal; 0 without a whole. */
export function percent(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;
}

/** A bucket of whole numbers from min to max (null: no upper end). */
export interface WholeNumberBucket {
  label: string;
  min: number;
  max: number | null;
}

/**
 * Buckets from their lower bounds, each up to the next bound, the last one open: [1, 3] gives
 * '1-2' and '3+'; a bucket of one value is labelled by that value.
 */
export function bucketsFrom(lowerBounds: readonly number[]): WholeNumberBucket[] {
  return lowerBounds.map((min, index) => {
    const next = lowerBounds[index + 1];
    if (next === undefined) return { label: `${min}+`, min, max: null };
    const max = next - 1;
    return { label: max === min ? `${min}` : `${min}-${max}`, min, max };
  });
}

/** Travellers by how many trips they took in the horizon: 1, 2, 3-5, 6-10, 11+. */
export const FREQUENCY_BUCKETS = bucketsFrom([1, 2, 3, 6, 11]);

/** How many of something fall in a bucket of whole numbers (trips per traveller, days of lead time). */
export interface CountBucket {
  label: string;
  count: number;
}

/** Counts per bucket from a count per value (for example: customers per number of trips). */
export function countInBuckets(
  buckets: readonly WholeNumberBucket[],
  countByValue: ReadonlyMap<number, number>,
): CountBucket[] {
  return buckets.map(({ label, min, max }) => {
    let count = 0;
    for (const [value, times] of countByValue) {
      if (value >= min && (max === null || value <= max)) count += times;
    }
    return { label, count };
  });
}

/** Days between booking and travel, in buckets (0 = booked on the travel day): 0, 1, 2-3, 4-7, 8-14, 15-30, 31+. */
export const LEAD_TIME_BUCKETS = bucketsFrom([0, 1, 2, 4, 8, 15, 31]);

/** A ranked row: rank 1 is the highest revenue (ties: more seats sold, then the route id). */
export function rankRoutes<T extends { routeId: string; revenue: number; seatsSold: number }>(
  routes: readonly T[],
): (T & { rank: number })[] {
  return [...routes]
    .sort((a, b) => b.revenue - a.revenue || b.seatsSold - a.seatsSold || a.routeId.localeCompare(b.routeId))
    .map((route, index) => ({ ...route, rank: index + 1 }));
}

/** Count, mean and two percentiles (nearest rank) of whole numbers given as a count per value. */
export function histogramStats(countByValue: ReadonlyMap<number, number>): {
  count: number;
  average: number;
  median: number;
  p90: number;
} {
  const values = [...countByValue].filter(([, count]) => count > 0).sort(([a], [b]) => a - b);
  const count = values.reduce((sum, [, times]) => sum + times, 0);
  if (count === 0) return { count: 0, average: 0, median: 0, p90: 0 };
  const total = values.reduce((sum, [value, times]) => sum + value * times, 0);
  const rank = (share: number) => {
    const wanted = Math.max(1, Math.ceil(share * count));
    let seen = 0;
    for (const [value, times] of values) {
      seen += times;
      if (seen >= wanted) return value;
    }
    return values.at(-1)![0];
  };
  return { count, average: Math.round((total / count) * 10) / 10, median: rank(0.5), p90: rank(0.9) };
}
