import { Migration } from '@mikro-orm/migrations';

/**
 * The driver app's revocation list (GET /driver/api/revocations) pages through
 * credential_revocations in (revoked_at, ticket_id) order from an instant or a keyset cursor. Without
 * this index every page sorted the whole table, which only grows.
 */
export class Migration20261204030000_credential_revocations_list_index extends Migration {
  override up(): void {
    this.addSql(
      'create index credential_revocations_list_idx on credential_revocations (revoked_at, ticket_id)',
    );
  }

  override down(): void {
    this.addSql('drop index if exists credential_revocations_list_idx');
  }
}
