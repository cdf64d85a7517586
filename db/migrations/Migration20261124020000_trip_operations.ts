import { Migration } from '@mikro-orm/migrations';

/**
 * The trip operations room, the driver app and live tracking (domain/trip-dispatch.ts is the state
 * machine; db/writes/trip-operations is the one transition transaction).
 *
 * - A journey ticket carries its traveller's attendance on its trip: PENDING, CHECKED_IN (the
 *   credential is consumed: the ticket is USED) or NO_SHOW, with who recorded it,
 *   when and from where. Legacy bookings without tickets keep their attendance in bookings.status
 *   (CHECKED_IN, NO_SHOW), which those statuses already allow.
 * - `trip_operation_events` is the operations log: every dispatch action that changed something,
 *   with its actor, channel, the state before and after, the reason and the time. Rows are only
 *   ever added.
 * - `boarding_scans` keeps each driver app scan under the app's client scan id, with the answer
 *   given, so an app replaying scans it queued offline gets the same answer and checks nobody in
 *   twice.
 * - `trip_positions`: the positions the driver app reports (one per trip and instant; a replayed
 *   batch adds nothing), read by tracking.
 */
export class Migration20261124020000_trip_operations extends Migration {
  override up(): void {
    this.addSql(`alter table journey_tickets
      add column attendance text not null default 'PENDING' check (attendance in ('PENDING', 'CHECKED_IN', 'NO_SHOW')),
      add column attendance_at timestamptz,
      add column attendance_by uuid references staff_users(id),
      add column attendance_source text check (attendance_source in ('DASHBOARD', 'BULK', 'LEGACY_PATCH', 'DRIVER_APP')),
      add column attendance_device text`);
    // A check-in consumes the credential (the ticket is USED); a recorded attendance says when.
    this.addSql(`alter table journey_tickets add constraint journey_tickets_attendance_consistent
      check ((attendance <> 'CHECKED_IN' or status = 'USED') and (attendance = 'PENDING' or attendance_at is not null))`);

    this.addSql(`
      create table trip_operation_events (
        id bigint generated always as identity primary key,
        company_id uuid not null references companies(id),
        trip_id uuid not null references trips(id),
        action text not null check (action in ('START_BOARDING', 'MARK_DELAYED', 'DEPART', 'ARRIVE', 'COMPLETE', 'CANCEL',
                                               'CHECK_IN', 'MARK_NO_SHOW', 'RESTORE')),
        actor_id uuid references staff_users(id),
        actor_role text not null,
        channel text not null check (channel in ('DASHBOARD', 'BULK', 'LEGACY_PATCH', 'DRIVER_APP')),
        manifest_item_type text check (manifest_item_type in ('JOURNEY_TICKET', 'BOOKING')),
        manifest_item_id uuid,
        before jsonb not null,
        after jsonb not null,
        reason text check (char_length(reason) <= 500),
        details jsonb not null default '{}',
        -- clock_timestamp: events of one transaction keep their order.
        created_at timestamptz not null default clock_timestamp(),
        check ((manifest_item_type is null) = (manifest_item_id is null))
      )`);
    this.addSql(`create index trip_operation_events_trip_idx on trip_operation_events (trip_id, id desc)`);

    this.addSql(`
      create table boarding_scans (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        client_scan_id uuid not null,
        trip_id uuid not null references trips(id),
        ticket_id uuid references journey_tickets(id),
        staff_user_id uuid not null references staff_users(id),
        device_id text check (char_length(device_id) <= 100),
        request_hash text not null,
        outcome text not null check (outcome in ('CHECKED_IN', 'ALREADY_CHECKED_IN', 'REFUSED')),
        reason text,
        response jsonb not null,
        scanned_at timestamptz,
        received_at timestamptz not null default now(),
        unique (company_id, client_scan_id)
      )`);
    this.addSql(`create index boarding_scans_trip_idx on boarding_scans (trip_id, received_at desc)`);

    this.addSql(`
      create table trip_positions (
        id bigint generated always as identity primary key,
        trip_id uuid not null references trips(id),
        company_id uuid not null references companies(id),
        staff_user_id uuid not null references staff_users(id),
        recorded_at timestamptz not null,
        latitude double precision not null check (latitude between -90 and 90),
        longitude double precision not null check (longitude between -180 and 180),
        speed_kmh double precision check (speed_kmh between 0 and 400),
        heading double precision check (heading >= 0 and heading < 360),
        accuracy_m double precision check (accuracy_m >= 0),
        received_at timestamptz not null default now(),
        unique (trip_id, recorded_at)
      )`);
    // Tracking lists a company's trips under way; the partial index keeps that read small.
    this.addSql(`create index trips_active_idx on trips (company_id, departure_at)
      where status in ('BOARDING', 'DELAYED', 'DEPARTED', 'ARRIVED')`);
    // The driver app lists a driver's trips.
    this.addSql(
      `create index trips_driver_idx on trips (driver_id, departure_at) where driver_id is not null`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists trips_driver_idx');
    this.addSql('drop index if exists trips_active_idx');
    this.addSql('drop table if exists trip_positions');
    this.addSql('drop table if exists boarding_scans');
    this.addSql('drop table if exists trip_operation_events');
    this.addSql(
      `alter table journey_tickets drop constraint if exists journey_tickets_attendance_consistent`,
    );
    this.addSql(`alter table journey_tickets drop column if exists attendance_device,
      drop column if exists attendance_source, drop column if exists attendance_by,
      drop column if exists attendance_at, drop column if exists attendance`);
  }
}
