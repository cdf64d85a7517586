import { Migration } from '@mikro-orm/migrations';

/**
 * The payment ledger: one payment_operations row per collection attempt of a booking.
 *
 * source says where the money is taken (SPEC's ledger and receipt sources):
 *   transaction  an operation record a traveller opened (POST /payments/create) or staff entered
 *   driver       collected by the trip's driver at boarding
 *   office       collected at the company office for an office booking
 *   booking      the booking payment fact itself (a booking marked paid with no earlier operation)
 * Only cash exists today (provider 'cash'); SHAMCASH and CARD are listed so the methods a client
 * asks for can be named, but no online provider writes here.
 *
 * status: PENDING (waiting for the cash) → COMPLETED (collected; decided_by/decided_at say who
 * verified it) → REFUNDED (full amount only); PENDING → CANCELLED or FAILED. cash_shift_id links a
 * collection to the company's open cash shift once the dashboard cash shifts exist.
 */
export class Migration20261122052000_payments extends Migration {
  override up(): void {
    this.addSql(`
      create table payment_operations (
        id uuid primary key default gen_random_uuid(),
        company_id uuid not null references companies(id),
        booking_id uuid not null references bookings(id),
        user_id uuid references users(id),
        method text not null check (method in ('CASH', 'SHAMCASH', 'CARD')),
        provider text not null default 'cash' check (provider in ('cash')),
        source text not null check (source in ('transaction', 'driver', 'office', 'booking')),
        amount bigint not null check (amount >= 0),
        currency text not null default 'SYP',
        status text not null default 'PENDING'
          check (status in ('PENDING', 'COMPLETED', 'REFUNDED', 'CANCELLED', 'FAILED')),
        note text check (char_length(note) <= 1000),
        idempotency_key text,
        collected_at timestamptz,
        refunded_at timestamptz,
        decided_by uuid references staff_users(id),
        decided_at timestamptz,
        cash_shift_id uuid,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (status not in ('COMPLETED', 'REFUNDED') or collected_at is not null),
        check (status <> 'REFUNDED' or refunded_at is not null)
      )`);
    // A booking has at most one live operation record: a repeated or concurrent create finds it.
    this.addSql(`
      create unique index payment_operations_one_open_transaction on payment_operations (booking_id)
        where source = 'transaction' and status in ('PENDING', 'COMPLETED')`);
    this.addSql(`
      create unique index payment_operations_idempotency on payment_operations (company_id, idempotency_key)
        where idempotency_key is not null`);
    this.addSql(`create index payment_operations_booking_idx on payment_operations (booking_id)`);
    this.addSql(`create index payment_operations_user_idx on payment_operations (user_id, created_at desc)`);
    this.addSql(
      `create index payment_operations_company_idx on payment_operations (company_id, created_at desc)`,
    );
    this.addSql(
      `create index payment_operations_cash_shift_idx on payment_operations (cash_shift_id) where cash_shift_id is not null`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists payment_operations cascade`);
  }
}
