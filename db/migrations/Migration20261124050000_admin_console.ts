import { Migration } from '@mikro-orm/migrations';

/**
 * The administration console (issue 16):
 *
 * - `company_admin_actions`: a company's history of warnings, suspensions, unsuspensions and
 *   verification changes, each with its administrator, reason and the standing before and after.
 *   The audit log records the same change in the same transaction; this table is the company's
 *   own record, which its OWNER reads warnings from.
 * - `feature_flags`: the values operators set (the catalogue and defaults are in
 *   domain/feature-flags.ts); `platform_state_versions` counts changes of the flags and of the
 *   maintenance windows, bumped in the changing transaction, so every API process notices a
 *   change by polling one small row. `company_standing` counts suspensions and unsuspensions:
 *   the search micro-cache keys its answers by it, so a suspended company's trips drop out of
 *   cached searches too.
 * - `incidents`, `maintenance_windows`.
 * - `waitlist_entries`: pre-launch sign-ups, an e-mail address and when, nothing more.
 * - `support_tickets` and their `support_ticket_messages`.
 */
export class Migration20261124050000_admin_console extends Migration {
  override up(): void {
    this.addSql(`
      create table company_admin_actions (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        action text not null check (action in ('WARN', 'SUSPEND', 'UNSUSPEND', 'VERIFY', 'UNVERIFY')),
        reason text not null,
        admin_id uuid references admins(id),
        standing_before jsonb not null,
        standing_after jsonb not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql(
      `create index company_admin_actions_company_idx on company_admin_actions (company_id, created_at desc)`,
    );

    this.addSql(`
      create table feature_flags (
        key text primary key,
        enabled boolean not null,
        updated_by uuid references admins(id),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`
      create table platform_state_versions (
        name text primary key check (name in ('feature_flags', 'maintenance', 'company_standing')),
        version bigint not null default 0
      )`);
    this.addSql(
      `insert into platform_state_versions (name) values ('feature_flags'), ('maintenance'), ('company_standing')
       on conflict do nothing`,
    );

    this.addSql(`
      create table incidents (
        id uuid primary key default gen_random_uuid(),
        title text not null,
        description text not null default '',
        severity text not null check (severity in ('MINOR', 'MAJOR', 'CRITICAL')),
        status text not null default 'INVESTIGATING'
          check (status in ('INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED')),
        resolution text,
        started_at timestamptz not null default now(),
        resolved_at timestamptz,
        created_by uuid references admins(id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((status = 'RESOLVED') = (resolved_at is not null))
      )`);
    this.addSql(`create index incidents_status_idx on incidents (status, started_at desc)`);

    this.addSql(`
      create table maintenance_windows (
        id uuid primary key default gen_random_uuid(),
        message text not null,
        starts_at timestamptz not null,
        ends_at timestamptz not null,
        cancelled_at timestamptz,
        created_by uuid references admins(id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (ends_at > starts_at)
      )`);
    this.addSql(`create index maintenance_windows_ends_idx on maintenance_windows (ends_at)`);

    this.addSql(`
      create table waitlist_entries (
        id uuid primary key default gen_random_uuid(),
        email text not null check (email = lower(email)),
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index waitlist_entries_email_key on waitlist_entries (email)`);
    this.addSql(`create index waitlist_entries_created_idx on waitlist_entries (created_at desc)`);

    this.addSql(`
      create table support_tickets (
        id uuid primary key default gen_random_uuid(),
        subject text not null,
        status text not null default 'OPEN' check (status in ('OPEN', 'ANSWERED', 'CLOSED')),
        priority text not null default 'NORMAL' check (priority in ('LOW', 'NORMAL', 'HIGH', 'URGENT')),
        opened_by_kind text not null check (opened_by_kind in ('TRAVELLER', 'ADMIN')),
        opened_by uuid not null,
        traveller_user_id uuid references users(id),
        company_id uuid references companies(id),
        booking_id uuid references bookings(id),
        assignee_admin_id uuid references admins(id),
        resolution text,
        closed_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((status = 'CLOSED') = (closed_at is not null))
      )`);
    this.addSql(`create index support_tickets_status_idx on support_tickets (status, updated_at desc)`);
    this.addSql(`create index support_tickets_company_idx on support_tickets (company_id, updated_at desc)`);
    this.addSql(
      `create index support_tickets_traveller_idx on support_tickets (traveller_user_id, created_at desc)`,
    );
    this.addSql(`create index support_tickets_assignee_idx on support_tickets (assignee_admin_id)`);
    this.addSql(`
      create table support_ticket_messages (
        id uuid primary key default gen_random_uuid(),
        ticket_id uuid not null references support_tickets(id) on delete cascade,
        author_kind text not null check (author_kind in ('TRAVELLER', 'ADMIN')),
        author_id uuid not null,
        body text not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql(
      `create index support_ticket_messages_ticket_idx on support_ticket_messages (ticket_id, created_at)`,
    );
  }

  override down(): void {
    for (const table of [
      'support_ticket_messages',
      'support_tickets',
      'waitlist_entries',
      'maintenance_windows',
      'incidents',
      'platform_state_versions',
      'feature_flags',
      'company_admin_actions',
    ]) {
      this.addSql(`drop table if exists ${table} cascade`);
    }
  }
}
