import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.js';
import { DELIVERY_STATUSES, DELIVERY_TRANSITIONS, WEBHOOK_LIMITS } from '../../domain/webhooks.js';
import { Instant, Pagination, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of /api/webhooks (api/customer/webhooks.ts): the schemas that validate and the
 * decisions SPEC leaves open (management beyond creation, delivery, retries, headers, signing).
 */

const TAGS = ['Webhooks'];

const Event = z.enum(WEBHOOK_EVENTS);
const Events = z
  .array(Event)
  .min(1)
  .refine((events) => new Set(events).size === events.length, 'must not name an event twice')
  .meta({ uniqueItems: true, description: `a non-empty set of: ${WEBHOOK_EVENTS.join(', ')}` });
const Url = z
  .string()
  .min(1)
  .max(WEBHOOK_LIMITS.urlMaxLength)
  .meta({ description: 'where notifications are POSTed; https in production', format: 'uri' });
const Secret = z
  .string()
  .min(WEBHOOK_LIMITS.secretMinLength)
  .max(WEBHOOK_LIMITS.secretMaxLength)
  .meta({ description: 'the signing secret (16 to 256 characters); never returned' });

export const SubscriptionBody = z
  .object({ url: Url, events: Events, secret: Secret })
  .strict()
  .meta({ id: 'WebhookSubscriptionRequest' });

export const SubscriptionPatch = z
  .object({
    url: Url.optional(),
    events: Events.optional(),
    secret: Secret.optional(),
    enabled: z
      .boolean()
      .optional()
      .meta({ description: 'true turns a DISABLED subscription (after a 410) back on; false pauses it' }),
  })
  .strict()
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), 'name at least one field');

export const SubscriptionParams = z.object({ id: Uuid }).strict();
export const DeliveryParams = z.object({ id: Uuid, deliveryId: Uuid }).strict();
export const DeliveriesQuery = z
  .object({ status: z.enum(DELIVERY_STATUSES).optional(), ...Pagination })
  .strict();

const Subscription = z
  .object({
    id: IdText,
    url: z.string(),
    events: z.array(Event),
    status: z.enum(['ACTIVE', 'DISABLED']),
    disabledReason: z
      .string()
      .nullable()
      .meta({ description: 'RECEIVER_GONE_410 (the receiver answered 410) or BY_COMPANY; null when ACTIVE' }),
    createdAt: Instant,
    updatedAt: Instant,
    disabledAt: Instant.nullable(),
  })
  .meta({ id: 'WebhookSubscription' });

const Delivery = z
  .object({
    id: IdText.meta({ description: 'the Webhook-Id header: the same for every attempt' }),
    event: Event,
    bookingId: IdText,
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int(),
    lastStatusCode: z.int().nullable(),
    lastError: z
      .string()
      .nullable()
      .meta({ description: 'HTTP 503, TIMEOUT, NETWORK_ERROR ..., TARGET_...' }),
    createdAt: Instant,
    deliveredAt: Instant.nullable(),
    finishedAt: Instant.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

const Attempt = z.object({
  attemptNumber: z.int(),
  trigger: z.enum(['AUTOMATIC', 'MANUAL']),
  attemptedAt: Instant,
  durationMs: z.int(),
  statusCode: z.int().nullable(),
  outcome: z.enum(['DELIVERED', 'RETRY', 'FAILED', 'GONE']),
  error: z.string().nullable(),
  responseExcerpt: z.string().nullable().meta({ description: 'the first 512 characters of the answer' }),
});

const One = successWith(Subscription);
const List = successWith(z.array(Subscription));
const Deliveries = z.object({
  success: z.literal(true),
  data: z.array(Delivery),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
const DeliveryDetail = successWith(Delivery.extend({ attemptLog: z.array(Attempt) }));
const Done = z.object({ success: z.literal(true) });

const AUTH =
  'Authorization: Bearer <company API key> (made by an OWNER or ADMIN in the dashboard); no key is 401 AUTH_REQUIRED, ' +
  "an unknown or revoked one 401 INVALID_CREDENTIAL. The company is always the key's; another company's " +
  'subscription or delivery is 404. No cookie is read, so no CSRF header is needed.';
const WRITE =
  `${AUTH} Changes of a suspended company are 403 COMPANY_SUSPENDED. A key revoked while the change waited is ` +
  '401 INVALID_CREDENTIAL, nothing changed; a revocation that comes later waits for the change.';
const URL_RULES =
  'The url must be an absolute http(s) URL without user name or password; in production it must be https and ' +
  'neither its literal host nor any address it resolves to may be private, loopback, link-local, shared or ' +
  'reserved (400 WEBHOOK_URL_REFUSED with details.reason): an IPv6 address must be global unicast (2000::/3) ' +
  'outside the special-purpose blocks, and one carrying an IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96, 6to4) ' +
  'is judged by that address. It is resolved and checked again before every attempt, ' +
  'and the attempt connects to the address checked (no DNS rebinding). Development and tests allow local ' +
  'receivers (WEBHOOK_ALLOW_LOCAL_TARGETS).';
const DELIVERY =
  "Each event is POSTed as SPEC's body {event, timestamp, data{booking_id, booking_code, trip_id, passenger_count, " +
  'total_amount}, signature}, timestamp being when the event was recorded, ISO 8601 UTC to the microsecond ' +
  '(2026-12-04T10:15:30.123456Z; the same in every attempt of a delivery), with headers Webhook-Id (the ' +
  'delivery id, the same for every attempt: deduplicate on it), Webhook-Event, Webhook-Timestamp and Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of ' +
  '"<Webhook-Id>.<t>.<raw body>"> (the Standard Webhooks scheme: refuse an old t, and a notification replayed ' +
  'under another Webhook-Id fails the check). signature is "sha256=" + hex HMAC-SHA256 of JSON.stringify({event, timestamp, data}) with ' +
  'keys in exactly that order (data: booking_id, booking_code, trip_id, passenger_count, total_amount), the ' +
  'secret as key. Attempts time out after 10 s; redirects are not followed; a 2xx delivers; 408, 429 (Retry-After ' +
  'honoured), 3xx, 5xx, timeouts and network errors are retried with exponential backoff (10 s doubling, at most ' +
  '6 h apart, ±10 % jitter) for 72 hours; any other 4xx is final; 410 also disables the subscription. An answer ' +
  'other than a 2xx from a URL or under a secret the subscription has changed since the request was sent is not ' +
  'final: the delivery is retried to the current URL with the current secret (a 410 from the former URL disables ' +
  'nothing). An event reaches the subscriptions that were ACTIVE and asked for it when it happened, however late ' +
  'it is handed on; one whose subscription has since been disabled, deleted or stopped asking for it is in the ' +
  'delivery log ABANDONED (SUBSCRIPTION_DISABLED, SUBSCRIPTION_DELETED, EVENT_UNSUBSCRIBED), as if it had been ' +
  'waiting then, and can be redelivered. No ordering ' +
  'is guaranteed between deliveries: order by timestamp (the events of one booking carry distinct timestamps in ' +
  'the order they happened). A booking made with POST /bookings is confirmed at once and sends booking.created ' +
  'then booking.confirmed.';
const TRANSITIONS = DELIVERY_TRANSITIONS.map(
  (transition) => `${transition.from.join('|')} → ${transition.to} on ${transition.on}`,
).join('; ');

export const docs = taggedOperations(TAGS, {
  createWebhookSubscription: {
    summary: 'Subscribe to booking and trip events (SPEC "Webhook set-up")',
    description:
      `${WRITE} ${URL_RULES} Events: ${WEBHOOK_EVENTS.join(', ')} (a non-empty set). At most ` +
      `${WEBHOOK_LIMITS.subscriptionsPerCompany} subscriptions per company (409 WEBHOOK_LIMIT_REACHED). ` +
      `Only events that happen after the subscription is made are sent. The same request sent again (the same ` +
      'url, set of events and secret) while the subscription it made is ACTIVE answers that subscription, 200, ' +
      `and makes no second one; a different url, events or secret makes a new one. ${DELIVERY}`,
    responses: {
      ...answers(201, 'Subscribed', One, [400, 401, 403, 409]),
      200: { description: 'The ACTIVE subscription the same request made before', schema: One },
    },
  },
  listWebhookSubscriptions: {
    summary: "The company's webhook subscriptions, oldest first (never their secrets)",
    description: AUTH,
    responses: answers(200, 'Subscriptions', List, [401]),
  },
  getWebhookSubscription: {
    summary: 'One webhook subscription',
    description: AUTH,
    responses: answers(200, 'The subscription', One, [400, 401, 404]),
  },
  updateWebhookSubscription: {
    summary: 'Change url, events or secret, or enable or disable a subscription',
    description:
      `${WRITE} ${URL_RULES} Only the fields sent change (at least one). enabled: false disables it: its ` +
      'PENDING deliveries (those waiting to retry) are ABANDONED at once (lastError SUBSCRIPTION_DISABLED), and so ' +
      'are those of an event dropped from events (EVENT_UNSUBSCRIBED). enabled: true turns a subscription ' +
      'disabled by hand or by a 410 back on; deliveries already ended, abandoned ones included, are not retried ' +
      'by it (redeliver them), and events that happened while it was disabled, or before an event was added to ' +
      'events, are not sent.',
    responses: answers(200, 'The changed subscription', One, [400, 401, 403, 404]),
  },
  deleteWebhookSubscription: {
    summary: 'Delete a subscription',
    description:
      `${WRITE} Nothing more is sent to it; attempts not made yet are abandoned. Its delivery log is kept for the audit. ` +
      "Deleting the company's subscription again (a DELETE sent again) changes nothing and answers 200 as the first did.",
    responses: answers(200, 'Deleted', Done, [400, 401, 403, 404]),
  },
  listWebhookDeliveries: {
    summary: "The subscription's delivery log, newest first",
    description: `${AUTH} Filter by status; limit (1 to 100, default 20) and offset. States: ${TRANSITIONS}.`,
    responses: answers(200, 'Deliveries', Deliveries, [400, 401, 404]),
  },
  getWebhookDelivery: {
    summary: 'One delivery with every attempt (status, time, latency, answer excerpt)',
    description: AUTH,
    responses: answers(200, 'The delivery', DeliveryDetail, [400, 401, 404]),
  },
  redeliverWebhookDelivery: {
    summary: 'Send a delivery again',
    description:
      `${WRITE} A DELIVERED, FAILED or ABANDONED delivery is attempted again at once with the same Webhook-Id (a ` +
      'receiver that processed it already can ignore it), then retried as usual; its attempts are logged with trigger ' +
      'MANUAL. 409 DELIVERY_IN_PROGRESS while it is still PENDING and being attempted (a PENDING delivery whose retry ' +
      'workflow was ended by an operator, so that nothing attempts it any more, is redelivered); ' +
      '409 SUBSCRIPTION_DISABLED when the subscription is ' +
      'disabled; 409 EVENT_UNSUBSCRIBED (details.event) when the subscription no longer asks for the ' +
      "delivery's event (add it to events first); nothing is redelivered. Should events drop it after the 202, the " +
      'delivery is ABANDONED again without an attempt. ' +
      'A company suspended while the request waited is refused 403 COMPANY_SUSPENDED, nothing redelivered. ' +
      `At most ${WEBHOOK_LIMITS.redeliveriesPerMinute} redeliveries per key per minute (429 RATE_LIMITED).`,
    responses: answers(202, 'Redelivery started', Done, [400, 401, 403, 404, 409, 429]),
  },
});
