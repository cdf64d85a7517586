import { Migration } from '@mikro-orm/migrations';

/**
 * What the dashboard's operations, finance and webhook features share:
 *
 * - `outbox_events`: every booking or trip event a company may be notified of (SPEC "Events"),
 *   written in the same transaction as the change that causes it, so a change that rolls back
 *   emits nothing. One row per booking: trip events carry the data of each booking on the trip,
 *   so every event has SPEC's `data` shape. Delivery reads this table; it never changes a row's
 *   content.
 * - A collected payment whose trip the company cancelled is REFUND_DUE until finance refunds it.
 */
export class Migration20261124000000_operations_foundation extends Migration {
  override up(): void {
    this.addSql(`
      create table outbox_events (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        event text not null check (event in
          ('booking.created', 'booking.confirmed', 'booking.cancelled', 'trip.started', 'trip.completed')),
        booking_id uuid not null references bookings(id),
        trip_id uuid not null references trips(id),
        data jsonb not null,
        occurred_at timestamptz not null default now()
      )`);
    this.addSql(`create index outbox_events_company_idx on outbox_events (company_id, occurred_at)`);
    this.addSql(`create index outbox_events_booking_idx on outbox_events (booking_id)`);

    this.addSql(`alter table payment_operations drop constraint payment_operations_status_check`);
    this.addSql(`alter table payment_operations add constraint payment_operations_status_check
      check (status in ('PENDING', 'COMPLETED', 'REFUND_DUE', 'REFUNDED', 'CANCELLED', 'FAILED'))`);
    this.addSql(`alter table payment_operations add column refund_due_reason text`);
    this.addSql(`alter table payment_operations drop constraint payment_operations_check`);
    this.addSql(`alter table payment_operations add constraint payment_operations_check
      check (status not in ('COMPLETED', 'REFUND_DUE', 'REFUNDED') or collected_at is not null)`);
  }

  override down(): void {
    this.addSql(`drop table if exists outbox_events`);
    this.addSql(`alter table payment_operations drop column if exists refund_due_reason`);
  }
}
