import { Migration } from '@mikro-orm/migrations';

/**
 * One identity-provider subject per account and provider (SPEC "Identity-provider sign-in": a
 * conflict fails closed). The sign-in and linking transactions check it under the account's row
 * lock; the index is the last word when two of them meet anyway: the second fails with a unique
 * violation, which failClosed (db/writes/traveller-identity/accounts.ts) answers as 409
 * IDP_ACCOUNT_CONFLICT with nothing written. It also serves every lookup by user_id, so it
 * replaces the plain user_identities_user_idx. An account that already has two subjects of one
 * provider stops this migration: which one it keeps is for support to decide, not for a migration.
 */
export class Migration20261204080000_identity_one_subject_per_provider extends Migration {
  override up(): void {
    this.addSql(
      'create unique index user_identities_user_provider_key on user_identities (user_id, provider)',
    );
    this.addSql('drop index if exists user_identities_user_idx');
  }

  override down(): void {
    this.addSql('create index if not exists user_identities_user_idx on user_identities (user_id)');
    this.addSql('drop index if exists user_identities_user_provider_key');
  }
}
