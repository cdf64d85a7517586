import { Migration } from '@mikro-orm/migrations';

/**
 * An event's `occurred_at` (a notification's timestamp) is the moment its row is written, in the
 * transaction of the change and just before it commits, no longer that transaction's start: a
 * DEPART that waited for a booking to commit recorded trip.started with an earlier time than the
 * booking's booking.created, and the events of one statement all shared one time. Rows written
 * before keep their time.
 */
export class Migration20261204010000_outbox_event_time extends Migration {
  override up(): void {
    this.addSql('alter table outbox_events alter column occurred_at set default clock_timestamp()');
  }

  override down(): void {
    this.addSql('alter table outbox_events alter column occurred_at set default now()');
  }
}
