import { ANALYTICS_PERIODS, periodHorizon } from '../../domain/analytics.js';
import type { Database, TransactionClient } from '../orm.js';
import { countTravelFrequency } from '../queries/analytics.js';

/**
 * The analytics-rollup workflow's two steps. Each is one transaction, safe to repeat: folding moves
 * deltas into the daily rows (a delta is deleted in the transaction that adds it, so it is never
 * counted twice nor lost), and a recount replaces the stored counts.
 *
 * Which companies are due a recount is kept in the database, not only in an activity's answer: the
 * fold marks the companies of the deltas it folds (customer_frequency_recounts_due) in its own
 * transaction, and the recount of a company clears its mark in the transaction that stores its
 * counts. A fold retried after its COMMIT (its answer lost) finds no delta, and a recount that fails
 * all its attempts stores nothing: either way the marks stay, and this run or the next recounts them.
 */

export interface Folded {
  deltas: number;
  /** Companies whose statistics this fold changed (also marked due a recount, in its transaction). */
  changedCompanyIds: string[];
}

/**
 * Folds every delta visible now (of the given companies, or all) into booking_stats_daily. A
 * booking transaction that commits meanwhile leaves its deltas for the next fold; readers see
 * either the deltas or their sums, never both and never neither, because both tables are read in
 * one statement and this change commits at once.
 */
export async function foldBookingStats(db: Database, companyIds?: string[]): Promise<Folded> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<{ deltas: number; companies: string[] | null }>(
      `with moved as (
         delete from booking_stats_deltas where $1::uuid[] is null or company_id = any($1::uuid[])
         returning company_id, basis, day, route_id, bookings, sold, seats_sold, seats_sold_bp, revenue, discount,
                   cancelled),
       folded as (
         select company_id, basis, day, route_id, sum(bookings)::int as bookings, sum(sold)::int as sold,
                sum(seats_sold)::int as seats_sold, sum(seats_sold_bp)::bigint as seats_sold_bp,
                sum(revenue)::bigint as revenue, sum(discount)::bigint as discount, sum(cancelled)::int as cancelled
           from moved group by company_id, basis, day, route_id),
       marked as (
         insert into customer_frequency_recounts_due (company_id)
         select distinct company_id from moved order by 1
         on conflict (company_id) do nothing
         returning 1),
       upserted as (
         insert into booking_stats_daily (company_id, basis, day, route_id, bookings, sold, seats_sold, seats_sold_bp, revenue,
                                          discount, cancelled)
         select * from folded
         on conflict (company_id, basis, day, route_id) do update set
           bookings = booking_stats_daily.bookings + excluded.bookings,
           sold = booking_stats_daily.sold + excluded.sold,
           seats_sold = booking_stats_daily.seats_sold + excluded.seats_sold,
           seats_sold_bp = booking_stats_daily.seats_sold_bp + excluded.seats_sold_bp,
           revenue = booking_stats_daily.revenue + excluded.revenue,
           discount = booking_stats_daily.discount + excluded.discount,
           cancelled = booking_stats_daily.cancelled + excluded.cancelled
         returning 1)
       select (select count(*)::int from moved) as deltas,
              (select array_agg(distinct company_id)::text[] from folded) as companies,
              (select count(*) from upserted) as written,
              (select count(*) from marked) as marked`,
      [companyIds ?? null],
    );
    return { deltas: rows[0]!.deltas, changedCompanyIds: rows[0]!.companies ?? [] };
  });
}

/**
 * The companies whose travel frequency should be counted again: those marked by a fold (their
 * bookings changed) and not recounted since, those whose stored counts end before today (the horizon
 * moved on), and `changedCompanyIds` (the run's fold answer: a run whose fold ran before the marks
 * existed names its companies only there). Limited to `only` when given.
 */
export async function frequencyRecountsDue(
  db: Database,
  input: { changedCompanyIds?: string[]; today: string; only?: string[] },
): Promise<string[]> {
  const rows = await db.query<{ company_id: string }>(
    `select company_id::text from (
       select unnest($1::uuid[]) as company_id
       union
       select company_id from customer_frequency_recounts_due
       union
       select company_id from customer_frequency_snapshots where horizon_to < $2::date) due
      where $3::uuid[] is null or company_id = any($3::uuid[])
      order by 1`,
    [input.changedCompanyIds ?? [], input.today, input.only ?? null],
  );
  return rows.map((row) => row.company_id);
}

/**
 * Counts the travel frequency of each company for every period's horizon ending today, and stores
 * it, one transaction a company that also clears the company's mark. The mark is deleted first:
 * a fold that marks the company meanwhile waits for this transaction and marks it again after it
 * (the next run counts that change), and a mark committed before the delete belongs to bookings
 * committed before it, which the counting statements after it see.
 */
export async function recountTravelFrequency(
  db: Database,
  companyIds: string[],
  today: string,
): Promise<number> {
  for (const companyId of companyIds) {
    await db.transaction((client) => recountCompany(client, companyId, today));
  }
  return companyIds.length;
}

async function recountCompany(client: TransactionClient, companyId: string, today: string): Promise<void> {
  await client.query(`delete from customer_frequency_recounts_due where company_id = $1`, [companyId]);
  for (const period of ANALYTICS_PERIODS) {
    const horizon = periodHorizon(period, today);
    const counted = await countTravelFrequency(client, companyId, horizon);
    await client.query(
      `insert into customer_frequency_snapshots (company_id, period, horizon_from, horizon_to, customers, trips, buckets)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (company_id, period) do update set horizon_from = excluded.horizon_from,
           horizon_to = excluded.horizon_to, customers = excluded.customers, trips = excluded.trips,
           buckets = excluded.buckets, computed_at = now()`,
      [
        companyId,
        period,
        horizon.from,
        horizon.to,
        counted.customers,
        counted.trips,
        JSON.stringify(counted.buckets),
      ],
    );
  }
}
