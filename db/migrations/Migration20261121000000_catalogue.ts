import { Migration } from '@mikro-orm/migrations';

/**
 * The catalogue: cities, stops, companies, buses and their seat layouts, routes, trips with their
 * stop calls, pickup locations, and the seat allocation table that is the inventory truth.
 *
 * Money is stored as integers of the currency's smallest unit (SYP has no minor unit in use, so
 * one unit = one pound) with a currency code beside it.
 */
export class Migration20261121000000_catalogue extends Migration {
  override up(): void {
    this.addSql(`create extension if not exists btree_gist`);

    this.addSql(`
      create table cities (
        id uuid primary key default gen_random_uuid(),
        name_ar text not null,
        name_en text not null,
        latitude double precision not null,
        longitude double precision not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index cities_name_en_key on cities (lower(name_en))`);
    this.addSql(`create unique index cities_name_ar_key on cities (name_ar)`);

    this.addSql(`
      create table companies (
        id uuid primary key default gen_random_uuid(),
        name_ar text not null,
        name_en text not null,
        slug text not null unique,
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'SUSPENDED')),
        verified boolean not null default false,
        published boolean not null default false,
        is_internal boolean not null default false,
        is_demo boolean not null default false,
        phone text,
        email text,
        created_at timestamptz not null default now(),
        check (not (is_internal and is_demo))
      )`);

    this.addSql(`
      create table stops (
        id uuid primary key default gen_random_uuid(),
        city_id uuid not null references cities(id),
        company_id uuid references companies(id),
        kind text not null check (kind in ('BUS_STATION', 'PARKING_POINT', 'AIRPORT', 'BOARDING_POINT', 'DEPOT')),
        name_ar text not null,
        name_en text not null,
        address_ar text not null default '',
        address_en text not null default '',
        directions_ar text not null default '',
        directions_en text not null default '',
        latitude double precision not null,
        longitude double precision not null,
        enabled boolean not null default true,
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create index stops_city_idx on stops (city_id)`);

    this.addSql(`
      create table pickup_locations (
        id uuid primary key default gen_random_uuid(),
        company_id uuid references companies(id),
        city_id uuid not null references cities(id),
        stop_id uuid not null references stops(id),
        is_public boolean not null default true,
        enabled boolean not null default true,
        created_at timestamptz not null default now(),
        unique (company_id, stop_id)
      )`);
    this.addSql(`create index pickup_locations_city_idx on pickup_locations (city_id, company_id)`);

    this.addSql(`
      create table buses (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        plate_number text not null,
        model text not null default '',
        capacity integer not null default 0 check (capacity >= 0),
        amenities jsonb not null default '[]',
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'MAINTENANCE', 'RETIRED')),
        created_at timestamptz not null default now(),
        unique (company_id, plate_number)
      )`);

    this.addSql(`
      create table bus_layouts (
        id uuid primary key default gen_random_uuid(),
        bus_id uuid not null references buses(id),
        version integer not null,
        status text not null check (status in ('draft', 'active', 'archived')),
        validation_status text not null check (validation_status in ('valid', 'invalid', 'pending')),
        validation_errors jsonb not null default '[]',
        document jsonb not null,
        seat_count integer not null check (seat_count >= 0),
        created_at timestamptz not null default now(),
        activated_at timestamptz,
        unique (bus_id, version)
      )`);
    // Customer booking uses exactly one layout per bus: the active one, which must be valid.
    this.addSql(`create unique index bus_layouts_one_active on bus_layouts (bus_id) where status = 'active'`);
    this.addSql(`alter table bus_layouts add constraint bus_layouts_active_is_valid
      check (status <> 'active' or validation_status = 'valid')`);

    // Derived projection of a layout's seats, rebuilt whenever a layout is saved; new features
    // read it and never write it directly.
    this.addSql(`
      create table layout_seats (
        layout_id uuid not null references bus_layouts(id) on delete cascade,
        seat_id text not null,
        seat_number text not null,
        deck integer not null default 1,
        seat_class text not null default 'STANDARD' check (seat_class in ('STANDARD', 'VIP')),
        primary key (layout_id, seat_id),
        unique (layout_id, seat_number)
      )`);

    this.addSql(`
      create table routes (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        origin_city_id uuid not null references cities(id),
        destination_city_id uuid not null references cities(id),
        name_ar text not null,
        name_en text not null,
        distance_km integer,
        active boolean not null default true,
        created_at timestamptz not null default now(),
        check (origin_city_id <> destination_city_id)
      )`);
    this.addSql(`create index routes_company_idx on routes (company_id)`);

    this.addSql(`
      create table trips (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        route_id uuid not null references routes(id),
        bus_id uuid not null references buses(id),
        schedule_id uuid,
        driver_id uuid,
        pickup_stop_id uuid not null references stops(id),
        departure_at timestamptz not null,
        arrival_at timestamptz not null,
        operating_date date not null,
        price_base bigint not null check (price_base >= 0),
        price_vip bigint check (price_vip is null or price_vip >= 0),
        currency text not null default 'SYP',
        seats_total integer not null check (seats_total >= 0),
        status text not null default 'SCHEDULED'
          check (status in ('SCHEDULED', 'BOARDING', 'DELAYED', 'DEPARTED', 'ARRIVED', 'COMPLETED', 'CANCELLED')),
        delay_minutes integer not null default 0,
        actual_departure_at timestamptz,
        actual_arrival_at timestamptz,
        created_at timestamptz not null default now(),
        check (arrival_at > departure_at)
      )`);
    this.addSql(`create index trips_company_date_idx on trips (company_id, operating_date)`);
    this.addSql(`create index trips_route_departure_idx on trips (route_id, departure_at)`);

    // One row per visit of a trip at a stop. fare_share_bp is the share of the trip's full fare
    // (in basis points) accumulated from the first call up to this one: a leg from call b to call a
    // costs price * (a.fare_share_bp - b.fare_share_bp) / 10000.
    this.addSql(`
      create table trip_stop_calls (
        id uuid primary key default gen_random_uuid(),
        trip_id uuid not null references trips(id) on delete cascade,
        stop_id uuid not null references stops(id),
        city_id uuid not null references cities(id),
        sequence integer not null check (sequence >= 0),
        arrival_at timestamptz not null,
        departure_at timestamptz not null,
        fare_share_bp integer not null check (fare_share_bp between 0 and 10000),
        unique (trip_id, sequence),
        check (departure_at >= arrival_at)
      )`);
    this.addSql(
      `create index trip_stop_calls_stop_departure_idx on trip_stop_calls (stop_id, departure_at) include (trip_id, sequence)`,
    );
    this.addSql(
      `create index trip_stop_calls_city_departure_idx on trip_stop_calls (city_id, departure_at) include (trip_id, sequence)`,
    );
    this.addSql(`create index trip_stop_calls_trip_idx on trip_stop_calls (trip_id, sequence)`);

    // The inventory truth. A seat of a trip is taken on the stop-call interval [board, alight);
    // two live allocations of one seat may never overlap. An expired hold still counts here until
    // it is released, so whoever takes a seat first marks expired holds of that trip as EXPIRED in
    // the same transaction; reads treat an expired hold as free without waiting for that.
    this.addSql(`
      create table seat_allocations (
        id uuid primary key default gen_random_uuid(),
        trip_id uuid not null references trips(id),
        seat_id text not null,
        board_sequence integer not null,
        alight_sequence integer not null,
        status text not null check (status in ('HELD', 'CONFIRMED', 'RELEASED', 'EXPIRED')),
        expires_at timestamptz,
        hold_batch_id uuid,
        owner_kind text not null default 'JOURNEY' check (owner_kind in ('JOURNEY', 'BOOKING', 'SEAT_LOCK')),
        owner_id uuid,
        created_at timestamptz not null default now(),
        released_at timestamptz,
        check (alight_sequence > board_sequence),
        constraint seat_allocations_no_overlap exclude using gist (
          trip_id with =,
          seat_id with =,
          int4range(board_sequence, alight_sequence) with &&
        ) where (status in ('HELD', 'CONFIRMED'))
      )`);
    this
      .addSql(`create index seat_allocations_live_idx on seat_allocations (trip_id) include (seat_id, board_sequence, alight_sequence, expires_at, status)
      where status in ('HELD', 'CONFIRMED')`);
  }

  override down(): void {
    for (const table of [
      'seat_allocations',
      'trip_stop_calls',
      'trips',
      'routes',
      'layout_seats',
      'bus_layouts',
      'buses',
      'pickup_locations',
      'stops',
      'companies',
      'cities',
    ]) {
      this.addSql(`drop table if exists ${table} cascade`);
    }
  }
}
