import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail links: issuing a link expires the user's older unused links of the same purpose, and a
 * user's deletion cascades to their links; both look tokens up by user and purpose.
 */
export class Migration20261121031000_email extends Migration {
  override up(): void {
    this.addSql(`create index email_tokens_user_purpose_idx on email_tokens (user_id, purpose, created_at)`);
  }

  override down(): void {
    this.addSql(`drop index if exists email_tokens_user_purpose_idx`);
  }
}
