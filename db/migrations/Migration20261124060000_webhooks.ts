import { Migration } from '@mikro-orm/migrations';

/**
 * Company webhooks (SPEC "Webhook set-up", "Events", "Webhook subscription"):
 *
 * - `company_api_keys`: the bearer keys a company's OWNER or ADMIN makes in the dashboard for
 *   POST /api/webhooks. Only the SHA-256 of a key is stored (and its first characters, to tell keys
 *   apart in the list); the key itself is shown once, at creation.
 * - `webhook_subscriptions`: url, events and signing secret. The secret is kept as given (the
 *   signature needs it) and never returned. DISABLED after a 410 answer; DELETED is kept so the
 *   delivery log of a removed subscription stays whole.
 * - `outbox_events.dispatched_at`: set when the relay (workflow webhook-outbox) has turned the event
 *   into deliveries; the partial index finds the rest at once. A trigger wakes the relay on commit
 *   (pg_notify is delivered only when the inserting transaction commits).
 * - `webhook_deliveries`: one per subscription and event; its id is the Webhook-Id header receivers
 *   deduplicate on. `workflow_started_at` is null until the relay has started webhook-delivery/{id}.
 * - `webhook_delivery_attempts`: every HTTP attempt: when, how long, the status or the error, and the
 *   first 512 characters of the answer. Never the secret.
 */
export class Migration20261124060000_webhooks extends Migration {
  override up(): void {
    this.addSql(`
      create table company_api_keys (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        name text not null,
        key_prefix text not null,
        key_hash text not null unique,
        created_by uuid not null references staff_users(id),
        created_at timestamptz not null default now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        revoked_by uuid references staff_users(id)
      )`);
    this.addSql(
      `create index company_api_keys_company_idx on company_api_keys (company_id, created_at desc)`,
    );

    this.addSql(`
      create table webhook_subscriptions (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        url text not null,
        events text[] not null,
        secret text not null,
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'DISABLED', 'DELETED')),
        disabled_reason text,
        created_by_key_id uuid not null references company_api_keys(id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        disabled_at timestamptz,
        deleted_at timestamptz
      )`);
    this.addSql(
      `create index webhook_subscriptions_company_idx on webhook_subscriptions (company_id) where status = 'ACTIVE'`,
    );

    this.addSql(`alter table outbox_events add column dispatched_at timestamptz`);
    this.addSql(
      `create index outbox_events_undispatched_idx on outbox_events (occurred_at) where dispatched_at is null`,
    );
    this.addSql(`
      create function webhook_outbox_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('webhook_outbox', '');
        return null;
      end $$`);
    this.addSql(`
      create trigger outbox_events_notify after insert on outbox_events
      for each statement execute function webhook_outbox_notify()`);

    this.addSql(`
      create table webhook_deliveries (
        id uuid primary key default gen_random_uuid(),
        subscription_id uuid not null references webhook_subscriptions(id),
        company_id uuid not null references companies(id),
        outbox_event_id uuid not null references outbox_events(id),
        event text not null,
        booking_id uuid not null references bookings(id),
        status text not null default 'PENDING'
          check (status in ('PENDING', 'DELIVERED', 'FAILED', 'ABANDONED')),
        attempts integer not null default 0,
        last_status_code integer,
        last_error text,
        created_at timestamptz not null default now(),
        workflow_started_at timestamptz,
        delivered_at timestamptz,
        finished_at timestamptz,
        unique (subscription_id, outbox_event_id)
      )`);
    this.addSql(
      `create index webhook_deliveries_subscription_idx on webhook_deliveries (subscription_id, created_at desc)`,
    );
    this.addSql(
      `create index webhook_deliveries_unstarted_idx on webhook_deliveries (created_at) where workflow_started_at is null`,
    );

    this.addSql(`
      create table webhook_delivery_attempts (
        id uuid primary key default gen_random_uuid(),
        delivery_id uuid not null references webhook_deliveries(id),
        attempt_number integer not null,
        trigger text not null check (trigger in ('AUTOMATIC', 'MANUAL')),
        attempted_at timestamptz not null,
        duration_ms integer not null,
        status_code integer,
        outcome text not null check (outcome in ('DELIVERED', 'RETRY', 'FAILED', 'GONE')),
        error text,
        response_excerpt text,
        unique (delivery_id, attempt_number)
      )`);
  }

  override down(): void {
    this.addSql('drop table if exists webhook_delivery_attempts');
    this.addSql('drop table if exists webhook_deliveries');
    this.addSql('drop trigger if exists outbox_events_notify on outbox_events');
    this.addSql('drop function if exists webhook_outbox_notify()');
    this.addSql('alter table outbox_events drop column if exists dispatched_at');
    this.addSql('drop table if exists webhook_subscriptions');
    this.addSql('drop table if exists company_api_keys');
  }
}
