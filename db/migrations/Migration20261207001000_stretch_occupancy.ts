import { Migration } from '@mikro-orm/migrations';

/**
 * Occupancy counts the share of the trip each seat is sold for. A seat sold A → B and the same seat
 * sold B → C on a trip A → B → C is one seat of the trip, not two: until this release the booking
 * statistics (booking_stats_measures, Migration20261124040000_insight) counted every sold seat as a
 * whole seat of its trip, and an 8-seat bus sold out by stretches showed 16 seats sold and an
 * occupancy of 200 % in the trips and occupancy reports, the analytics and the PDF charts, while
 * the planning board said 8 of 8 seats taken.
 *
 * A stretch's share of its trip is measured as its fare is (trip_stop_calls.fare_share_bp: the
 * share accumulated from the first call, 0 there and 10000 at the last): the alight call's share
 * minus the board call's, in basis points.
 *
 * - `bookings.trip_share_bp`: the share of its trip the booking's seats are sold for, from its
 *   journey's leg on that trip; 10000 (the whole trip) for a booking without one. A trigger keeps it
 *   whenever a booking is written or moves to another trip (its leg is written first: a journey's
 *   confirmation and a modification do so; a POST /bookings booking, whose leg its own statement
 *   writes, rides from the trip's first call to its last, the whole trip), so the statistics trigger
 *   reads it from the row itself and takes back exactly what it added when the row changes.
 * - `seats_sold_bp` of the booking statistics: sold seats times that share, in basis points of a
 *   whole-trip seat; whole-trip seats sold (seat-equivalents) are seats_sold_bp / 10000, and seats
 *   sold on consecutive stretches add up to at most one seat each, so occupancy never passes 100 %.
 *   `seats_sold` stays the number of seats sold (tickets), whatever their stretch.
 *
 * Existing data: each booking's share is filled from its leg, and the statistics are counted again
 * from the bookings (the same figures for every other measure, since they equal a recount by design).
 */

/**
 * The share (bp) of trip `trip` the legs of journey `journey` ride: null when it has no leg on it.
 * Held within 1 to 10000 (a leg always alights at a higher fare share than it boards).
 */
const LEG_SHARE = (journey: string, trip: string) => `
  select greatest(1, least(10000, sum(a.fare_share_bp - b.fare_share_bp)))::int
    from journey_legs l
    join trip_stop_calls b on b.id = l.board_stop_call_id
    join trip_stop_calls a on a.id = l.alight_stop_call_id
   where l.journey_id = ${journey} and l.trip_id = ${trip}`;

/** Fills the share of every existing booking from its leg (a booking without one keeps the whole trip). */
export const BOOKING_TRIP_SHARES = `
  update bookings b set trip_share_bp = s.share
    from (select x.id, (${LEG_SHARE('x.journey_id', 'x.trip_id')}) as share from bookings x) s
   where s.id = b.id and s.share is not null and s.share <> b.trip_share_bp`;

/** `text` when the statistics count each booking's share of its trip, nothing otherwise. */
const shared = (withShare: boolean, text: string) => (withShare ? text : '');

/**
 * The measures of one booking row `b`: booking_stats_measures with its share, or as before this
 * release (Migration20261124040000_insight, in plpgsql by Migration20261127010000_booking_stats_plpgsql)
 * without it, for down().
 */
const MEASURES_OF = (b: string, withShare = true) =>
  `booking_stats_measures(${b}.status, ${b}.payment_status, ${b}.seats_count, ${shared(withShare, `${b}.trip_share_bp, `)}${b}.total_price, ${b}.discount)`;

const DAYS_OF = (b: string) =>
  `lateral (values ('SALES', (${b}.created_at at time zone 'Asia/Damascus')::date), ('TRAVEL', t.operating_date)) x(basis, day)`;

/**
 * The booking statistics counted again from the bookings, in turn: the deltas and daily rows
 * replaced by one daily row per company, basis, day and route (what the analytics-rollup fold makes
 * of the deltas).
 */
export const RECOUNT_BOOKING_STATS = [
  `delete from booking_stats_deltas`,
  `delete from booking_stats_daily`,
  `insert into booking_stats_daily (company_id, basis, day, route_id, bookings, sold, seats_sold, seats_sold_bp, revenue,
                                    discount, cancelled)
   select b.company_id, x.basis, x.day, t.route_id, sum(m.bookings)::int, sum(m.sold)::int, sum(m.seats_sold)::int,
          sum(m.seats_sold_bp)::bigint, sum(m.revenue)::bigint, sum(m.discount)::bigint, sum(m.cancelled)::int
     from bookings b
     join trips t on t.id = b.trip_id
    cross join ${MEASURES_OF('b')} m
    cross join ${DAYS_OF('b')}
    group by b.company_id, x.basis, x.day, t.route_id`,
];

const MEASURES_FUNCTION = (withShare: boolean) => `
  create function booking_stats_measures(
    booking_status text, booking_payment text, booking_seats integer, ${shared(withShare, 'booking_share_bp integer, ')}booking_total bigint,
    booking_discount bigint)
  returns table (bookings integer, sold integer, seats_sold integer, ${shared(withShare, 'seats_sold_bp bigint, ')}revenue bigint, discount bigint,
                 cancelled integer)
  language sql immutable as $$
    select 1,
           is_sold::int,
           case when is_sold then booking_seats else 0 end,
           ${shared(withShare, 'case when is_sold then booking_seats::bigint * booking_share_bp else 0 end,')}
           case when is_sold and booking_payment <> 'REFUNDED' then booking_total else 0 end,
           case when is_sold and booking_payment <> 'REFUNDED' then booking_discount else 0 end,
           (booking_status = 'CANCELLED')::int
      from (select booking_status in ('CONFIRMED', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW') as is_sold) verdict
  $$`;

const RECORD_FUNCTION = (withShare: boolean) => `
  create or replace function booking_stats_record(b bookings, sign integer) returns void language plpgsql as $$
  begin
    insert into booking_stats_deltas (company_id, basis, day, route_id, bookings, sold, seats_sold, ${shared(withShare, 'seats_sold_bp, ')}revenue,
                                      discount, cancelled)
    select b.company_id, x.basis, x.day, t.route_id, sign * m.bookings, sign * m.sold, sign * m.seats_sold,
           ${shared(withShare, 'sign * m.seats_sold_bp, ')}sign * m.revenue, sign * m.discount, sign * m.cancelled
      from trips t
      cross join ${MEASURES_OF('b', withShare)} m
      cross join ${DAYS_OF('b')}
     where t.id = b.trip_id;
  end $$`;

/** The columns whose change changes a booking's contribution (the statistics' update trigger). */
const TRACKED = (row: string, withShare: boolean) =>
  `(${row}.status, ${row}.payment_status, ${row}.seats_count, ${shared(withShare, `${row}.trip_share_bp, `)}${row}.total_price,
    ${row}.discount, ${row}.trip_id, ${row}.company_id, ${row}.created_at)`;

const UPDATE_TRIGGER = (withShare: boolean) => `
  create trigger booking_stats_update after update on bookings for each row
    when (${TRACKED('old', withShare)} is distinct from ${TRACKED('new', withShare)})
    execute function booking_stats_track()`;

export class Migration20261207001000_stretch_occupancy extends Migration {
  override up(): void {
    // No booking changes while its share is filled in and the statistics are counted again.
    this.addSql(`lock table bookings in share row exclusive mode`);
    this.addSql(`alter table bookings add column trip_share_bp integer not null default 10000
      check (trip_share_bp between 1 and 10000)`);
    this.addSql(BOOKING_TRIP_SHARES);
    // Planned once per connection (plpgsql), one leg lookup by its journey.
    this.addSql(`
      create function bookings_trip_share() returns trigger language plpgsql as $$
      declare
        share integer;
      begin
        ${LEG_SHARE('new.journey_id', 'new.trip_id')} into share;
        new.trip_share_bp := coalesce(share, new.trip_share_bp);
        return new;
      end $$`);
    this.addSql(`create trigger bookings_trip_share before insert or update of trip_id, journey_id on bookings
      for each row execute function bookings_trip_share()`);

    for (const table of ['booking_stats_daily', 'booking_stats_deltas']) {
      this.addSql(`alter table ${table} add column seats_sold_bp bigint not null default 0`);
    }
    this.addSql(`drop function booking_stats_measures(text, text, integer, bigint, bigint)`);
    this.addSql(MEASURES_FUNCTION(true));
    this.addSql(RECORD_FUNCTION(true));
    this.addSql(`drop trigger booking_stats_update on bookings`);
    this.addSql(UPDATE_TRIGGER(true));
    for (const statement of RECOUNT_BOOKING_STATS) this.addSql(statement);
  }

  override down(): void {
    this.addSql(`lock table bookings in share row exclusive mode`);
    this.addSql(`drop trigger if exists booking_stats_update on bookings`);
    this.addSql(UPDATE_TRIGGER(false));
    this.addSql(
      `drop function if exists booking_stats_measures(text, text, integer, integer, bigint, bigint)`,
    );
    this.addSql(MEASURES_FUNCTION(false));
    this.addSql(RECORD_FUNCTION(false));
    for (const table of ['booking_stats_daily', 'booking_stats_deltas']) {
      this.addSql(`alter table ${table} drop column if exists seats_sold_bp`);
    }
    this.addSql(`drop trigger if exists bookings_trip_share on bookings`);
    this.addSql(`drop function if exists bookings_trip_share()`);
    this.addSql(`alter table bookings drop column if exists trip_share_bp`);
  }
}
