import { Migration } from '@mikro-orm/migrations';

/**
 * A quote's idempotency key is replayed only for the signed-in traveller who sent it. Guests have
 * no identity to scope a key by: under the old index every guest shared one namespace, so a second
 * guest sending a key another guest had used got that guest's quote (and journey, which the first
 * hold then claims). A guest's quote is never replayed (a quote holds nothing; a retry quotes
 * again), so the unique index now covers only quotes with an owner.
 *
 * down restores the shared index; it fails while two guest quotes share a key.
 */
export class Migration20261203020000_quote_keys_per_traveller extends Migration {
  override up(): void {
    this.addSql('drop index if exists journey_quotes_idempotency_key');
    this.addSql(
      `create unique index journey_quotes_idempotency_key on journey_quotes (owner_user_id, idempotency_key)
       where owner_user_id is not null`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists journey_quotes_idempotency_key');
    this.addSql(`create unique index journey_quotes_idempotency_key
      on journey_quotes (coalesce(owner_user_id, '00000000-0000-0000-0000-000000000000'::uuid), idempotency_key)`);
  }
}
