import { Migration } from '@mikro-orm/migrations';

/**
 * The booking statistics trigger (Migration20261124040000_insight) records each booking change
 * through booking_stats_record, a LANGUAGE sql function: PostgreSQL plans such a function's body
 * again every time the trigger calls it, which cost more than the insert it runs (about a third of
 * a bare booking's database time). The same statement in LANGUAGE plpgsql is planned once per
 * connection and then reused. The rows it writes are the same, so every reader sees the same figures.
 */
const DELTA_INSERT = `
        insert into booking_stats_deltas (company_id, basis, day, route_id, bookings, sold, seats_sold, revenue, discount, cancelled)
        select b.company_id, x.basis, x.day, t.route_id, sign * m.bookings, sign * m.sold, sign * m.seats_sold,
               sign * m.revenue, sign * m.discount, sign * m.cancelled
          from trips t
          cross join booking_stats_measures(b.status, b.payment_status, b.seats_count, b.total_price, b.discount) m
          cross join lateral (values ('SALES', (b.created_at at time zone 'Asia/Damascus')::date),
                                     ('TRAVEL', t.operating_date)) x(basis, day)
         where t.id = b.trip_id`;

export class Migration20261127010000_booking_stats_plpgsql extends Migration {
  override up(): void {
    this.addSql(`
      create or replace function booking_stats_record(b bookings, sign integer) returns void language plpgsql as $$
      begin${DELTA_INSERT};
      end $$`);
  }

  override down(): void {
    this.addSql(`
      create or replace function booking_stats_record(b bookings, sign integer) returns void language sql as $$${DELTA_INSERT}
      $$`);
  }
}
