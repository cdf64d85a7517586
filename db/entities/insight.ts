import { p } from '@mikro-orm/core';
import { ANALYTICS_PERIODS } from '../../domain/analytics.js';
import { REPORT_FORMATS, REPORT_STATES, REPORT_TYPES } from '../../domain/reports.js';
import { companyEntity, entity, lastSaved, stampedNow } from './base.js';

/**
 * Company insight and programme: the company's operating settings, report exports, and the
 * booking statistics analytics read (see the insight migration for how they stay exact).
 */

/** A company's profile and operating settings beyond its names and contact (those live on companies). */
export const CompanySettings = entity('CompanySettings', 'company_settings', {
  companyId: p.uuid().primary(),
  addressAr: p.text().default(''),
  addressEn: p.text().default(''),
  /** Minutes before departure a traveller may still cancel; null: the platform's default. */
  cancellationCutoffMinutes: p.integer().nullable(),
  /** A pickup point of the company that trip planning offers first. */
  defaultPickupLocationId: p.uuid().nullable(),
  ...lastSaved(),
});

/** One report request: its state, and for a file made the row count and the checksum of its bytes. */
export const ReportExport = companyEntity('ReportExport', 'report_exports', {
  requestedBy: p.uuid(),
  type: p.enum(REPORT_TYPES),
  format: p.enum(REPORT_FORMATS),
  locale: p.enum(['ar', 'en'] as const),
  fromDate: p.date(),
  toDate: p.date(),
  state: p.enum(REPORT_STATES),
  rowCount: p.integer().nullable(),
  /** The document snapshot a PDF was rendered from. */
  snapshotId: p.uuid().nullable(),
  sha256: p.text().nullable(),
  size: p.bigint('number').nullable(),
  errorCode: p.text().nullable(),
  requestId: p.text().nullable(),
  finishedAt: p.datetime().nullable(),
});

const measures = () => ({
  bookings: p.integer().default(0),
  sold: p.integer().default(0),
  seatsSold: p.integer().default(0),
  /** Sold seats times the share of the trip each is sold for, in basis points of a whole-trip seat. */
  seatsSoldBp: p.bigint('number').default(0),
  revenue: p.bigint('number').default(0),
  discount: p.bigint('number').default(0),
  cancelled: p.integer().default(0),
});

const STAT_BASES = ['SALES', 'TRAVEL'] as const;

/** Booking measures per company, basis (sales day or travel day), day and route, folded from the deltas. */
export const BookingStatsDaily = entity('BookingStatsDaily', 'booking_stats_daily', {
  companyId: p.uuid().primary(),
  basis: p.enum(STAT_BASES).primary(),
  day: p.date().primary(),
  routeId: p.uuid().primary(),
  ...measures(),
});

/** A booking change's contribution, written by the bookings trigger in the changing transaction. */
export const BookingStatsDelta = entity('BookingStatsDelta', 'booking_stats_deltas', {
  id: p.bigint('number').primary().autoincrement(),
  companyId: p.uuid(),
  basis: p.enum(STAT_BASES),
  day: p.date(),
  routeId: p.uuid(),
  ...measures(),
  recordedAt: stampedNow(),
});

/** Travellers by number of trips over a period's horizon, computed by the analytics-rollup workflow. */
export const CustomerFrequencySnapshot = entity('CustomerFrequencySnapshot', 'customer_frequency_snapshots', {
  companyId: p.uuid().primary(),
  period: p.enum(ANALYTICS_PERIODS).primary(),
  horizonFrom: p.date(),
  horizonTo: p.date(),
  customers: p.integer(),
  trips: p.integer(),
  buckets: p.json<{ label: string; count: number }[]>(),
  computedAt: stampedNow(),
});

/**
 * A company whose travel frequency must be counted again: marked by the analytics-rollup fold in the
 * transaction that folds the company's deltas, cleared by the recount that stores its counts.
 */
export const CustomerFrequencyRecountDue = entity(
  'CustomerFrequencyRecountDue',
  'customer_frequency_recounts_due',
  {
    companyId: p.uuid().primary(),
    /** The fold of the first change not yet recounted. */
    markedAt: stampedNow(),
  },
);
