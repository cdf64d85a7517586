import { z } from 'zod';
import { ANALYTICS_MAX_DAYS } from '../../domain/platform-analytics.js';
import { CalendarDate, Uuid } from '../http/schemas.js';
import { IdText } from './schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/** The OpenAPI side of GET /admin/api/analytics (api/admin/analytics.ts). */
export const AnalyticsQuery = z
  .object({
    from: CalendarDate.optional().meta({ description: 'first Damascus day; 29 days before to by default' }),
    to: CalendarDate.optional().meta({ description: 'last Damascus day, included; today by default' }),
    companyId: Uuid.optional().meta({ description: 'one company only' }),
  })
  .strict();

const Measures = { bookings: z.int(), revenue: z.number(), activeTravellers: z.int() };
const Decisions = {
  requests: z.int(),
  pending: z.int(),
  approved: z.int(),
  rejected: z.int(),
  expired: z.int(),
  cancelled: z.int(),
  metDeadline: z.int(),
  missedDeadline: z.int(),
  metDeadlineShare: z
    .number()
    .nullable()
    .meta({ description: 'metDeadline / (metDeadline + missedDeadline); null: none' }),
};

const Analytics = successWith(
  z.object({
    period: z.object({ from: z.string(), to: z.string(), companyId: IdText.nullable() }),
    totals: z.object(Measures),
    perCompany: z.array(z.object({ companyId: IdText, companyName: z.string(), ...Measures })),
    perDay: z
      .array(z.object({ date: z.string(), ...Measures }))
      .meta({ description: 'every day of the period' }),
    perCompanyPerDay: z
      .array(z.object({ date: z.string(), companyId: IdText, ...Measures }))
      .meta({ description: 'days on which the company had bookings' }),
    funnel: z.object({
      quoted: z.int(),
      held: z.int(),
      submitted: z.int(),
      requested: z.int(),
      confirmed: z.int(),
      cancelled: z.int(),
      releasedOrExpired: z.int(),
    }),
    manualDecisions: z.object({
      ...Decisions,
      perCompany: z.array(z.object({ companyId: IdText, companyName: z.string(), ...Decisions })),
    }),
  }),
);

export const docs = taggedOperations(['Administration: analytics'], {
  adminPlatformAnalytics: {
    summary: 'Platform figures: bookings, revenue, travellers, confirmation funnel, manual decisions',
    description:
      'Needs analytics.view (else 403 PERMISSION_DENIED). A period of Damascus days (from, to; the last 30 days by ' +
      `default, at most ${ANALYTICS_MAX_DAYS}; otherwise 400 ANALYTICS_PERIOD_INVALID), optionally one company. ` +
      'Bookings: booking rows made in the period, whatever became of them; revenue: SYP total of those that stand ' +
      '(confirmed, checked in, completed, no-show) and were not refunded (as the company itself counts them); active travellers: distinct passengers who booked in the period. ' +
      'Each per company, per day (every day, zeros included) and per company and day. Funnel: journeys quoted, held ' +
      '(first hold in the period), submitted (confirm called), requested (a company had to decide), confirmed, ' +
      'cancelled, released or expired. Manual decisions: the journey requests raised in the period by outcome; a ' +
      'decision in time is an approval or a rejection (a late one is refused), a missed one an expired request; ' +
      'requests cancelled by another company or by a suspension, and pending ones, count in neither. The read is ' +
      'recorded in the audit log (analytics.read). Rate limited per administrator (ADMIN_READ_RATE_LIMIT_PER_MINUTE, ' +
      '120 a minute, one budget with GET /audit-log): 429 RATE_LIMITED with Retry-After, and nothing is read or recorded.',
    responses: answers(200, 'The figures', Analytics, [400, 401, 403, 429]),
  },
});
