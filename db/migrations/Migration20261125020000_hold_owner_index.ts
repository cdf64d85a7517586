import { Migration } from '@mikro-orm/migrations';

/**
 * The abuse caps (issue 18, inventory hoarding) count the seats one account holds in every write
 * that takes inventory; this partial index finds the account's live hold batches without scanning
 * every batch ever made.
 */
export class Migration20261125020000_hold_owner_index extends Migration {
  override up(): void {
    this.addSql(
      `create index hold_batches_owner_live_idx on hold_batches (owner_user_id, expires_at) where status = 'ACTIVE'`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists hold_batches_owner_live_idx');
  }
}
