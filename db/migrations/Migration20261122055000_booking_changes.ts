import { Migration } from '@mikro-orm/migrations';

/**
 * Booking modification re-issues tickets: the old ticket row stays (status REISSUED, its signed
 * credential on the revocation list, so scanners refuse it) and a new ticket row with a new id is
 * signed for the same traveller and leg. One traveller and leg therefore has at most one ticket
 * that is not REISSUED, instead of exactly one row.
 *
 * GET /bookings lists a traveller's bookings by owner or by canonical passenger; the second needs
 * its own index.
 */
export class Migration20261122055000_booking_changes extends Migration {
  override up(): void {
    this.addSql(
      `alter table journey_tickets drop constraint if exists journey_tickets_journey_id_leg_sequence_traveller_index_key`,
    );
    this
      .addSql(`create unique index journey_tickets_current_key on journey_tickets (journey_id, leg_sequence, traveller_index)
      where status <> 'REISSUED'`);
    this.addSql(`create index bookings_passenger_idx on bookings (passenger_id, created_at desc)`);
  }

  override down(): void {
    this.addSql(`drop index if exists bookings_passenger_idx`);
    this.addSql(`drop index if exists journey_tickets_current_key`);
    this.addSql(
      `delete from credential_revocations where ticket_id in (select id from journey_tickets where status = 'REISSUED')`,
    );
    this.addSql(`delete from journey_tickets where status = 'REISSUED'`);
    this
      .addSql(`alter table journey_tickets add constraint journey_tickets_journey_id_leg_sequence_traveller_index_key
      unique (journey_id, leg_sequence, traveller_index)`);
  }
}
