import {
  DELIVERY_TO_SEND_COLUMNS,
  toDeliveryToSend,
  type DeliveryToSend,
  type DeliveryToSendRow,
} from '../queries/webhooks.js';
import type { Database } from '../orm.js';

/**
 * The relay's claim on the first attempts it is about to send (route RELAY). One statement:
 * `FOR UPDATE SKIP LOCKED` lets two relays (or a relay and a late retry of its own activity) claim
 * at once without ever taking the same delivery, and the lease (`claimed_until`) keeps a claimed
 * delivery from every other relay until it passes. A worker that dies mid-batch leaves its
 * deliveries PENDING and claimed; once the lease has passed the next sweep claims and sends them
 * again, with the same Webhook-Id (at least once; receivers deduplicate on it).
 */
export async function claimFirstAttempts(
  db: Database,
  claim: { limit: number; leaseMs: number },
): Promise<DeliveryToSend[]> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<DeliveryToSendRow>(
      `with claimed as (
         select id from webhook_deliveries
         where status = 'PENDING' and workflow_started_at is null and route = 'RELAY'
           and (claimed_until is null or claimed_until < now())
         order by created_at limit $1 for update skip locked),
       leased as (
         update webhook_deliveries d set claimed_until = now() + make_interval(secs => $2::float8 / 1000)
         from claimed where d.id = claimed.id returning d.*)
       select ${DELIVERY_TO_SEND_COLUMNS}
       from leased d
       join webhook_subscriptions s on s.id = d.subscription_id
       join outbox_events e on e.id = d.outbox_event_id
       order by d.created_at`,
      [claim.limit, claim.leaseMs],
    );
    return rows.map(toDeliveryToSend);
  });
}
