import type { WebhookEvent, WebhookEventData } from '../../domain/webhook-events.js';
import type {
  AttemptOutcome,
  DeliveryRoute,
  DeliveryStatus,
  DeliveryTrigger,
  SubscriptionStatus,
} from '../../domain/webhooks.js';
import type { Database } from '../orm.js';
import { companyRecordById } from './company-records.js';
import type { Statement } from './statements.js';
import { iso, isoOrNull } from '../row-fields.js';

/**
 * Reads of company webhooks: API keys (the dashboard list and the bearer check), subscriptions,
 * the delivery log, and what one delivery attempt needs. timestamptz arrives as text (db/orm.ts);
 * the mappers turn it into ISO 8601.
 */

export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  key_prefix: string;
  created_at: string;
  created_by: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  prefix: row.key_prefix,
  createdAt: iso(row.created_at),
  createdBy: row.created_by,
  lastUsedAt: isoOrNull(row.last_used_at),
  revokedAt: isoOrNull(row.revoked_at),
});

const API_KEY_COLUMNS = 'id, name, key_prefix, created_at, created_by, last_used_at, revoked_at';

/** The company's keys, unrevoked first, newest first. */
export async function listApiKeys(db: Database, companyId: string): Promise<ApiKeyRecord[]> {
  const rows = await db.query<ApiKeyRow>(
    `select ${API_KEY_COLUMNS} from company_api_keys where company_id = $1
     order by revoked_at is not null, created_at desc`,
    [companyId],
  );
  return rows.map(toApiKey);
}

/** Who a presented key acts for: its company and that company's status, when the key is live. */
export interface ApiKeyHolder {
  keyId: string;
  companyId: string;
  companyStatus: string;
}

export async function liveApiKey(db: Database, keyHash: string): Promise<ApiKeyHolder | undefined> {
  const [row] = await db.query<{ id: string; company_id: string; status: string }>(
    `select k.id, k.company_id, c.status from company_api_keys k join companies c on c.id = k.company_id
     where k.key_hash = $1 and k.revoked_at is null`,
    [keyHash],
  );
  return row && { keyId: row.id, companyId: row.company_id, companyStatus: row.status };
}

export interface SubscriptionRecord {
  id: string;
  url: string;
  events: WebhookEvent[];
  status: SubscriptionStatus;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  disabledAt: string | null;
}

export interface SubscriptionRow {
  id: string;
  url: string;
  events: WebhookEvent[];
  status: SubscriptionStatus;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
}

export const SUBSCRIPTION_COLUMNS =
  'id, url, events, status, disabled_reason, created_at, updated_at, disabled_at';

export const toSubscription = (row: SubscriptionRow): SubscriptionRecord => ({
  id: row.id,
  url: row.url,
  events: row.events,
  status: row.status,
  disabledReason: row.disabled_reason,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
  disabledAt: isoOrNull(row.disabled_at),
});

/** The company's subscriptions (a deleted one is gone), oldest first. */
export async function listSubscriptions(db: Database, companyId: string): Promise<SubscriptionRecord[]> {
  const rows = await db.query<SubscriptionRow>(
    `select ${SUBSCRIPTION_COLUMNS} from webhook_subscriptions
     where company_id = $1 and status <> 'DELETED' order by created_at, id`,
    [companyId],
  );
  return rows.map(toSubscription);
}

/** One subscription of the company; another company's or a deleted one is undefined. */
export const readSubscription = companyRecordById(
  `select ${SUBSCRIPTION_COLUMNS} from webhook_subscriptions s`,
  's',
  toSubscription,
  "s.status <> 'DELETED'",
);

export interface DeliveryRecord {
  id: string;
  event: WebhookEvent;
  bookingId: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  finishedAt: string | null;
}

interface DeliveryRow {
  id: string;
  event: WebhookEvent;
  booking_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  finished_at: string | null;
}

const toDelivery = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  event: row.event,
  bookingId: row.booking_id,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  createdAt: iso(row.created_at),
  deliveredAt: isoOrNull(row.delivered_at),
  finishedAt: isoOrNull(row.finished_at),
});

const DELIVERY_COLUMNS =
  'id, event, booking_id, status, attempts, last_status_code, last_error, created_at, delivered_at, finished_at';

/**
 * A page of the subscription's deliveries, newest first (ties by id), optionally of one status,
 * with the total. The page takes its ids in list order from webhook_deliveries_subscription_idx
 * and reads the rows for those ids only; the total is counted beside it. A page costs the same
 * after a year of deliveries as after a day (the count alone grows with them).
 */
export async function listDeliveries(
  db: Database,
  subscriptionId: string,
  page: { limit: number; offset: number; status?: DeliveryStatus | undefined },
): Promise<{ deliveries: DeliveryRecord[]; total: number }> {
  const statements = deliveryListStatements(subscriptionId, page);
  const [rows, [count]] = await Promise.all([
    db.query<DeliveryRow>(statements.page.text, statements.page.values),
    db.query<{ total: number }>(statements.count.text, statements.count.values),
  ]);
  return { deliveries: rows.map(toDelivery), total: count!.total };
}

/** The two statements behind GET /api/webhooks/{id}/deliveries: the page and the count of its selection. */
function deliveryListStatements(
  subscriptionId: string,
  page: { limit: number; offset: number; status?: DeliveryStatus | undefined },
): { page: Statement; count: Statement } {
  const where = 'subscription_id = $1 and ($2::text is null or status = $2)';
  const selection = [subscriptionId, page.status ?? null];
  return {
    page: {
      text: `select ${DELIVERY_COLUMNS} from webhook_deliveries
              where id in (select id from webhook_deliveries where ${where}
                            order by created_at desc, id limit $3 offset $4)
              order by created_at desc, id`,
      values: [...selection, page.limit, page.offset],
    },
    count: {
      text: `select count(*)::int as total from webhook_deliveries where ${where}`,
      values: selection,
    },
  };
}

export interface AttemptRecord {
  attemptNumber: number;
  trigger: DeliveryTrigger;
  attemptedAt: string;
  durationMs: number;
  statusCode: number | null;
  outcome: AttemptOutcome;
  error: string | null;
  responseExcerpt: string | null;
}

interface AttemptRow {
  attempt_number: number;
  trigger: DeliveryTrigger;
  attempted_at: string;
  duration_ms: number;
  status_code: number | null;
  outcome: AttemptOutcome;
  error: string | null;
  response_excerpt: string | null;
}

/** One delivery of the subscription with every attempt in order; undefined when it is not the subscription's. */
export async function readDelivery(
  db: Database,
  subscriptionId: string,
  deliveryId: string,
): Promise<(DeliveryRecord & { attemptLog: AttemptRecord[] }) | undefined> {
  const [row] = await db.query<DeliveryRow>(
    `select ${DELIVERY_COLUMNS} from webhook_deliveries where id = $1 and subscription_id = $2`,
    [deliveryId, subscriptionId],
  );
  if (!row) return undefined;
  const attempts = await db.query<AttemptRow>(
    `select attempt_number, trigger, attempted_at, duration_ms, status_code, outcome, error, response_excerpt
     from webhook_delivery_attempts where delivery_id = $1 order by attempt_number`,
    [deliveryId],
  );
  return {
    ...toDelivery(row),
    attemptLog: attempts.map((attempt) => ({
      attemptNumber: attempt.attempt_number,
      trigger: attempt.trigger,
      attemptedAt: iso(attempt.attempted_at),
      durationMs: attempt.duration_ms,
      statusCode: attempt.status_code,
      outcome: attempt.outcome,
      error: attempt.error,
      responseExcerpt: attempt.response_excerpt,
    })),
  };
}

/** What an attempt sends: the delivery, its subscription's target and secret, and the event. */
export interface DeliveryToSend {
  id: string;
  status: DeliveryStatus;
  subscriptionStatus: SubscriptionStatus;
  /** Whether the subscription still asks for the delivery's event. */
  eventSubscribed: boolean;
  url: string;
  secret: string;
  /** Counts the subscription's changes of secret: which secret an attempt signs with, not the secret. */
  secretVersion: number;
  event: WebhookEvent;
  /** The notification's timestamp: ISO 8601 UTC to the microsecond (NOTIFICATION_TIMESTAMP). */
  occurredAt: string;
  data: WebhookEventData;
}

/** The row behind DeliveryToSend (DELIVERY_TO_SEND_COLUMNS over d, s and e). */
export interface DeliveryToSendRow {
  id: string;
  status: DeliveryStatus;
  subscription_status: SubscriptionStatus;
  event_subscribed: boolean;
  url: string;
  secret: string;
  secret_version: number;
  event: WebhookEvent;
  /** Already the notification timestamp text (NOTIFICATION_TIMESTAMP), not timestamptz. */
  occurred_at: string;
  data: WebhookEventData;
}

/**
 * An event's occurred_at as the notification's timestamp, written by PostgreSQL to the microsecond
 * it keeps (a Date, and so `iso`, would cut it to the millisecond): the events of one booking are
 * recorded at least 1 µs apart (db/writes/outbox.ts), and receivers are told to order by it. Fixed
 * width, so the text sorts as the instants do; the same text for every attempt of the event.
 */
const NOTIFICATION_TIMESTAMP = `to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Over webhook_deliveries d joined to webhook_subscriptions s and outbox_events e. */
export const DELIVERY_TO_SEND_COLUMNS =
  'd.id, d.status, s.status as subscription_status, e.event = any(s.events) as event_subscribed, s.url, ' +
  's.secret, s.secret_version, e.event, ' +
  `${NOTIFICATION_TIMESTAMP} as occurred_at, e.data`;

export async function deliveryToSend(db: Database, deliveryId: string): Promise<DeliveryToSend | undefined> {
  const [row] = await db.query<DeliveryToSendRow>(
    `select ${DELIVERY_TO_SEND_COLUMNS}
     from webhook_deliveries d
     join webhook_subscriptions s on s.id = d.subscription_id
     join outbox_events e on e.id = d.outbox_event_id
     where d.id = $1`,
    [deliveryId],
  );
  return row && toDeliveryToSend(row);
}

export function toDeliveryToSend(row: DeliveryToSendRow): DeliveryToSend {
  return {
    id: row.id,
    status: row.status,
    subscriptionStatus: row.subscription_status,
    eventSubscribed: row.event_subscribed,
    url: row.url,
    secret: row.secret,
    secretVersion: row.secret_version,
    event: row.event,
    occurredAt: row.occurred_at,
    data: { ...row.data, total_amount: Number(row.data.total_amount) },
  };
}

/** A delivery as the relay starts its workflow: ids for the workflow id and the search attributes. */
export interface DeliveryToStart {
  deliveryId: string;
  companyId: string;
  bookingId: string;
  /** The booking's journey (BookingId lists both); absent from answers recorded by older code. */
  journeyId?: string | null;
  subscriptionId: string;
  event: WebhookEvent;
  /** Set when the relay's own first attempt asked for a retry: the workflow waits before its attempt. */
  retryOf?: { attempts: number; retryAfterMs?: number };
}

/**
 * Deliveries that need a workflow not started yet (a retry after the relay's attempt, or a manual
 * redelivery whose start failed), oldest first.
 */
export async function unstartedDeliveries(db: Database, limit: number): Promise<DeliveryToStart[]> {
  const rows = await db.query<{
    id: string;
    company_id: string;
    booking_id: string;
    journey_id: string | null;
    subscription_id: string;
    event: WebhookEvent;
    route: DeliveryRoute;
    attempts: number;
    retry_after_ms: number | null;
  }>(
    `select d.id, d.company_id, d.booking_id, b.journey_id, d.subscription_id, d.event, d.route, d.attempts, d.retry_after_ms
     from webhook_deliveries d left join bookings b on b.id = d.booking_id
     where d.workflow_started_at is null and d.status = 'PENDING' and d.route <> 'RELAY' order by d.created_at limit $1`,
    [limit],
  );
  return rows.map((row) => ({
    deliveryId: row.id,
    companyId: row.company_id,
    bookingId: row.booking_id,
    journeyId: row.journey_id,
    subscriptionId: row.subscription_id,
    event: row.event,
    ...(row.route === 'RETRY'
      ? {
          retryOf: {
            attempts: row.attempts,
            ...(row.retry_after_ms === null ? {} : { retryAfterMs: row.retry_after_ms }),
          },
        }
      : {}),
  }));
}

/**
 * Whether the relay has something to do: an event not dispatched, a first attempt not claimed (or
 * whose lease has passed), a workflow not started.
 */
export async function hasWebhookWork(db: Database): Promise<boolean> {
  const [row] = await db.query<{ work: boolean }>(
    `select exists (select 1 from outbox_events where dispatched_at is null)
         or exists (select 1 from webhook_deliveries where workflow_started_at is null and status = 'PENDING'
                    and (route <> 'RELAY' or claimed_until is null or claimed_until < now())) as work`,
  );
  return row!.work;
}
