import { Migration } from '@mikro-orm/migrations';

/**
 * Journeys, journey orders, hold batches, tickets, company confirmation requests, booking
 * confirmation settings, the compatibility booking rows, idempotent confirm answers, boarding
 * credential signing keys and the revocation list.
 *
 * A journey (SPEC's bookingId on /journeys paths) is one traveller party's itinerary of one or
 * more legs, born as a draft from a quote (journey_quotes.journey_id). A journey order groups
 * journeys confirmed together. Either one is the "scope" a hold batch and a confirmation workflow
 * (journey-confirmation/{id}) act on.
 */
export class Migration20261121040000_journeys extends Migration {
  override up(): void {
    this.addSql(`
      create table journey_orders (
        id uuid primary key,
        owner_user_id uuid not null references users(id),
        passenger_id uuid references passengers(id),
        channel text not null default 'CUSTOMER_WEB' check (channel in ('CUSTOMER_WEB', 'CUSTOMER_MOBILE', 'RESELLER')),
        status text not null default 'DRAFT'
          check (status in ('DRAFT', 'HELD', 'REQUESTED', 'CONFIRMED', 'CANCELLED', 'RELEASED', 'EXPIRED')),
        failure_reason text,
        total_price bigint not null default 0,
        currency text not null default 'SYP',
        confirmation_deadline timestamptz,
        confirmed_at timestamptz,
        closed_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);

    this.addSql(`
      create table journeys (
        id uuid primary key,
        quote_id uuid not null references journey_quotes(id),
        order_id uuid references journey_orders(id),
        owner_user_id uuid not null references users(id),
        passenger_id uuid references passengers(id),
        channel text not null default 'CUSTOMER_WEB' check (channel in ('CUSTOMER_WEB', 'CUSTOMER_MOBILE', 'RESELLER')),
        party_size integer not null check (party_size between 1 and 20),
        status text not null default 'DRAFT'
          check (status in ('DRAFT', 'HELD', 'REQUESTED', 'CONFIRMED', 'CANCELLED', 'RELEASED', 'EXPIRED')),
        failure_reason text,
        total_price bigint not null default 0,
        currency text not null default 'SYP',
        confirmation_deadline timestamptz,
        confirmed_at timestamptz,
        closed_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create index journeys_owner_idx on journeys (owner_user_id, created_at desc)`);
    this.addSql(`create index journeys_order_idx on journeys (order_id)`);

    this.addSql(`
      create table journey_legs (
        journey_id uuid not null references journeys(id) on delete cascade,
        sequence integer not null check (sequence >= 1),
        trip_id uuid not null references trips(id),
        company_id uuid not null references companies(id),
        board_stop_call_id uuid not null references trip_stop_calls(id),
        alight_stop_call_id uuid not null references trip_stop_calls(id),
        board_sequence integer not null,
        alight_sequence integer not null,
        unit_price bigint not null,
        quantity integer not null,
        subtotal bigint not null,
        primary key (journey_id, sequence)
      )`);
    this.addSql(`create index journey_legs_trip_idx on journey_legs (trip_id)`);
    this.addSql(`create index journey_legs_company_idx on journey_legs (company_id)`);

    // One active hold batch per scope at a time; its allocations carry hold_batch_id.
    this.addSql(`
      create table hold_batches (
        id uuid primary key default gen_random_uuid(),
        scope_kind text not null check (scope_kind in ('JOURNEY', 'ORDER', 'SEAT_LOCK')),
        scope_id uuid not null,
        owner_user_id uuid references users(id),
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'CONSUMED', 'RELEASED', 'EXPIRED')),
        expires_at timestamptz not null,
        created_at timestamptz not null default now(),
        closed_at timestamptz
      )`);
    this.addSql(
      `create unique index hold_batches_one_active on hold_batches (scope_kind, scope_id) where status = 'ACTIVE'`,
    );
    this.addSql(`create index seat_allocations_hold_batch_idx on seat_allocations (hold_batch_id)`);
    this.addSql(`create index seat_allocations_owner_idx on seat_allocations (owner_kind, owner_id)`);

    this.addSql(`
      create table journey_tickets (
        id uuid primary key default gen_random_uuid(),
        journey_id uuid not null references journeys(id) on delete cascade,
        leg_sequence integer not null,
        traveller_index integer not null,
        traveller_name text not null,
        traveller_phone text,
        trip_id uuid not null references trips(id),
        company_id uuid not null references companies(id),
        seat_id text not null,
        seat_number text not null,
        status text not null default 'PENDING_CONFIRMATION'
          check (status in ('PENDING_CONFIRMATION', 'VALID', 'CANCELLED', 'USED', 'REISSUED')),
        payload jsonb,
        signature text,
        key_id text,
        boarding_authorized boolean not null default false,
        issued_at timestamptz,
        created_at timestamptz not null default now(),
        unique (journey_id, leg_sequence, traveller_index)
      )`);
    this.addSql(`create index journey_tickets_trip_idx on journey_tickets (trip_id)`);

    // One decision request per company involved in a journey or order that confirms manually.
    this.addSql(`
      create table confirmation_requests (
        id uuid primary key default gen_random_uuid(),
        scope_kind text not null check (scope_kind in ('JOURNEY', 'ORDER')),
        scope_id uuid not null,
        company_id uuid not null references companies(id),
        status text not null default 'PENDING' check (status in ('PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED')),
        deadline timestamptz not null,
        decided_by uuid,
        decided_at timestamptz,
        decision_key text unique,
        reason text,
        created_at timestamptz not null default now(),
        unique (scope_kind, scope_id, company_id)
      )`);
    this.addSql(
      `create index confirmation_requests_company_idx on confirmation_requests (company_id, status)`,
    );

    this.addSql(`
      create table company_booking_settings (
        company_id uuid primary key references companies(id),
        mode text not null default 'AUTO_CONFIRM' check (mode in ('AUTO_CONFIRM', 'MANUAL_CONFIRM')),
        decision_window_minutes integer not null default 15 check (decision_window_minutes between 15 and 1440),
        channels text[] not null default '{CUSTOMER_WEB,CUSTOMER_MOBILE,RESELLER}'
          check (cardinality(channels) > 0 and channels <@ '{CUSTOMER_WEB,CUSTOMER_MOBILE,RESELLER}'::text[]),
        updated_by uuid,
        updated_at timestamptz not null default now()
      )`);

    // Compatibility rows the dashboard and older clients read: one per journey and company.
    this.addSql(`
      create table bookings (
        id uuid primary key default gen_random_uuid(),
        booking_code text not null unique,
        journey_id uuid references journeys(id),
        company_id uuid not null references companies(id),
        trip_id uuid not null references trips(id),
        passenger_id uuid references passengers(id),
        owner_user_id uuid references users(id),
        passenger_name text not null,
        passenger_phone text not null,
        seats_count integer not null check (seats_count > 0),
        seat_numbers text[] not null,
        status text not null default 'PENDING_CONFIRMATION'
          check (status in ('HELD', 'PENDING_CONFIRMATION', 'CONFIRMED', 'CANCELLED', 'CHECKED_IN', 'NO_SHOW', 'COMPLETED', 'EXPIRED')),
        payment_status text not null default 'UNPAID' check (payment_status in ('UNPAID', 'PAID', 'REFUNDED')),
        total_price bigint not null default 0,
        discount bigint not null default 0,
        currency text not null default 'SYP',
        channel text not null default 'CUSTOMER_WEB',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (journey_id, company_id, trip_id)
      )`);
    this.addSql(`create index bookings_company_idx on bookings (company_id, created_at desc)`);
    this.addSql(`create index bookings_owner_idx on bookings (owner_user_id, created_at desc)`);

    // Stored answers of idempotent calls: a retry with the same key and body gets the same answer.
    this.addSql(`
      create table idempotency_records (
        scope text not null,
        key text not null,
        request_hash text not null,
        status_code integer,
        response jsonb,
        created_at timestamptz not null default now(),
        primary key (scope, key)
      )`);

    this.addSql(`
      create table signing_keys (
        key_id text primary key,
        algorithm text not null default 'Ed25519',
        public_key text not null,
        private_key text not null,
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'RETIRED')),
        created_at timestamptz not null default now(),
        retired_at timestamptz
      )`);
    this.addSql(
      `create unique index signing_keys_one_active on signing_keys (status) where status = 'ACTIVE'`,
    );

    this.addSql(`
      create table credential_revocations (
        ticket_id uuid primary key references journey_tickets(id),
        key_id text,
        reason text not null,
        revoked_at timestamptz not null default now()
      )`);
  }

  override down(): void {
    for (const table of [
      'credential_revocations',
      'signing_keys',
      'idempotency_records',
      'bookings',
      'company_booking_settings',
      'confirmation_requests',
      'journey_tickets',
      'hold_batches',
      'journey_legs',
      'journeys',
      'journey_orders',
    ]) {
      this.addSql(`drop table if exists ${table} cascade`);
    }
  }
}
