import { Migration } from '@mikro-orm/migrations';

/**
 * Which events reach a subscription is decided by how it stood when each event happened, not when
 * the relay gets to the event (db/writes/webhook-deliveries.ts, dispatchOutboxEvents):
 *
 * - `webhook_subscription_history`: the subscription's status and events from `valid_from` on, one
 *   row per change of either, written by a trigger on every insert and update of
 *   `webhook_subscriptions` (so no write path can forget it), stamped with clock_timestamp(): the
 *   moment the row is written, under the subscription's row lock, the clock `outbox_events.occurred_at`
 *   is read from (Migration20261204010000), not the transaction's start. Existing subscriptions get
 *   ACTIVE at their creation, then DISABLED or DELETED when they became so, with their current events.
 * - `webhook_subscriptions.secret_version`: counts changes of the signing secret, so an attempt's
 *   answer can be told to have come under a secret the subscription no longer has without the secret
 *   itself being recorded anywhere else (db/writes/webhook-deliveries.ts, recordAttempt).
 * - `webhook_subscriptions (company_id)`: the relay matches an event against every subscription of
 *   its company, a deleted or disabled one too (its history may say it was ACTIVE at the event).
 */
export class Migration20261205100000_webhook_subscription_history extends Migration {
  override up(): void {
    this.addSql(`
      create table webhook_subscription_history (
        id uuid primary key default gen_random_uuid(),
        subscription_id uuid not null references webhook_subscriptions(id),
        valid_from timestamptz not null default clock_timestamp(),
        status text not null check (status in ('ACTIVE', 'DISABLED', 'DELETED')),
        events text[] not null
      )`);
    this.addSql(
      `create index webhook_subscription_history_idx on webhook_subscription_history (subscription_id, valid_from)`,
    );
    this.addSql(`
      insert into webhook_subscription_history (subscription_id, valid_from, status, events)
      select id, created_at, 'ACTIVE', events from webhook_subscriptions
      union all
      select id, disabled_at, 'DISABLED', events from webhook_subscriptions
      where status = 'DISABLED' and disabled_at is not null
      union all
      select id, deleted_at, 'DELETED', events from webhook_subscriptions
      where status = 'DELETED' and deleted_at is not null`);
    this.addSql(`
      create function webhook_subscription_history_write() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' or old.status is distinct from new.status or old.events is distinct from new.events then
          insert into webhook_subscription_history (subscription_id, valid_from, status, events)
          values (new.id, clock_timestamp(), new.status, new.events);
        end if;
        return null;
      end $$`);
    this.addSql(`
      create trigger webhook_subscriptions_history after insert or update on webhook_subscriptions
      for each row execute function webhook_subscription_history_write()`);
    this.addSql(`alter table webhook_subscriptions add column secret_version integer not null default 1`);
    this.addSql(`create index webhook_subscriptions_company_all_idx on webhook_subscriptions (company_id)`);
  }

  override down(): void {
    this.addSql('drop index if exists webhook_subscriptions_company_all_idx');
    this.addSql('alter table webhook_subscriptions drop column if exists secret_version');
    this.addSql('drop trigger if exists webhook_subscriptions_history on webhook_subscriptions');
    this.addSql('drop function if exists webhook_subscription_history_write()');
    this.addSql('drop table if exists webhook_subscription_history');
  }
}
