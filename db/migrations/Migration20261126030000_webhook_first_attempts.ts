import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook first attempts without a workflow (issue 17's lag target). The relay's activity now sends
 * the first attempt of each new delivery itself; a `webhook-delivery/{id}` workflow exists only for
 * a delivery that must wait and retry, or for a manual redelivery.
 *
 * - `route`: who makes the delivery's next attempt. RELAY: the relay's activity (a new delivery);
 *   RETRY: the relay's attempt asked for a retry, so a webhook-delivery workflow waits the backoff
 *   (at least `retry_after_ms`) and tries again; MANUAL: a redelivery, whose workflow attempts at once.
 * - `claimed_until`: the relay's lease on a RELAY delivery it is sending (taken with FOR UPDATE SKIP
 *   LOCKED, so two relays never send the same one); a delivery still PENDING when the lease has
 *   passed (its worker died mid-batch) is claimed and sent again, with the same Webhook-Id.
 * - `retry_after_ms`: the Retry-After of the relay's attempt, handed to the retry workflow.
 * - The partial index of deliveries waiting for the relay now excludes finished ones: a delivery
 *   sent by the relay never gets `workflow_started_at`.
 */
export class Migration20261126030000_webhook_first_attempts extends Migration {
  override up(): void {
    this.addSql(`
      alter table webhook_deliveries
        add column route text not null default 'RELAY' check (route in ('RELAY', 'RETRY', 'MANUAL')),
        add column claimed_until timestamptz,
        add column retry_after_ms integer`);
    this.addSql(
      `update webhook_deliveries set route = 'MANUAL' where workflow_started_at is not null or attempts > 0`,
    );
    this.addSql('drop index if exists webhook_deliveries_unstarted_idx');
    this.addSql(
      `create index webhook_deliveries_relay_idx on webhook_deliveries (created_at)
       where status = 'PENDING' and workflow_started_at is null`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists webhook_deliveries_relay_idx');
    this.addSql(
      `create index webhook_deliveries_unstarted_idx on webhook_deliveries (created_at) where workflow_started_at is null`,
    );
    this.addSql(
      'alter table webhook_deliveries drop column route, drop column claimed_until, drop column retry_after_ms',
    );
  }
}
