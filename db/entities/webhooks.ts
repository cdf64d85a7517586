import { p } from '@mikro-orm/core';
import {
  DELIVERY_ATTEMPT_OUTCOMES,
  DELIVERY_STATUSES,
  DELIVERY_ROUTES,
  DELIVERY_TRIGGERS,
  SUBSCRIPTION_STATUSES,
} from '../../domain/webhooks.js';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.js';
import { baseEntity, companyEntity, idEntity, updatedAt } from './base.js';

/**
 * Company webhooks (migration 20261124060000): the API keys a company sets up its subscriptions
 * with, the subscriptions, one delivery per subscription and outbox event, and every attempt.
 */

/** A company API key: only its SHA-256 is stored, and its first characters to tell keys apart. */
export const CompanyApiKey = companyEntity('CompanyApiKey', 'company_api_keys', {
  name: p.text(),
  keyPrefix: p.text(),
  keyHash: p.text().unique(),
  createdBy: p.uuid(),
  lastUsedAt: p.datetime().nullable(),
  revokedAt: p.datetime().nullable(),
  revokedBy: p.uuid().nullable(),
});

export const WebhookSubscription = companyEntity('WebhookSubscription', 'webhook_subscriptions', {
  url: p.text(),
  events: p.enum(WEBHOOK_EVENTS).array(),
  /** The signing secret as given: HMAC needs it. Never returned by any route. */
  secret: p.text(),
  /** Counts changes of the secret: tells an answer given under an earlier secret (recordAttempt). */
  secretVersion: p.integer().default(1),
  status: p.enum(SUBSCRIPTION_STATUSES).default('ACTIVE'),
  disabledReason: p.text().nullable(),
  createdByKeyId: p.uuid(),
  updatedAt: updatedAt(),
  disabledAt: p.datetime().nullable(),
  deletedAt: p.datetime().nullable(),
});

/**
 * A subscription's status and events from `validFrom` on, written by a trigger on every change of
 * either (migration 20261205100000): the relay matches an event against how its subscriptions
 * stood when it happened.
 */
export const WebhookSubscriptionHistory = idEntity(
  'WebhookSubscriptionHistory',
  'webhook_subscription_history',
  {
    subscriptionId: p.uuid(),
    validFrom: p.datetime().defaultRaw('clock_timestamp()'),
    status: p.enum(SUBSCRIPTION_STATUSES),
    events: p.enum(WEBHOOK_EVENTS).array(),
  },
);

/** One event for one subscription; its id is the Webhook-Id header. */
export const WebhookDelivery = baseEntity('WebhookDelivery', 'webhook_deliveries', {
  subscriptionId: p.uuid(),
  companyId: p.uuid(),
  outboxEventId: p.uuid(),
  event: p.text(),
  bookingId: p.uuid(),
  status: p.enum(DELIVERY_STATUSES).default('PENDING'),
  attempts: p.integer().default(0),
  lastStatusCode: p.integer().nullable(),
  lastError: p.text().nullable(),
  workflowStartedAt: p.datetime().nullable(),
  route: p.enum(DELIVERY_ROUTES).default('RELAY'),
  claimedUntil: p.datetime().nullable(),
  retryAfterMs: p.integer().nullable(),
  deliveredAt: p.datetime().nullable(),
  finishedAt: p.datetime().nullable(),
});

export const WebhookDeliveryAttempt = idEntity('WebhookDeliveryAttempt', 'webhook_delivery_attempts', {
  deliveryId: p.uuid(),
  attemptNumber: p.integer(),
  trigger: p.enum(DELIVERY_TRIGGERS),
  attemptedAt: p.datetime(),
  durationMs: p.integer(),
  statusCode: p.integer().nullable(),
  outcome: p.enum(DELIVERY_ATTEMPT_OUTCOMES),
  error: p.text().nullable(),
  responseExcerpt: p.text().nullable(),
});
