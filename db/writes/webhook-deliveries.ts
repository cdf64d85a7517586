import type { AttemptOutcome, DeliveryStatus, DeliveryTrigger } from '../../domain/webhooks.js';
import type { Database, TransactionClient } from '../orm.js';
import { pgCode } from '../pg-errors.js';
import { rowById } from '../sql-runner.js';

/**
 * The delivery side of webhooks: the relay turns committed outbox events into deliveries, and each
 * attempt of the webhook-delivery workflow is recorded with the delivery's new state. Every write
 * is one transaction and safe to run again.
 */

/**
 * Claims up to `limit` events no relay has handled (SKIP LOCKED: two relays never take the same
 * one), makes one delivery per ACTIVE subscription of the event's company that asked for the event
 * and existed when it happened, and marks the events dispatched. Answers how many of each.
 */
export async function dispatchOutboxEvents(
  db: Database,
  limit: number,
): Promise<{ events: number; deliveries: number }> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<{ events: number; deliveries: number }>(
      `with claimed as (
         select id, company_id, event, booking_id, occurred_at from outbox_events
         where dispatched_at is null order by occurred_at limit $1 for update skip locked),
       made as (
         insert into webhook_deliveries (subscription_id, company_id, outbox_event_id, event, booking_id)
         select s.id, c.company_id, c.id, c.event, c.booking_id
         from claimed c
         join webhook_subscriptions s on s.company_id = c.company_id and s.status = 'ACTIVE'
                                     and c.event = any(s.events) and s.created_at <= c.occurred_at
         on conflict (subscription_id, outbox_event_id) do nothing
         returning id),
       marked as (update outbox_events set dispatched_at = now() where id in (select id from claimed) returning id)
       select (select count(*) from marked)::int as events, (select count(*) from made)::int as deliveries`,
      [limit],
    );
    return rows[0]!;
  });
}

/** The relay started these deliveries' workflows (or found them started). */
export async function markDeliveriesStarted(db: Database, deliveryIds: string[]): Promise<void> {
  if (!deliveryIds.length) return;
  await db.transaction(async (client) => {
    await client.query(
      `update webhook_deliveries set workflow_started_at = now() where id = any($1::uuid[]) and workflow_started_at is null`,
      [deliveryIds],
    );
  });
}

export interface AttemptRecordInput {
  deliveryId: string;
  trigger: DeliveryTrigger;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  outcome: AttemptOutcome;
  error: string | null;
  responseExcerpt: string | null;
  /**
   * The relay's first attempt of a delivery it claimed: a retry hands the delivery to a
   * webhook-delivery workflow (route RETRY, with the receiver's Retry-After), and an attempt that
   * finds the delivery already moved on (its lease passed and another relay sent it) is logged
   * without changing the delivery.
   */
  byRelay?: { retryAfterMs: number | undefined };
}

/** The delivery's state after an attempt with this outcome. */
const statusAfter: Record<AttemptOutcome, DeliveryStatus> = {
  DELIVERED: 'DELIVERED',
  RETRY: 'PENDING',
  FAILED: 'FAILED',
  GONE: 'FAILED',
};

/** What an attempt reads of its delivery, under the row lock. */
interface AttemptedDelivery {
  attempts: number;
  subscription_id: string;
  status: DeliveryStatus;
  route: string;
}

/** SQLSTATE class 22: a value the statement cannot store (an encoding, a range). */
const PG_DATA_EXCEPTION_CLASS = '22';

/**
 * Logs one attempt and moves the delivery on (attempt numbers follow each other under the
 * delivery's row lock); a 410 also DISABLES the subscription and abandons its other PENDING
 * deliveries. Answers the delivery's new status. An attempt whose delivery has meanwhile moved on
 * (abandoned by a change of its subscription, or sent by another relay) is only logged.
 *
 * The POST has already been made: should PostgreSQL refuse what the receiver sent (a data
 * exception, SQLSTATE class 22: the same values would be refused on every retry, and each retry of
 * the attempt POSTs again), the attempt is logged without it (no excerpt, no Retry-After) so its
 * outcome still counts. Any other failure (the database away) is thrown, and the attempt retried.
 */
export async function recordAttempt(db: Database, attempt: AttemptRecordInput): Promise<DeliveryStatus> {
  try {
    return await writeAttempt(db, attempt);
  } catch (error) {
    if (!pgCode(error)?.startsWith(PG_DATA_EXCEPTION_CLASS)) throw error;
    return writeAttempt(db, {
      ...attempt,
      responseExcerpt: null,
      ...(attempt.byRelay ? { byRelay: { retryAfterMs: undefined } } : {}),
    });
  }
}

/**
 * A 410 disables the subscription: its row is locked before the delivery's, the order of a PATCH or
 * DELETE of the subscription (the subscription, then its deliveries), so neither waits on the other.
 */
async function lockSubscriptionOf(client: TransactionClient, deliveryId: string): Promise<void> {
  await client.query(
    `select id from webhook_subscriptions
     where id = (select subscription_id from webhook_deliveries where id = $1) for no key update`,
    [deliveryId],
  );
}

/**
 * An attempt whose delivery has meanwhile moved on (ended by a PATCH or DELETE of its subscription
 * while the POST was in flight, or a relay's attempt whose delivery another relay sent) is only
 * logged: the delivery keeps its state.
 */
async function writeAttempt(db: Database, attempt: AttemptRecordInput): Promise<DeliveryStatus> {
  return db.transaction(async (client) => {
    if (attempt.outcome === 'GONE') await lockSubscriptionOf(client, attempt.deliveryId);
    const delivery = (await rowById<AttemptedDelivery>(
      client,
      'attempts, subscription_id, status, route',
      'webhook_deliveries',
      attempt.deliveryId,
      true,
    ))!;
    const overtaken = delivery.status !== 'PENDING' || (attempt.byRelay && delivery.route !== 'RELAY');
    await client.query(
      `insert into webhook_delivery_attempts (delivery_id, attempt_number, trigger, attempted_at, duration_ms, status_code,
                                              outcome, error, response_excerpt)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        attempt.deliveryId,
        delivery.attempts + 1,
        attempt.trigger,
        attempt.attemptedAt,
        attempt.durationMs,
        attempt.statusCode,
        attempt.outcome,
        attempt.error,
        attempt.responseExcerpt,
      ],
    );
    if (overtaken) {
      await client.query(`update webhook_deliveries set attempts = attempts + 1 where id = $1`, [
        attempt.deliveryId,
      ]);
      return delivery.status;
    }
    const status = statusAfter[attempt.outcome];
    const handOff = attempt.byRelay && status === 'PENDING';
    await client.query(
      `update webhook_deliveries set attempts = attempts + 1, last_status_code = $2, last_error = $3, status = $4,
         delivered_at = case when $4 = 'DELIVERED' then now() else delivered_at end,
         finished_at = case when $4 = 'PENDING' then null else now() end,
         route = case when $5 then 'RETRY' else route end,
         retry_after_ms = case when $5 then $6::int else retry_after_ms end,
         claimed_until = null
       where id = $1`,
      [
        attempt.deliveryId,
        attempt.statusCode,
        attempt.error,
        status,
        Boolean(handOff),
        attempt.byRelay?.retryAfterMs ?? null,
      ],
    );
    if (attempt.outcome === 'GONE') {
      await client.query(
        `update webhook_subscriptions set status = 'DISABLED', disabled_reason = 'RECEIVER_GONE_410', disabled_at = now(),
           updated_at = now()
         where id = $1 and status = 'ACTIVE'`,
        [delivery.subscription_id],
      );
      await abandonUnwantedDeliveries(client, delivery.subscription_id);
    }
    return status;
  });
}

/**
 * Ends the PENDING deliveries its subscription no longer wants, in the transaction that changed the
 * subscription (which holds its row lock): all of them when it is not ACTIVE (last error
 * SUBSCRIPTION_DISABLED or SUBSCRIPTION_DELETED), else those of an event it no longer asks for
 * (EVENT_UNSUBSCRIBED). A workflow waiting to retry one finds it ABANDONED and ends; an attempt in
 * flight is only logged (writeAttempt). Answers how many.
 */
export async function abandonUnwantedDeliveries(
  client: TransactionClient,
  subscriptionId: string,
): Promise<number> {
  const { rowCount } = await client.query(
    `update webhook_deliveries d set status = 'ABANDONED', finished_at = now(),
       last_error = case when s.status <> 'ACTIVE' then 'SUBSCRIPTION_' || s.status else 'EVENT_UNSUBSCRIBED' end
     from webhook_subscriptions s
     where s.id = $1 and d.subscription_id = s.id and d.status = 'PENDING'
       and (s.status <> 'ACTIVE' or not d.event = any(s.events))`,
    [subscriptionId],
  );
  return rowCount ?? 0;
}

/** Ends a PENDING delivery without another attempt: FAILED (retry window over) or ABANDONED. */
export async function finishDelivery(
  db: Database,
  deliveryId: string,
  status: 'FAILED' | 'ABANDONED',
  reason: string,
): Promise<void> {
  await db.transaction(async (client) => {
    await client.query(
      `update webhook_deliveries set status = $2, last_error = $3, finished_at = now() where id = $1 and status = 'PENDING'`,
      [deliveryId, status, reason],
    );
  });
}

/**
 * A manual redelivery: the delivery (of the company's ACTIVE subscription) becomes PENDING again,
 * same id, with no workflow started: the caller starts it at once, and should that fail the relay
 * starts it like any other unstarted delivery. Answers what the workflow needs, or why not.
 */
export async function reopenDelivery(
  db: Database,
  scope: { companyId: string; subscriptionId: string; deliveryId: string },
): Promise<
  | { reopened: { bookingId: string; event: string } }
  | { refused: 'NOT_FOUND' | 'SUBSCRIPTION_DISABLED' | 'DELIVERY_IN_PROGRESS' }
> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<{
      status: DeliveryStatus;
      subscription_status: string;
      booking_id: string;
      event: string;
    }>(
      `select d.status, s.status as subscription_status, d.booking_id, d.event
       from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id
       where d.id = $1 and d.subscription_id = $2 and s.company_id = $3 and s.status <> 'DELETED'
       for update of d`,
      [scope.deliveryId, scope.subscriptionId, scope.companyId],
    );
    const row = rows[0];
    if (!row) return { refused: 'NOT_FOUND' as const };
    if (row.subscription_status !== 'ACTIVE') return { refused: 'SUBSCRIPTION_DISABLED' as const };
    if (row.status === 'PENDING') return { refused: 'DELIVERY_IN_PROGRESS' as const };
    await client.query(
      `update webhook_deliveries set status = 'PENDING', finished_at = null, workflow_started_at = null, route = 'MANUAL'
       where id = $1`,
      [scope.deliveryId],
    );
    return { reopened: { bookingId: row.booking_id, event: row.event } };
  });
}
