import { Migration } from '@mikro-orm/migrations';

/**
 * Phone numbers linked to a chat of the chat bot (method chatapp). A row is written when the
 * owner of the number proves it to the bot (shares their own contact); send-otp resolves the chat
 * from here and never sends a code to a chat the client merely names.
 */
export class Migration20261121030000_otp extends Migration {
  override up(): void {
    this.addSql(`
      create table chatapp_links (
        phone text primary key,
        chat_id text not null,
        linked_at timestamptz not null default now()
      )`);
    this.addSql(`create index chatapp_links_chat_idx on chatapp_links (chat_id)`);
    // send-otp supersedes the open challenge of a phone and verify-otp reads it: both by phone.
    this.addSql(`create index otp_challenges_open_idx on otp_challenges (phone) where consumed_at is null`);
  }

  override down(): void {
    this.addSql(`drop index if exists otp_challenges_open_idx`);
    this.addSql(`drop table if exists chatapp_links`);
  }
}
