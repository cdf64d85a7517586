import { Migration } from '@mikro-orm/migrations';

/**
 * The company's planning: the ordered stops of a route (with running times and fare shares, the
 * source of every trip's stop calls), trip schedules (one row per committed series, with the
 * progress of its workflow), and the indexes the conflict checks read (a bus or driver busy in
 * an overlapping window, a route departure already taken).
 *
 * - `trips (schedule_id, departure_at)` is unique: a schedule never creates two trips at one
 *   departure, whatever happens to its workflow (the backstop of its batches' idempotency).
 * - `buses.legacy_seat_map` marks a bus imported before canonical layouts: its seats are a count
 *   (capacity) and it may run trips without a layout document until it gets one. Nothing in the
 *   API sets it.
 */
export class Migration20261124010000_planning extends Migration {
  override up(): void {
    this.addSql(`
      create table route_stops (
        route_id uuid not null references routes(id) on delete cascade,
        sequence integer not null check (sequence >= 0),
        stop_id uuid not null references stops(id),
        city_id uuid not null references cities(id),
        running_minutes integer not null check (running_minutes >= 0),
        dwell_minutes integer not null default 0 check (dwell_minutes >= 0),
        fare_share_bp integer not null check (fare_share_bp between 0 and 10000),
        primary key (route_id, sequence),
        unique (route_id, stop_id)
      )`);

    this.addSql(`
      create table trip_schedules (
        id uuid primary key,
        claim_order bigint generated always as identity,
        company_id uuid not null references companies(id),
        route_id uuid not null references routes(id),
        pickup_stop_id uuid not null references stops(id),
        bus_id uuid not null references buses(id),
        driver_id uuid references staff_users(id),
        start_date date not null,
        end_date date not null,
        departure_times text[] not null check (cardinality(departure_times) between 1 and 24),
        days_of_week integer[] not null check (cardinality(days_of_week) between 1 and 7 and days_of_week <@ '{0,1,2,3,4,5,6}'),
        duration_minutes integer not null check (duration_minutes between 1 and 1440),
        price_base bigint not null check (price_base >= 0),
        price_vip bigint check (price_vip is null or price_vip >= 0),
        currency text not null default 'SYP',
        notes text not null default '',
        skip_conflicts boolean not null,
        plan_from timestamptz not null,
        status text not null default 'COMMITTING' check (status in ('COMMITTING', 'COMPLETED', 'FAILED')),
        batch_size integer not null check (batch_size > 0),
        batches_total integer not null check (batches_total > 0),
        batches_done integer not null default 0,
        trips_planned integer not null check (trips_planned > 0),
        trips_created integer not null default 0,
        trips_skipped integer not null default 0,
        conflicts jsonb not null default '[]',
        failure_reason text,
        created_by uuid not null references staff_users(id),
        created_at timestamptz not null default now(),
        completed_at timestamptz,
        check (end_date >= start_date),
        check (batches_done between 0 and batches_total)
      )`);
    this.addSql(`create index trip_schedules_company_idx on trip_schedules (company_id, created_at desc)`);
    this.addSql(
      `create index trip_schedules_committing_bus_idx on trip_schedules (bus_id) where status = 'COMMITTING'`,
    );
    this.addSql(
      `create index trip_schedules_committing_driver_idx on trip_schedules (driver_id) where status = 'COMMITTING'`,
    );

    this.addSql(`alter table trips add constraint trips_schedule_id_fkey
      foreign key (schedule_id) references trip_schedules(id)`);
    this.addSql(`alter table trips add constraint trips_driver_id_fkey
      foreign key (driver_id) references staff_users(id)`);
    this.addSql(`create unique index trips_schedule_departure_key on trips (schedule_id, departure_at)
      where schedule_id is not null`);
    this.addSql(`create index trips_bus_busy_idx on trips (bus_id, arrival_at) include (departure_at, status)
      where status <> 'CANCELLED'`);
    this
      .addSql(`create index trips_driver_busy_idx on trips (driver_id, arrival_at) include (departure_at, status)
      where driver_id is not null and status <> 'CANCELLED'`);

    this.addSql(`alter table buses add column legacy_seat_map boolean not null default false`);
  }

  override down(): void {
    this.addSql(`alter table buses drop column if exists legacy_seat_map`);
    this.addSql(`drop index if exists trips_driver_busy_idx`);
    this.addSql(`drop index if exists trips_bus_busy_idx`);
    this.addSql(`drop index if exists trips_schedule_departure_key`);
    this.addSql(`alter table trips drop constraint if exists trips_driver_id_fkey`);
    this.addSql(`alter table trips drop constraint if exists trips_schedule_id_fkey`);
    this.addSql(`drop table if exists trip_schedules`);
    this.addSql(`drop table if exists route_stops`);
  }
}
