import { Refusal } from './refusal.js';
import { damascusDate } from './time.js';

/**
 * What the platform's figures count (GET /admin/api/analytics and the companies list):
 * - a booking counts on the Damascus day its row was made, whatever became of it;
 * - revenue is the total price of bookings that stand (confirmed, checked in, completed, or a
 *   no-show, whose seat was sold) and were not refunded, never of cancelled, expired or still
 *   pending ones: what the company's own reports and analytics count (the database's
 *   booking_stats_measures, used by db/queries/platform-analytics.ts and admin-companies.ts);
 * - an active traveller booked at least once in the period (one passenger profile, counted once).
 */

/** The longest period one analytics read covers, in days. */
export const ANALYTICS_MAX_DAYS = 92;
/** The period when none is asked for: the last 30 days, today included. */
export const ANALYTICS_DEFAULT_DAYS = 30;

const dayMs = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / dayMs;

/** Days from `from` to `to`, both included. */
export function daysInPeriod(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from) + 1;
}

const FIRST_DAY = '0001-01-01';

/**
 * The period asked for, with the defaults filled in: `to` defaults to today (Damascus), `from` to
 * 29 days before `to`. A period that ends before it starts, or is longer than ANALYTICS_MAX_DAYS,
 * is 400 ANALYTICS_PERIOD_INVALID.
 */
export function analyticsPeriod(
  asked: { from?: string | undefined; to?: string | undefined },
  now: Date,
): { from: string; to: string } {
  const to = asked.to ?? damascusDate(now);
  const from =
    asked.from ?? new Date((dayNumber(to) - (ANALYTICS_DEFAULT_DAYS - 1)) * dayMs).toISOString().slice(0, 10);
  const days = daysInPeriod(from, to);
  // A default `from` before year 1 ('0000-…', PostgreSQL has no year 0) compares below FIRST_DAY.
  if (days < 1 || days > ANALYTICS_MAX_DAYS || from < FIRST_DAY) {
    throw new Refusal(
      400,
      'ANALYTICS_PERIOD_INVALID',
      `from must not be after to or before year 1, and a period covers at most ${ANALYTICS_MAX_DAYS} days`,
      { from, to },
    );
  }
  return { from, to };
}

/**
 * The share of manual decisions that met their deadline: decisions made in time (approved or
 * rejected; a late decision is refused, so every decision is in time) against those plus the
 * requests whose deadline passed. Requests cancelled by another company's rejection or by a
 * suspension, and those still pending, are neither. null when there is nothing to measure.
 */
export function metDeadlineShare(counts: { decided: number; expired: number }): number | null {
  const measured = counts.decided + counts.expired;
  return measured === 0 ? null : Math.round((counts.decided / measured) * 10_000) / 10_000;
}

/** Every date from `from` to `to`, both included (YYYY-MM-DD). */
export function periodDates(from: string, to: string): string[] {
  const first = dayNumber(from);
  return Array.from({ length: daysInPeriod(from, to) }, (_, index) =>
    new Date((first + index) * dayMs).toISOString().slice(0, 10),
  );
}
