import { Migration } from '@mikro-orm/migrations';

/**
 * The driver records the cash they took at the door (POST /driver/api/trips/{id}/bookings/{bookingId}/
 * cash-collection, db/writes/driver-collections.ts): a PENDING `driver` line the office verifies into
 * its cash shift. `collected_by` names the staff user holding the cash (the trip's driver); null for
 * every line before this release and for lines nobody took by hand (announcements, office records,
 * imports). A booking has at most one live (PENDING or COMPLETED) driver line: a repeated or
 * concurrent recording finds it.
 *
 * Rolled back (README "Rolling back"), `collected_by` stays (nullable, never read before this
 * release: who holds a line's cash is known nowhere else) and only the index goes, so the code
 * before this release records its cash lines under its own rules; applied again, up() adds what is
 * missing.
 */
export class Migration20261206145900_driver_cash_collection extends Migration {
  override up(): void {
    this.addSql(
      `alter table payment_operations add column if not exists collected_by uuid references staff_users(id)`,
    );
    this.addSql(`
      create unique index if not exists payment_operations_one_live_driver on payment_operations (booking_id)
        where source = 'driver' and status in ('PENDING', 'COMPLETED')`);
  }

  override down(): void {
    this.addSql(`drop index if exists payment_operations_one_live_driver`);
  }
}
