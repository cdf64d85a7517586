import { Migration } from '@mikro-orm/migrations';

/**
 * The departures a schedule's claim found in conflict and skipped (skip_conflicts): no batch creates
 * them, and they no longer count among the trips the schedule has claimed (db/queries/planning.ts
 * claimedWindows), so a manual trip may take their bus, driver or departure while the schedule
 * commits. Empty for schedules claimed before this column (their batches re-found such conflicts).
 */
export class Migration20261205010000_schedule_skipped_departures extends Migration {
  override up(): void {
    this.addSql(
      `alter table trip_schedules add column skipped_departures timestamptz[] not null default '{}'`,
    );
  }

  override down(): void {
    this.addSql('alter table trip_schedules drop column skipped_departures');
  }
}
