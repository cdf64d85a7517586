import type { AttemptOutcome, DeliveryStatus, DeliveryTrigger } from '../../domain/webhooks.js';
import type { Database, TransactionClient } from '../orm.js';
import { pgCode } from '../pg-errors.js';
import { rowById } from '../sql-runner.js';
import { companyTransaction } from './active-company.js';

/**
 * The delivery side of webhooks: the relay turns committed outbox events into deliveries, and each
 * attempt of the webhook-delivery workflow is recorded with the delivery's new state. Every write
 * is one transaction and safe to run again.
 */

/**
 * Claims up to `limit` events no relay has handled (SKIP LOCKED: two relays never take the same
 * one), makes their deliveries and marks the events dispatched. Answers how many of each.
 *
 * Whether an event reaches a subscription is decided by how the subscription stood when the event
 * happened, not when the relay gets to it (a relay behind by a worker outage or a backlog decides
 * as one on time would have):
 * - a delivery is made for each subscription of the event's company that, at the event's
 *   `occurred_at`, was ACTIVE and asked for the event (webhook_subscription_history: its status and
 *   events from each change on, stamped by the same clock as occurred_at, Migration20261205100000);
 *   one created after the event, or then DISABLED or not asking for it, gets none;
 * - such a delivery is made already ABANDONED when the subscription has since stopped wanting it
 *   (disabled, deleted, or the event dropped from `events`; re-enabled later or not), with the
 *   reason of the first such change: the state a relay on time would have left it in, its PENDING
 *   delivery abandoned by that change (abandonUnwantedDeliveries). It is in the delivery log and
 *   can be redelivered;
 * - the subscriptions are read after their changes in flight have committed: they are taken FOR
 *   SHARE (a PATCH, a DELETE or a 410 holds the row's update lock), so a change stamped before an
 *   event but committed after it is not missed, and a change that waits for this lock is stamped
 *   after every event claimed here, which had all committed. A creation needs no lock here: it holds
 *   its company's row FOR UPDATE, and an event's insert its company's FOR KEY SHARE (the foreign
 *   key), so an event that overlaps a creation commits after it.
 */
export async function dispatchOutboxEvents(
  db: Database,
  limit: number,
): Promise<{ events: number; deliveries: number }> {
  return db.transaction(async (client) => {
    const { rows: claimed } = await client.query<{ id: string; company_id: string }>(
      `select id, company_id from outbox_events
       where dispatched_at is null order by occurred_at limit $1 for update skip locked`,
      [limit],
    );
    if (!claimed.length) return { events: 0, deliveries: 0 };
    const companyIds = [...new Set(claimed.map((event) => event.company_id))];
    await client.query(
      `select id from webhook_subscriptions where company_id = any($1::uuid[]) and status <> 'DELETED'
       order by id for share`,
      [companyIds],
    );
    const { rows } = await client.query<{ deliveries: number }>(
      `with claimed as (
         select id, company_id, event, booking_id, occurred_at from outbox_events where id = any($1::uuid[])),
       wanted as (
         select s.id as subscription_id, c.company_id, c.id as event_id, c.event, c.booking_id,
                (select case when h.status <> 'ACTIVE' then 'SUBSCRIPTION_' || h.status else 'EVENT_UNSUBSCRIBED' end
                 from webhook_subscription_history h
                 where h.subscription_id = s.id and h.valid_from > c.occurred_at
                   and (h.status <> 'ACTIVE' or not c.event = any(h.events))
                 order by h.valid_from limit 1) as abandoned_by
         from claimed c
         join webhook_subscriptions s on s.company_id = c.company_id
         join lateral (
           select h.status, h.events from webhook_subscription_history h
           where h.subscription_id = s.id and h.valid_from <= c.occurred_at
           order by h.valid_from desc limit 1) at_event on true
         where at_event.status = 'ACTIVE' and c.event = any(at_event.events)),
       made as (
         insert into webhook_deliveries (subscription_id, company_id, outbox_event_id, event, booking_id,
                                         status, last_error, finished_at)
         select subscription_id, company_id, event_id, event, booking_id,
                case when abandoned_by is null then 'PENDING' else 'ABANDONED' end, abandoned_by,
                case when abandoned_by is null then null else now() end
         from wanted
         on conflict (subscription_id, outbox_event_id) do nothing
         returning id),
       marked as (update outbox_events set dispatched_at = now() where id = any($1::uuid[]) returning id)
       select (select count(*) from made)::int as deliveries`,
      [claimed.map((event) => event.id)],
    );
    return { events: claimed.length, deliveries: rows[0]!.deliveries };
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
   * Where the request went and under which secret (its version, never the secret): an answer from a
   * URL or under a secret the subscription has since changed (a PATCH while the POST was in flight)
   * says nothing of its current receiver (writeAttempt).
   */
  sentTo: SentTo;
  /**
   * The relay's first attempt of a delivery it claimed: a retry hands the delivery to a
   * webhook-delivery workflow (route RETRY, with the receiver's Retry-After), and an attempt that
   * finds the delivery already moved on (its lease passed and another relay sent it) is logged
   * without changing the delivery.
   */
  byRelay?: { retryAfterMs: number | undefined };
}

/** The subscription's URL and secret version an attempt was made with (DeliveryToSend). */
export interface SentTo {
  url: string;
  secretVersion: number;
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
 * (abandoned by a change of its subscription, or sent by another relay) is only logged. An answer
 * from a URL or under a secret the subscription has since left is not final: the delivery stays
 * PENDING and is retried to the current URL with the current secret (writeAttempt).
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
 * The URL and secret version the delivery's subscription has now. A 410, which may disable it,
 * locks its row (FOR NO KEY UPDATE) before the delivery's, the order of a PATCH or DELETE of the
 * subscription (the subscription, then its deliveries), so neither waits on the other. Any other
 * answer only reads it: a PATCH that commits meanwhile is ordered after the attempt's record.
 */
async function subscriptionOf(
  client: TransactionClient,
  deliveryId: string,
  forGone: boolean,
): Promise<{ url: string; secret_version: number }> {
  const { rows } = await client.query<{ url: string; secret_version: number }>(
    `select url, secret_version from webhook_subscriptions
     where id = (select subscription_id from webhook_deliveries where id = $1)
     ${forGone ? 'for no key update' : ''}`,
    [deliveryId],
  );
  return rows[0]!;
}

/**
 * The delivery's state after the attempt. An answer other than a delivery from a URL or under a
 * secret the subscription has since changed is not its current receiver's: the delivery is retried
 * (PENDING), to the current URL with the current secret, rather than FAILED for good. A delivery the
 * former receiver accepted is DELIVERED: it was the subscription's receiver when it was sent.
 */
function statusOf(attempt: AttemptRecordInput, endpointChanged: boolean): DeliveryStatus {
  return endpointChanged && attempt.outcome !== 'DELIVERED' ? 'PENDING' : statusAfter[attempt.outcome];
}

/**
 * An attempt whose delivery has meanwhile moved on (ended by a PATCH or DELETE of its subscription
 * while the POST was in flight, or a relay's attempt whose delivery another relay sent) is only
 * logged: the delivery keeps its state. A 410 disables the subscription only while it still has the
 * URL and secret the attempt was made with (statusOf).
 */
async function writeAttempt(db: Database, attempt: AttemptRecordInput): Promise<DeliveryStatus> {
  return db.transaction(async (client) => {
    const endpoint = await subscriptionOf(client, attempt.deliveryId, attempt.outcome === 'GONE');
    const endpointChanged =
      endpoint.url !== attempt.sentTo.url || endpoint.secret_version !== attempt.sentTo.secretVersion;
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
    const status = statusOf(attempt, endpointChanged);
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
    if (attempt.outcome === 'GONE' && !endpointChanged) {
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
 * A manual redelivery: the delivery (of the company's ACTIVE subscription, which still asks for its
 * event) becomes PENDING again, same id, with no workflow started: the caller starts it at once, and
 * should that fail the relay starts it like any other unstarted delivery. Answers what the workflow
 * needs, or why not. A company write (companyTransaction): a suspension committed after the
 * request's key check refuses it, 403 COMPANY_SUSPENDED, and the key's revocation 401
 * INVALID_CREDENTIAL, nothing reopened.
 *
 * A PENDING delivery is refused DELIVERY_IN_PROGRESS, with `startedAt` when its workflow was
 * started: the caller asks Temporal whether that run is still open, and when it has closed without
 * an outcome (terminated or cancelled in the Temporal UI: nothing would ever attempt the delivery
 * again) calls again with `closedRun` set to that `startedAt`. The delivery is then reopened only
 * if it is still PENDING with that very start, so a redelivery started meanwhile is not replaced.
 *
 * An event the subscription no longer asks for (dropped from `events` since the delivery was made)
 * is refused EVENT_UNSUBSCRIBED: its attempt would only abandon it again (attemptPending), so the
 * client is told now rather than answered 202 for nothing. The attempt keeps its own check, for a
 * PATCH of `events` committed after this answer.
 */
export async function reopenDelivery(
  db: Database,
  scope: {
    companyId: string;
    keyId: string;
    subscriptionId: string;
    deliveryId: string;
    /** The workflow_started_at (as text) of a PENDING delivery whose run Temporal shows closed. */
    closedRun?: string;
  },
): Promise<
  | { reopened: { bookingId: string; journeyId: string | null; event: string } }
  | { refused: 'NOT_FOUND' | 'SUBSCRIPTION_DISABLED' }
  | { refused: 'EVENT_UNSUBSCRIBED'; event: string }
  | { refused: 'DELIVERY_IN_PROGRESS'; startedAt: string | null }
> {
  const company = { companyId: scope.companyId, actor: { keyId: scope.keyId } };
  return companyTransaction(db, company, 'share', async (client) => {
    // The delivery first, then what it is read with, in a statement of its own: an attempt answered
    // 410 holds the delivery while it disables the subscription, and a statement that waited for the
    // delivery would still see the subscription ACTIVE.
    await client.query(`select 1 from webhook_deliveries where id = $1 and subscription_id = $2 for update`, [
      scope.deliveryId,
      scope.subscriptionId,
    ]);
    const { rows } = await client.query<{
      status: DeliveryStatus;
      subscription_status: string;
      booking_id: string;
      journey_id: string | null;
      event: string;
      event_subscribed: boolean;
      started_at: string | null;
    }>(
      `select d.status, s.status as subscription_status, d.booking_id, d.event, d.event = any(s.events) as event_subscribed,
              d.workflow_started_at::text as started_at, (select journey_id from bookings where id = d.booking_id) as journey_id
       from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id
       where d.id = $1 and d.subscription_id = $2 and s.company_id = $3 and s.status <> 'DELETED'`,
      [scope.deliveryId, scope.subscriptionId, scope.companyId],
    );
    const row = rows[0];
    if (!row) return { refused: 'NOT_FOUND' as const };
    if (row.subscription_status !== 'ACTIVE') return { refused: 'SUBSCRIPTION_DISABLED' as const };
    if (!row.event_subscribed) return { refused: 'EVENT_UNSUBSCRIBED' as const, event: row.event };
    const runClosed = row.started_at !== null && row.started_at === scope.closedRun;
    if (row.status === 'PENDING' && !runClosed) {
      return { refused: 'DELIVERY_IN_PROGRESS' as const, startedAt: row.started_at };
    }
    await client.query(
      `update webhook_deliveries set status = 'PENDING', finished_at = null, workflow_started_at = null, route = 'MANUAL'
       where id = $1`,
      [scope.deliveryId],
    );
    return { reopened: { bookingId: row.booking_id, journeyId: row.journey_id, event: row.event } };
  });
}
