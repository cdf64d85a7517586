import { Migration } from '@mikro-orm/migrations';

/**
 * The identity-provider subjects each account unlinked (SPEC "Identity-provider sign-in": unlinking
 * is allowed only while another valid sign-in method remains, so it takes that way in away). The
 * account keeps the address the link verified, and sign-in adds a subject to the verified holder of
 * its address; without this record the unlinked subject would sign straight back in and be linked
 * again. Sign-in refuses a subject the address's account unlinked (409 IDP_ACCOUNT_CONFLICT); the
 * traveller linking it again, signed in, removes the record. One row per account, provider and
 * subject: unlinking the same subject again only moves unlinked_at.
 *
 * Rolled back (README "Rolling back"), the table stays: the code before this release never reads it,
 * and without it the subjects unlinked would sign straight back in once the release is applied again.
 */
export class Migration20261206184500_unlinked_identities extends Migration {
  override up(): void {
    this.addSql(`
      create table if not exists unlinked_identities (
        user_id uuid not null references users(id) on delete cascade,
        provider text not null check (provider in ('idp')),
        subject text not null,
        unlinked_at timestamptz not null default now(),
        primary key (user_id, provider, subject)
      )`);
  }

  override down(): void {
    // The records stay: the code before this release never reads them (its key cascades with the user).
  }
}
