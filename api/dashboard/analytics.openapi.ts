import { z } from 'zod';
import { ADVANCED_DAYS, ANALYTICS_PERIODS } from '../../domain/analytics.js';
import { FORECAST_METHOD } from '../../domain/forecast.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { queryInteger } from '../http/schemas.js';
import { DateTimeText, IdText, successWith } from '../http/answer-schemas.js';

/** OpenAPI of GET /analytics and /analytics/advanced (analytics.ts). */

const TAGS = ['Dashboard: analytics'];

export const AnalyticsQuery = z
  .object({
    period: z.enum(ANALYTICS_PERIODS).default('monthly').meta({
      description: 'the indicator window and the horizon of route performance and travel frequency',
    }),
  })
  .strict();

export const AdvancedQuery = z
  .object({
    days: queryInteger(
      z
        .int()
        .min(ADVANCED_DAYS.min)
        .max(ADVANCED_DAYS.max)
        .meta({ description: 'the window in days, 7 to 30 (SPEC); anything else is 400' }),
    ),
  })
  .strict();

const Range = z.object({
  from: z.string().meta({ format: 'date' }),
  to: z.string().meta({ format: 'date' }),
});
const Indicator = z.object({
  current: z.number(),
  previous: z.number(),
  changePercent: z.number().nullable().meta({ description: 'null when previous is 0' }),
});
/** What was sold: in each series point (a day, week or month) and in each route's row. */
const SalesFigures = {
  bookings: z.int(),
  soldBookings: z.int(),
  seatsSold: z.int().meta({
    description:
      'seats sold (tickets) by booking day, whatever stretch of its trip each is for; not the basis of occupancy',
  }),
  revenue: z.number(),
  cancellations: z.int(),
};
const RouteRow = {
  routeId: IdText,
  nameAr: z.string(),
  nameEn: z.string(),
  ...SalesFigures,
  trips: z.int().meta({ description: 'trips that ran or will run (not cancelled) in the horizon' }),
  seatsOffered: z.int(),
  seatsSoldOnTrips: z.int().meta({
    description:
      'whole-trip seats sold on those trips (by travel day): a seat sold for a stretch counts for the share of the ' +
      'trip it is sold for, so seats sold on consecutive stretches add up to one seat at most; rounded to a whole seat',
  }),
  occupancyRate: z.number().meta({
    description: 'seatsSoldOnTrips (unrounded) of seatsOffered, %; never above 100',
  }),
  rank: z.int().meta({ description: '1 = the highest revenue' }),
};
const Bucket = z.object({ label: z.string(), customers: z.int() });

const Snapshot = successWith(
  z.object({
    period: z.enum(ANALYTICS_PERIODS),
    today: z.string().meta({ format: 'date', description: 'the Damascus date the figures run up to' }),
    timeZone: z.literal('Asia/Damascus'),
    currency: z.literal('SYP'),
    windows: z.object({ current: Range, previous: Range }),
    indicators: z.record(z.string(), Indicator).meta({
      description:
        'bookings, soldBookings, seatsSold, revenue, averageBookingValue, cancellations, cancellationRate (%), occupancyRate (%)',
    }),
    dailyRevenue: z.array(z.object({ date: z.string(), revenue: z.number(), soldBookings: z.int() })),
    monthlyRevenue: z.array(z.object({ month: z.string(), revenue: z.number(), soldBookings: z.int() })),
    bookingTrends: z.object({
      daily: z.array(z.object({ date: z.string(), ...SalesFigures })),
      weekly: z.array(z.object({ weekStart: z.string(), ...SalesFigures })),
      monthly: z.array(z.object({ month: z.string(), ...SalesFigures })),
    }),
    routePerformance: z.object({ horizon: Range, routes: z.array(z.object(RouteRow)) }),
    customerFrequency: z.object({
      horizon: Range,
      asOf: DateTimeText.meta({ description: 'when the travellers were counted' }),
      customers: z.int(),
      trips: z.int(),
      repeatCustomers: z.int(),
      repeatRate: z.number(),
      averageTripsPerCustomer: z.number(),
      buckets: z.array(Bucket).meta({ description: 'travellers by trips taken: 1, 2, 3-5, 6-10, 11+' }),
    }),
    geographic: z.array(z.never()).meta({ description: 'empty until traveller profiles store it (SPEC)' }),
    ageGroups: z.array(z.never()).meta({ description: 'empty until traveller profiles store it (SPEC)' }),
  }),
);

const Advanced = successWith(
  z.object({
    days: z.int(),
    today: z.string().meta({ format: 'date' }),
    timeZone: z.literal('Asia/Damascus'),
    currency: z.literal('SYP'),
    windows: z.object({ current: Range, previous: Range }),
    cancellations: z.object({
      total: z.int(),
      rate: z.number(),
      previousTotal: z.int(),
      previousRate: z.number(),
      byReason: z.array(z.object({ reason: z.string(), count: z.int() })),
      daily: z.array(z.object({ date: z.string(), bookings: z.int(), cancellations: z.int() })),
    }),
    retention: z.object({
      previousCustomers: z.int(),
      currentCustomers: z.int(),
      retainedCustomers: z.int(),
      retentionRate: z.number(),
      repeatCustomers: z.int(),
      repeatRate: z.number(),
    }),
    revenueForecast: z.object({
      method: z.literal(FORECAST_METHOD),
      historyDays: z.int(),
      history: Range,
      slopePerDay: z.number(),
      residualStdDev: z.number(),
      horizonDays: z.int(),
      total: z.number(),
      points: z.array(z.object({ date: z.string(), revenue: z.number(), low: z.number(), high: z.number() })),
    }),
    routeRanking: z.array(
      z.object({ ...RouteRow, previousRank: z.int().nullable(), cancellationRate: z.number() }),
    ),
    leadTime: z.object({
      bookings: z.int(),
      averageDays: z.number(),
      medianDays: z.int(),
      p90Days: z.int(),
      buckets: z.array(z.object({ label: z.string(), count: z.int() })),
    }),
  }),
);

const COUNTING =
  'Dates are Damascus calendar dates; money is integer SYP. A booking counts on the day it was made for bookings, ' +
  'sales and cancellations; sold means CONFIRMED, CHECKED_IN, COMPLETED or NO_SHOW, revenue is what sold bookings cost ' +
  'after their discount (a refunded booking counts none); seatsSold counts seats sold (tickets). Occupancy counts ' +
  "whole-trip seats sold against seats offered by the trip's operating date: a seat sold for a stretch of its trip " +
  "counts for the stretch's share of the trip (alight minus board fare share, as its fare is measured), so a bus " +
  'sold out by stretches is 100 %, never more; cancelled trips offer no seats. These figures come from booking statistics kept in the ' +
  'same transaction as every booking change: they are never stale.';
const ACCESS =
  "Needs role OWNER or ADMIN (403 ROLE_NOT_ALLOWED) of the session's company (a suspended company may read). Rate " +
  'limited per company user (ANALYTICS_RATE_LIMIT_PER_MINUTE, 429 RATE_LIMITED). Unknown query parameters are 400.';

export const docs = taggedOperations(TAGS, {
  getAnalytics: {
    summary: 'Company analytics snapshot',
    description:
      'One snapshot: indicators, daily and monthly revenue, booking trends (the daily, weekly and monthly series ' +
      'together: the last 30 days, 12 ISO weeks from Monday, 12 calendar months, each ending today), route performance ' +
      'and customer travel frequency; geographic and ageGroups are empty arrays until traveller profiles store them. ' +
      'period (daily, weekly, monthly; default monthly) sets the indicator window (today, the last 7 days, the last ' +
      '30 days, compared with the window of the same length before it) and the horizon of route performance and ' +
      'travel frequency (the last 30 days, 12 weeks or 12 months). ' +
      COUNTING +
      ' Travel frequency (travellers by sold trips whose trip operates in the horizon: 1, 2, 3-5, 6-10, 11+) is ' +
      'recounted by the analytics-rollup Temporal Schedule every ANALYTICS_ROLLUP_MINUTES (5), so it may lag by that ' +
      'much (asOf says when it was counted); a company not counted yet is counted on request. ' +
      ACCESS,
    responses: answers(200, 'The snapshot', Snapshot, [400, 401, 403, 429]),
  },
  getAdvancedAnalytics: {
    summary: 'Advanced company analytics, loaded on demand',
    description:
      'Over the last `days` days (7 to 30, today included; else 400 VALIDATION_FAILED) compared with the `days` ' +
      'before: cancellations (count, rate, per day, and by reason: what ended each booking, as its cancellation ' +
      'confirmation says, so a trip cancelled later changes none: TRIP_CANCELLED, COMPANY_REJECTED, ' +
      'DECISION_DEADLINE_PASSED, REFUNDED (refunded in full before travel), CANCELLED_BY_TRAVELLER, OTHER); retention (travellers with a sold booking in the ' +
      'previous window who booked again in this one, and travellers with two or more); a revenue forecast for the ' +
      'next `days` days from today (method ols-linear-trend-with-weekday-effects: a linear trend plus one level per ' +
      'weekday, fitted by least squares to the daily revenue of the last 56 complete days; the band is ±1.96 residual ' +
      "standard deviations, never below 0); route ranking by revenue with the previous window's rank; lead time (whole " +
      'days from booking to departure of sold bookings: average, median, 90th percentile and buckets). ' +
      COUNTING +
      ' ' +
      ACCESS,
    responses: answers(200, 'The figures', Advanced, [400, 401, 403, 429]),
  },
});
