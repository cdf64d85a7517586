import { Migration } from '@mikro-orm/migrations';

/**
 * The seat labels a seat lock answered, in seat-id order (null for journey holds and for locks
 * made before this column). A layout may rename a held seat; the booking of the lock is still
 * accepted under the labels its traveller was given (POST /bookings), and its tickets carry the
 * current ones.
 */
export class Migration20261204090000_seat_lock_labels extends Migration {
  override up(): void {
    this.addSql('alter table hold_batches add column seat_numbers text[]');
  }

  override down(): void {
    this.addSql('alter table hold_batches drop column seat_numbers');
  }
}
