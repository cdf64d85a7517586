import type { PoolClient } from 'pg';
import { percentOf, type ReportRow, type ReportType } from '../../domain/reports.js';
import { damascusDayEnd, damascusDayStart } from '../../domain/time.js';
import type { Database } from '../orm.js';
import { bookingMeasures, statsSource } from './analytics.js';

/**
 * The rows of each report type, read through a server-side cursor: a year of a busy company
 * (tens of thousands of bookings) streams batch by batch and never sits in memory at once. The
 * cursor runs in one read-only REPEATABLE READ transaction, so every row comes from one snapshot.
 * Each row has exactly the `keys` asked for (the reader's columns, domain/reports.ts reportColumnsFor:
 * a DISPATCHER's bookings rows leave the money out); dates and times are Damascus time.
 */
export interface ReportQuery {
  companyId: string;
  type: ReportType;
  from: string;
  to: string;
  locale: 'ar' | 'en';
}

const TZ = `'Asia/Damascus'`;
/**
 * Whole-trip seats of a sum of seat shares (seats_sold_bp): seats sold by stretches count for the
 * share of the trip each is sold for, exact to 1/10000 of a seat (domain/analytics.ts wholeTripSeats).
 */
const wholeTripSeats = (seatsSoldBp: string) => `(coalesce(${seatsSoldBp}, 0) / 10000.0)::float8`;
const routeName = (alias: string) => `case when $4 = 'ar' then ${alias}.name_ar else ${alias}.name_en end`;

/** Bookings made in the period ($2 to $3 as instants), oldest first. */
const BOOKINGS_SQL = `
  select b.booking_code as "bookingCode", to_char(b.created_at at time zone ${TZ}, 'YYYY-MM-DD HH24:MI') as "createdAt",
         t.operating_date::text as "travelDate", to_char(t.departure_at at time zone ${TZ}, 'HH24:MI') as "departureTime",
         ${routeName('r')} as route, b.passenger_name as "passengerName", b.seats_count as seats,
         array_to_string(b.seat_numbers, ' ') as "seatNumbers", b.status, b.payment_status as "paymentStatus",
         b.channel, b.subtotal::float8 as subtotal, b.discount::float8 as discount, b.total_price::float8 as total
    from bookings b join trips t on t.id = b.trip_id join routes r on r.id = t.route_id
   where b.company_id = $1 and b.created_at >= $2 and b.created_at < $3
   order by b.created_at, b.id`;

/**
 * Trips operating in the period ($2 to $3 as dates), in departure order, with what was sold on each.
 * Seats are the seats offered, as in the occupancy report: none on a cancelled trip. Seats sold are
 * whole-trip seats, as occupancy counts them: a bus sold out by stretches is sold once.
 */
const TRIPS_SQL = `
  select t.operating_date::text as date, to_char(t.departure_at at time zone ${TZ}, 'HH24:MI') as "departureTime",
         ${routeName('r')} as route, bu.plate_number as bus, t.status,
         case when t.status = 'CANCELLED' then 0 else t.seats_total end as "seatsTotal",
         ${wholeTripSeats('s.seats_sold_bp')} as "seatsSold", coalesce(s.sold, 0) as bookings, coalesce(s.cancelled, 0) as cancelled,
         t.delay_minutes as "delayMinutes"
    from trips t join routes r on r.id = t.route_id join buses bu on bu.id = t.bus_id
    left join lateral (
      select sum(m.seats_sold_bp) as seats_sold_bp, sum(m.sold)::int as sold, sum(m.cancelled)::int as cancelled
        from bookings b
       cross join ${bookingMeasures('b')} m
       where b.trip_id = t.id) s on true
   where t.company_id = $1 and t.operating_date between $2::date and $3::date
   order by t.departure_at, t.id`;

/**
 * Routes with trips in the period, by name: trips run, cancelled, seats offered and whole-trip seats
 * sold (by travel day).
 */
const OCCUPANCY_SQL = `
  with offered as (
         select route_id, count(*)::int as trips, count(*) filter (where status = 'CANCELLED')::int as cancelled_trips,
                coalesce(sum(seats_total) filter (where status <> 'CANCELLED'), 0)::int as seats_offered
           from trips where company_id = $1 and operating_date between $2::date and $3::date group by route_id),
       sold as (
         select s.route_id, sum(s.seats_sold_bp) as seats_sold_bp
           from ${statsSource(`'TRAVEL'`, '$2::date', '$3::date')}
          group by s.route_id)
  select ${routeName('r')} as route, o.trips - o.cancelled_trips as trips, o.cancelled_trips as "cancelledTrips",
         o.seats_offered as "seatsOffered", ${wholeTripSeats('sold.seats_sold_bp')} as "seatsSold"
    from offered o join routes r on r.id = o.route_id left join sold on sold.route_id = o.route_id
   order by 1, o.route_id`;

/** Days of the period with sales (by booking day) or cash movements (by collection or refund day). */
const REVENUE_SQL = `
  with sales as (
         select s.day, sum(s.bookings)::int as bookings, sum(s.sold)::int as sold, sum(s.seats_sold)::int as seats_sold,
                sum(s.revenue)::float8 as revenue, sum(s.discount)::float8 as discount, sum(s.cancelled)::int as cancelled
           from ${statsSource(`'SALES'`, '$4::date', '$5::date')}
          group by s.day),
       collected as (
         select (collected_at at time zone ${TZ})::date as day, sum(amount)::float8 as amount
           from payment_operations
          where company_id = $1 and collected_at >= $2 and collected_at < $3
            and status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED') group by 1),
       refunded as (
         select (refunded_at at time zone ${TZ})::date as day, sum(amount)::float8 as amount
           from payment_operations
          where company_id = $1 and refunded_at >= $2 and refunded_at < $3 and status = 'REFUNDED' group by 1),
       days as (select day from sales union select day from collected union select day from refunded)
  select d.day::text as date, coalesce(s.bookings, 0) as bookings, coalesce(s.sold, 0) as "soldBookings",
         coalesce(s.seats_sold, 0) as "seatsSold", coalesce(s.revenue + s.discount, 0) as "grossSales",
         coalesce(s.discount, 0) as discounts, coalesce(s.revenue, 0) as "netRevenue", coalesce(s.cancelled, 0) as cancelled,
         coalesce(c.amount, 0) as collected, coalesce(rf.amount, 0) as refunded
    from days d left join sales s on s.day = d.day left join collected c on c.day = d.day
    left join refunded rf on rf.day = d.day
   where coalesce(s.bookings, 0) <> 0 or coalesce(c.amount, 0) <> 0 or coalesce(rf.amount, 0) <> 0
   order by d.day`;

/** The statement and parameters of a report ($1 company, $2/$3 the period; $4 the locale, or the dates for revenue). */
function statementOf(query: ReportQuery): { text: string; values: unknown[] } {
  const start = damascusDayStart(query.from);
  const end = damascusDayEnd(query.to);
  switch (query.type) {
    case 'bookings':
      return { text: BOOKINGS_SQL, values: [query.companyId, start, end, query.locale] };
    case 'trips':
      return { text: TRIPS_SQL, values: [query.companyId, query.from, query.to, query.locale] };
    case 'occupancy':
      return { text: OCCUPANCY_SQL, values: [query.companyId, query.from, query.to, query.locale] };
    case 'revenue':
      return { text: REVENUE_SQL, values: [query.companyId, start, end, query.from, query.to] };
  }
}

/** Percent columns are computed here, the same way as the totals row (domain/reports.ts percentOf). */
function finished(type: ReportType, row: ReportRow): ReportRow {
  if (type === 'trips')
    return { ...row, occupancyPercent: percentOf(Number(row.seatsSold), Number(row.seatsTotal)) };
  if (type === 'occupancy')
    return { ...row, occupancyPercent: percentOf(Number(row.seatsSold), Number(row.seatsOffered)) };
  return row;
}

/** Keys in the column order of the report (the SQL names them; the percent is added). */
function ordered(keys: readonly string[], row: ReportRow): ReportRow {
  return Object.fromEntries(keys.map((key) => [key, row[key] ?? null]));
}

/**
 * The report's rows in batches of `batchSize`, from a server-side cursor on `client`, inside the
 * caller's open read-only REPEATABLE READ transaction: what else the caller reads there comes from
 * the rows' snapshot (a PDF's charts, api/use-cases/report-pdf.ts). The transaction's end closes
 * the cursor, whether every row was read or not.
 */
export async function* reportRowsIn(
  client: Pick<PoolClient, 'query'>,
  query: ReportQuery,
  keys: readonly string[],
  batchSize = 1000,
): AsyncGenerator<ReportRow[]> {
  const { text, values } = statementOf(query);
  await client.query(`declare report_rows no scroll cursor for ${text}`, values);
  for (;;) {
    const { rows } = await client.query<ReportRow>(`fetch forward ${batchSize} from report_rows`);
    if (rows.length === 0) return;
    yield rows.map((row) => ordered(keys, finished(query.type, row)));
  }
}

/**
 * The report's rows in batches of `batchSize`, from a server-side cursor in a transaction of their
 * own (a CSV or JSON stream). Stopping early (the client went away) closes the cursor and gives
 * the connection back.
 */
export async function* reportRowBatches(
  db: Database,
  query: ReportQuery,
  keys: readonly string[],
  batchSize = 1000,
): AsyncGenerator<ReportRow[]> {
  const client = await db.pool.connect();
  let open = false;
  try {
    await client.query('begin isolation level repeatable read read only');
    open = true;
    yield* reportRowsIn(client, query, keys, batchSize);
    await client.query('commit');
    open = false;
  } finally {
    if (open) await client.query('rollback').catch(() => undefined);
    client.release();
  }
}
