import { Migration } from '@mikro-orm/migrations';

/**
 * Two lookups that every journey hold, confirm and confirmation read make had no index they could
 * use, so each read its whole table, a cost that grew with every journey ever made (found by
 * bench:journeys: with 13,000 journeys the confirmation projection read 640 blocks a call):
 * - a journey's tickets whatever their status (the projection, the confirm's count of the tickets it
 *   must cover, the ticket and credential reads): journey_tickets_current_key holds only the tickets
 *   that are not REISSUED, so a query without that condition cannot use it;
 * - a scope's latest hold whatever its status (the projection's `hold`): hold_batches_one_active
 *   holds only the ACTIVE one.
 */
export class Migration20261202010000_journey_lookup_indexes extends Migration {
  override up(): void {
    this.addSql('create index journey_tickets_journey_idx on journey_tickets (journey_id)');
    this.addSql(
      'create index hold_batches_scope_idx on hold_batches (scope_kind, scope_id, created_at desc)',
    );
  }

  override down(): void {
    this.addSql('drop index if exists hold_batches_scope_idx');
    this.addSql('drop index if exists journey_tickets_journey_idx');
  }
}
