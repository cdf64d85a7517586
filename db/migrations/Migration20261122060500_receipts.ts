import { Migration } from '@mikro-orm/migrations';

/**
 * Receipt and refund numbers (SPEC "Tickets and documents": a fixed receipt or refund number).
 *
 * A number is assigned once per collection record and kind (unique payment_id + kind): the
 * customer's GET /bookings/{id}/receipt, a shared receipt and the dashboard's
 * GET /payments/receipts/{source}/{id} all find the same row, so a receipt keeps its number
 * however often and wherever it is downloaded. Numbers run per company, series and Damascus year
 * (RCP-2026-000001, RFD-2026-000001) from a counter row that the assigning transaction locks
 * FOR UPDATE, so two first downloads at once never share or skip a number.
 *
 * The printed document itself is a document_snapshots row carrying the same number; the first
 * snapshot of a number in a locale is the receipt, later downloads reuse its data.
 */
export class Migration20261122060500_receipts extends Migration {
  override up(): void {
    this.addSql(`
      create table receipt_counters (
        company_id uuid not null references companies(id),
        series text not null check (series in ('RCP', 'RFD')),
        year integer not null check (year between 2000 and 9999),
        last_value integer not null default 0 check (last_value >= 0),
        primary key (company_id, series, year)
      )`);

    this.addSql(`
      create table receipts (
        id uuid primary key default gen_random_uuid(),
        payment_id uuid not null references payment_operations(id),
        kind text not null check (kind in ('PAYMENT_RECEIPT', 'REFUND_NOTICE')),
        company_id uuid not null references companies(id),
        booking_id uuid not null references bookings(id),
        number text not null check (number ~ '^(RCP|RFD)-[0-9]{4}-[0-9]{6,}$'),
        issued_at timestamptz not null default now(),
        unique (payment_id, kind),
        unique (company_id, number)
      )`);
    this.addSql(`create index receipts_booking_idx on receipts (booking_id)`);
  }

  override down(): void {
    this.addSql('drop table if exists receipts');
    this.addSql('drop table if exists receipt_counters');
  }
}
