import { Migration } from '@mikro-orm/migrations';

/**
 * The unpaid-bookings cap (issue 18, inventory hoarding) counts the account's unpaid live bookings
 * in every journey hold and booking (db/writes/inventory-caps.ts `requireUnpaidWithinCap`). Through
 * bookings_owner_idx that count read every booking the account ever made; this partial index holds
 * only the unpaid live ones, of which the cap allows a handful, so the check costs the same for an
 * account with a long history as for a new one.
 */
export class Migration20261128010000_unpaid_owner_index extends Migration {
  override up(): void {
    this.addSql(
      `create index bookings_owner_unpaid_idx on bookings (owner_user_id)
       where payment_status = 'UNPAID' and status in ('HELD', 'PENDING_CONFIRMATION', 'CONFIRMED')`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists bookings_owner_unpaid_idx');
  }
}
