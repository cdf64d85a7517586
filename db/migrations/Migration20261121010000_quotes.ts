import { Migration } from '@mikro-orm/migrations';

/**
 * Journey quotes (POST /journeys/quote): a priced offer for legs and resources that writes no
 * inventory. journey_id is the draft journey id hold and confirm later use as {bookingId}. A
 * client idempotency key is unique per owner (all guests share the null owner), and the stored
 * response is what a retry with the same body gets back.
 */
export class Migration20261121010000_quotes extends Migration {
  override up(): void {
    this.addSql(`
      create table journey_quotes (
        id uuid primary key default gen_random_uuid(),
        journey_id uuid not null unique,
        owner_user_id uuid,
        scope jsonb not null,
        idempotency_key text not null,
        request_hash text not null,
        party_size integer not null check (party_size between 1 and 20),
        response jsonb not null,
        total bigint not null check (total >= 0),
        currency text not null,
        expires_at timestamptz not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index journey_quotes_idempotency_key
      on journey_quotes (coalesce(owner_user_id, '00000000-0000-0000-0000-000000000000'::uuid), idempotency_key)`);
    this.addSql(`create index journey_quotes_expires_idx on journey_quotes (expires_at)`);
  }

  override down(): void {
    this.addSql(`drop table if exists journey_quotes`);
  }
}
