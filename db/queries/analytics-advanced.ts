import { SOLD_STATUSES, type DateRange } from '../../domain/analytics.js';
import { damascusDayEnd, damascusDayStart } from '../../domain/time.js';
import type { SqlRunner } from '../sql-runner.js';
import { rowsOf } from '../sql-runner.js';
import { BOOKING_ENDING, BOOKING_ENDING_REASON } from './booking-ending.js';
import { CUSTOMER_KEY } from './analytics.js';

/**
 * The reads of GET /analytics/advanced that need the bookings themselves (the rest comes from the
 * booking statistics): why bookings were cancelled, who came back, and how early people book. A
 * window is at most 30 days (SPEC), so each read scans at most 60 days of one company's bookings
 * through bookings (company_id, created_at).
 */

/** The first instant of a Damascus day and the first instant after the last, as SQL bounds. */
function bounds(range: DateRange): [Date, Date] {
  return [damascusDayStart(range.from), damascusDayEnd(range.to)];
}

/**
 * Cancelled bookings made in the window, by what ended each one (BOOKING_ENDING_REASON, the rule
 * its cancellation confirmation prints): TRIP_CANCELLED (a trip cancel of the company ended it),
 * the journey's failure_reason (COMPANY_REJECTED, DECISION_DEADLINE_PASSED), REFUNDED (the company
 * refunded it in full before travel: a traveller cancels only unpaid bookings),
 * CANCELLED_BY_TRAVELLER (a journey's booking its traveller cancelled), OTHER (a booking without a
 * journey). A trip cancelled after a booking ended does not change that booking's reason. A booking
 * without a journey keeps no record of its ending; only a trip cancel cancels one through the API,
 * so one on a cancelled trip counts as TRIP_CANCELLED. One indexed lookup of tickets per cancelled
 * booking (journey_tickets (journey_id), credential_revocations' key).
 */
export async function cancellationReasons(
  runner: SqlRunner,
  companyId: string,
  window: DateRange,
): Promise<{ reason: string; count: number }[]> {
  const [from, until] = bounds(window);
  return rowsOf<{ reason: string; count: number }>(
    runner,
    `select coalesce(${BOOKING_ENDING_REASON},
              case when j.id is null and t.status = 'CANCELLED' then 'TRIP_CANCELLED'
                   when b.payment_status = 'REFUNDED' then 'REFUNDED'
                   when j.id is not null then 'CANCELLED_BY_TRAVELLER'
                   else 'OTHER' end) as reason,
            count(*)::int as count
       from bookings b
       join trips t on t.id = b.trip_id
       left join journeys j on j.id = b.journey_id
       left join lateral (${BOOKING_ENDING}) ended on true
      where b.company_id = $1 and b.created_at >= $2 and b.created_at < $3 and b.status = 'CANCELLED'
      group by 1 order by 2 desc, 1`,
    [companyId, from, until],
  );
}

export interface RetentionCounts {
  previousCustomers: number;
  currentCustomers: number;
  retainedCustomers: number;
  repeatCustomers: number;
}

/**
 * Travellers with a sold booking made in the previous window, in the current one, in both, and
 * with two or more in the current one.
 */
export async function retentionCounts(
  runner: SqlRunner,
  companyId: string,
  windows: { previous: DateRange; current: DateRange },
): Promise<RetentionCounts> {
  const [from] = bounds(windows.previous);
  const [currentFrom, until] = bounds(windows.current);
  const [row] = await rowsOf<{ previous: number; current: number; retained: number; repeated: number }>(
    runner,
    `select count(*) filter (where earlier > 0)::int as previous, count(*) filter (where now > 0)::int as current,
            count(*) filter (where earlier > 0 and now > 0)::int as retained,
            count(*) filter (where now > 1)::int as repeated
       from (select ${CUSTOMER_KEY} as customer,
                    count(*) filter (where b.created_at < $3) as earlier,
                    count(*) filter (where b.created_at >= $3) as now
               from bookings b
              where b.company_id = $1 and b.created_at >= $2 and b.created_at < $4
                and b.status = any($5::text[]) and ${CUSTOMER_KEY} is not null
              group by 1) per_customer`,
    [companyId, from, currentFrom, until, [...SOLD_STATUSES]],
  );
  return {
    previousCustomers: row!.previous,
    currentCustomers: row!.current,
    retainedCustomers: row!.retained,
    repeatCustomers: row!.repeated,
  };
}

/** Sold bookings made in the window by whole Damascus days from booking to departure. */
export async function leadDays(
  runner: SqlRunner,
  companyId: string,
  window: DateRange,
): Promise<Map<number, number>> {
  const [from, until] = bounds(window);
  const rows = await rowsOf<{ days: number; bookings: number }>(
    runner,
    `select greatest(0, (t.departure_at at time zone 'Asia/Damascus')::date
                        - (b.created_at at time zone 'Asia/Damascus')::date) as days,
            count(*)::int as bookings
       from bookings b join trips t on t.id = b.trip_id
      where b.company_id = $1 and b.created_at >= $2 and b.created_at < $3 and b.status = any($4::text[])
      group by 1`,
    [companyId, from, until, [...SOLD_STATUSES]],
  );
  return new Map(rows.map((row) => [row.days, row.bookings]));
}
