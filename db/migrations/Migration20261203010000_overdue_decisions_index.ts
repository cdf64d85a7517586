import { Migration } from '@mikro-orm/migrations';

/**
 * Each decision deadline's release also releases the scopes already overdue
 * (db/writes/journeys/decide.ts `releaseOverdueDecisions`): it looks for the PENDING requests whose
 * deadline has passed. This partial index holds only the PENDING ones, a few per scope awaiting a
 * company, so the look-up costs the same however many requests were ever decided.
 */
export class Migration20261203010000_overdue_decisions_index extends Migration {
  override up(): void {
    this.addSql(
      `create index confirmation_requests_pending_deadline_idx on confirmation_requests (deadline)
       where status = 'PENDING'`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists confirmation_requests_pending_deadline_idx');
  }
}
