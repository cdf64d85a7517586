import { Migration } from '@mikro-orm/migrations';

/**
 * Company insight and programme (issue 15): company settings, report exports, the booking
 * statistics roll-up behind analytics, and what loyalty administration needs.
 *
 * Booking statistics. A booking contributes to two daily rows of its company and route: on its
 * sales day (the Damascus date it was created, basis SALES) and on its travel day (its trip's
 * operating date, basis TRAVEL). The trigger on bookings writes each change as delta rows in the
 * SAME transaction (the old contribution negated, the new one added), so `booking_stats_daily`
 * plus the deltas not yet folded into it always equal a recount of the bookings: analytics read
 * both in one statement and are never stale. The trigger only inserts (no row is updated by the
 * booking transaction), so concurrent bookings never wait for each other on a counter row. The
 * analytics-rollup workflow (a Temporal Schedule) folds the deltas into the daily rows.
 * `booking_stats_measures` is the one definition of what a booking counts for: sold means
 * CONFIRMED, CHECKED_IN, COMPLETED or NO_SHOW (domain/analytics.ts SOLD_STATUSES), and a refunded
 * booking brings no revenue.
 *
 * Customer travel frequency needs one count per traveller and cannot be summed from daily rows:
 * the same workflow stores it per company and period in `customer_frequency_snapshots`.
 *
 * Loyalty administration: every staff adjustment names its actor and reason in the ledger, and a
 * voucher keeps the terms of its reward as they were when it was issued (`terms`, filled by a
 * trigger from the reward row inside the redeeming transaction), so editing a reward never
 * changes vouchers already issued.
 *
 * Report PDFs are document snapshots of kind REPORT; for them `document_snapshots.booking_id`
 * holds the report export's id (the column names the record a document is about; it has no
 * foreign key for that reason).
 */
export class Migration20261124040000_insight extends Migration {
  override up(): void {
    this.settings();
    this.reports();
    this.bookingStatistics();
    this.loyaltyAdministration();
  }

  private settings(): void {
    this.addSql(`
      create table company_settings (
        company_id uuid primary key references companies(id),
        address_ar text not null default '' check (char_length(address_ar) <= 300),
        address_en text not null default '' check (char_length(address_en) <= 300),
        -- null: the platform's BOOKING_CANCEL_CUTOFF_MINUTES applies
        cancellation_cutoff_minutes integer check (cancellation_cutoff_minutes between 0 and 10080),
        default_pickup_location_id uuid references pickup_locations(id),
        updated_by uuid references staff_users(id),
        updated_at timestamptz not null default now()
      )`);
  }

  private reports(): void {
    this.addSql(`alter table document_snapshots drop constraint document_snapshots_kind_check`);
    this.addSql(`alter table document_snapshots add constraint document_snapshots_kind_check check (kind in (
      'TICKET', 'BOOKING_CONFIRMATION', 'INVOICE', 'CANCELLATION_CONFIRMATION', 'PAYMENT_RECEIPT', 'REFUND_NOTICE',
      'REPORT'))`);
    this.addSql(`
      create table report_exports (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        requested_by uuid not null references staff_users(id),
        type text not null check (type in ('revenue', 'bookings', 'trips', 'occupancy')),
        format text not null check (format in ('csv', 'json', 'pdf')),
        locale text not null check (locale in ('ar', 'en')),
        from_date date not null,
        to_date date not null,
        state text not null check (state in ('pending', 'ready', 'no_data', 'unauthorized', 'export_failed')),
        row_count integer check (row_count >= 0),
        snapshot_id uuid references document_snapshots(id),
        sha256 text check (sha256 ~ '^[0-9a-f]{64}$'),
        size bigint check (size >= 0),
        error_code text,
        request_id text,
        created_at timestamptz not null default now(),
        finished_at timestamptz,
        check (to_date >= from_date),
        check (state not in ('ready', 'no_data') or (row_count is not null and sha256 is not null and finished_at is not null)),
        check (state <> 'ready' or row_count > 0),
        check (state <> 'no_data' or row_count = 0)
      )`);
    this.addSql(`create index report_exports_company_idx on report_exports (company_id, created_at desc)`);
    // The trips report and per-trip occupancy read a trip's bookings.
    this.addSql(`create index if not exists bookings_trip_idx on bookings (trip_id)`);
  }

  private bookingStatistics(): void {
    const measures = `
        bookings integer not null default 0,
        sold integer not null default 0,
        seats_sold integer not null default 0,
        revenue bigint not null default 0,
        discount bigint not null default 0,
        cancelled integer not null default 0`;
    this.addSql(`
      create table booking_stats_daily (
        company_id uuid not null references companies(id),
        basis text not null check (basis in ('SALES', 'TRAVEL')),
        day date not null,
        route_id uuid not null references routes(id),
        ${measures},
        primary key (company_id, basis, day, route_id)
      )`);
    this.addSql(`
      create table booking_stats_deltas (
        id bigserial primary key,
        company_id uuid not null,
        basis text not null check (basis in ('SALES', 'TRAVEL')),
        day date not null,
        route_id uuid not null,
        ${measures},
        recorded_at timestamptz not null default now()
      )`);
    this.addSql(
      `create index booking_stats_deltas_company_idx on booking_stats_deltas (company_id, basis, day)`,
    );

    this.addSql(`
      create function booking_stats_measures(
        booking_status text, booking_payment text, booking_seats integer, booking_total bigint, booking_discount bigint)
      returns table (bookings integer, sold integer, seats_sold integer, revenue bigint, discount bigint, cancelled integer)
      language sql immutable as $$
        select 1,
               is_sold::int,
               case when is_sold then booking_seats else 0 end,
               case when is_sold and booking_payment <> 'REFUNDED' then booking_total else 0 end,
               case when is_sold and booking_payment <> 'REFUNDED' then booking_discount else 0 end,
               (booking_status = 'CANCELLED')::int
          from (select booking_status in ('CONFIRMED', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW') as is_sold) verdict
      $$`);
    // One booking row's contribution, signed, on both bases.
    this.addSql(`
      create function booking_stats_record(b bookings, sign integer) returns void language sql as $$
        insert into booking_stats_deltas (company_id, basis, day, route_id, bookings, sold, seats_sold, revenue, discount, cancelled)
        select b.company_id, x.basis, x.day, t.route_id, sign * m.bookings, sign * m.sold, sign * m.seats_sold,
               sign * m.revenue, sign * m.discount, sign * m.cancelled
          from trips t
          cross join booking_stats_measures(b.status, b.payment_status, b.seats_count, b.total_price, b.discount) m
          cross join lateral (values ('SALES', (b.created_at at time zone 'Asia/Damascus')::date),
                                     ('TRAVEL', t.operating_date)) x(basis, day)
         where t.id = b.trip_id
      $$`);
    this.addSql(`
      create function booking_stats_track() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then perform booking_stats_record(old, -1); end if;
        if tg_op in ('INSERT', 'UPDATE') then perform booking_stats_record(new, 1); end if;
        return null;
      end $$`);
    this.addSql(`create trigger booking_stats_insert_delete after insert or delete on bookings
      for each row execute function booking_stats_track()`);
    this.addSql(`create trigger booking_stats_update after update on bookings for each row
      when ((old.status, old.payment_status, old.seats_count, old.total_price, old.discount, old.trip_id,
             old.company_id, old.created_at)
            is distinct from
            (new.status, new.payment_status, new.seats_count, new.total_price, new.discount, new.trip_id,
             new.company_id, new.created_at))
      execute function booking_stats_track()`);
    // Bookings that exist already.
    this.addSql(`select booking_stats_record(b, 1) from bookings b`);

    this.addSql(`
      create table customer_frequency_snapshots (
        company_id uuid not null references companies(id),
        period text not null check (period in ('daily', 'weekly', 'monthly')),
        horizon_from date not null,
        horizon_to date not null,
        customers integer not null check (customers >= 0),
        trips integer not null check (trips >= 0),
        buckets jsonb not null,
        computed_at timestamptz not null default now(),
        primary key (company_id, period)
      )`);
  }

  private loyaltyAdministration(): void {
    this.addSql(
      `alter table loyalty_transactions add column actor_staff_user_id uuid references staff_users(id)`,
    );
    this.addSql(`alter table loyalty_transactions add column reason text
      check (reason is null or char_length(reason) between 1 and 500)`);
    // VOUCHER_REFUND: the points of a voucher cancelled because its reward was withdrawn, returned
    // without counting as points earned (lifetime points and tier stay as they were).
    this.addSql(`alter table loyalty_transactions drop constraint loyalty_transactions_kind_check`);
    this.addSql(`alter table loyalty_transactions add constraint loyalty_transactions_kind_check
      check (kind in ('EARN', 'REDEEM', 'ADJUST', 'REFERRAL_BONUS', 'VOUCHER_REFUND'))`);
    this.addSql(`alter table loyalty_transactions add constraint loyalty_transactions_staff_adjustment
      check (actor_staff_user_id is null or (kind in ('ADJUST', 'VOUCHER_REFUND') and reason is not null))`);

    const termsOf = (reward: string) => `jsonb_build_object(
        'type', ${reward}.type, 'discount_percent', ${reward}.discount_percent,
        'discount_amount', ${reward}.discount_amount, 'max_discount', ${reward}.max_discount,
        'free_seats', ${reward}.free_seats, 'min_subtotal', ${reward}.min_subtotal,
        'route_ids', to_jsonb(${reward}.route_ids), 'allowed_days', to_jsonb(${reward}.allowed_days))`;
    this.addSql(`alter table loyalty_redemptions add column terms jsonb`);
    this.addSql(
      `update loyalty_redemptions r set terms = ${termsOf('w')} from loyalty_rewards w where w.id = r.reward_id`,
    );
    this.addSql(`alter table loyalty_redemptions alter column terms set not null`);
    this.addSql(`
      create function loyalty_redemptions_freeze_terms() returns trigger language plpgsql as $$
      begin
        if new.terms is null then
          select ${termsOf('w')} into new.terms from loyalty_rewards w where w.id = new.reward_id;
        end if;
        return new;
      end $$`);
    this.addSql(`create trigger loyalty_redemptions_freeze_terms before insert on loyalty_redemptions
      for each row execute function loyalty_redemptions_freeze_terms()`);
    this.addSql(
      `create index loyalty_redemptions_reward_idx on loyalty_redemptions (reward_id) where status = 'ISSUED'`,
    );
  }

  override down(): void {
    this.addSql(`drop index if exists loyalty_redemptions_reward_idx`);
    this.addSql(`drop trigger if exists loyalty_redemptions_freeze_terms on loyalty_redemptions`);
    this.addSql(`drop function if exists loyalty_redemptions_freeze_terms()`);
    this.addSql(`alter table loyalty_redemptions drop column if exists terms`);
    this.addSql(
      `alter table loyalty_transactions drop constraint if exists loyalty_transactions_staff_adjustment`,
    );
    this.addSql(`alter table loyalty_transactions drop column if exists reason`);
    this.addSql(`alter table loyalty_transactions drop column if exists actor_staff_user_id`);
    this.addSql(`drop table if exists customer_frequency_snapshots`);
    this.addSql(`drop trigger if exists booking_stats_update on bookings`);
    this.addSql(`drop trigger if exists booking_stats_insert_delete on bookings`);
    this.addSql(`drop function if exists booking_stats_track()`);
    this.addSql(`drop function if exists booking_stats_record(bookings, integer)`);
    this.addSql(`drop function if exists booking_stats_measures(text, text, integer, bigint, bigint)`);
    this.addSql(`drop table if exists booking_stats_deltas`);
    this.addSql(`drop table if exists booking_stats_daily`);
    this.addSql(`drop index if exists bookings_trip_idx`);
    this.addSql(`drop table if exists report_exports`);
    this.addSql(`delete from document_snapshots where kind = 'REPORT'`);
    this.addSql(`alter table document_snapshots drop constraint document_snapshots_kind_check`);
    this.addSql(`alter table document_snapshots add constraint document_snapshots_kind_check check (kind in (
      'TICKET', 'BOOKING_CONFIRMATION', 'INVOICE', 'CANCELLATION_CONFIRMATION', 'PAYMENT_RECEIPT', 'REFUND_NOTICE'))`);
    this.addSql(`drop table if exists company_settings`);
  }
}
