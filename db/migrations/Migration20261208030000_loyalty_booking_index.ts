import { Migration } from '@mikro-orm/migrations';

/**
 * A booking's loyalty entries found by the booking alone. A trip's points are credited once per
 * booking whatever account holds them (db/writes/loyalty/earn.ts: a phone merge may have moved the
 * booking and its entries to another account), and a refund takes a booking's points back wherever
 * they are (reversal.ts): both ask `where booking_id = $1`, which the unique index on (account_id,
 * kind, booking_id) cannot answer without reading every entry.
 */
export class Migration20261208030000_loyalty_booking_index extends Migration {
  override up(): void {
    this.addSql(`create index if not exists loyalty_transactions_booking_idx
      on loyalty_transactions (booking_id) where booking_id is not null`);
  }

  override down(): void {
    this.addSql(`drop index if exists loyalty_transactions_booking_idx`);
  }
}
