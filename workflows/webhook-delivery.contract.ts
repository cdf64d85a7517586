import type { SearchAttributePair } from '@temporalio/common';
import {
  DEFAULT_RETRY_PLAN,
  scaledRetryPlan,
  type DeliveryStatus,
  type DeliveryTrigger,
  type RetryPlan,
} from '../domain/webhooks.js';
import { processSearchAttributes } from './shared.js';

export {
  DEFAULT_RETRY_PLAN,
  DELIVERY_STATUSES,
  scaledRetryPlan,
  type DeliveryStatus,
  type DeliveryTrigger,
  type RetryPlan,
} from '../domain/webhooks.js';

/**
 * The contract of the `webhookDelivery` workflow (id webhook-delivery/{deliveryId}): one event to
 * one subscription, attempted until it is delivered, refused for good, or its retry window ends.
 * Not every delivery has one: the relay (webhook-outbox) sends the first attempt of each new
 * delivery itself, and starts this workflow (through the worker's client) only when that attempt
 * asks for a retry (`retryOf`: the workflow waits the backoff before its first attempt). The API
 * starts it for a manual redelivery (attempted at once). So the Temporal UI shows retries and
 * redeliveries; a delivery that succeeded (or failed for good) at its first attempt is in the
 * delivery log only. Search attributes: CompanyId, BookingId, ProcessStatus (PENDING, RETRY_WAIT,
 * DELIVERED, FAILED, ABANDONED); memo: event and subscriptionId.
 */
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDelivery';

/** The retry plan from configuration: WEBHOOK_RETRY_HOURS long, every duration after TIME_SCALE. */
export function retryPlanOf(config: { WEBHOOK_RETRY_HOURS: number; TIME_SCALE: number }): RetryPlan {
  return scaledRetryPlan(
    { ...DEFAULT_RETRY_PLAN, windowMs: config.WEBHOOK_RETRY_HOURS * 3_600_000 },
    config.TIME_SCALE,
  );
}

export interface WebhookDeliveryInput {
  deliveryId: string;
  companyId: string;
  bookingId: string;
  subscriptionId: string;
  event: string;
  /** Who asked for the first attempt of this run: the relay (AUTOMATIC) or a company (MANUAL). */
  trigger: DeliveryTrigger;
  retry: RetryPlan;
  /**
   * The relay's attempts so far (1: its first attempt) and the receiver's Retry-After: the
   * workflow waits retryDelayMs for them before its own first attempt. Absent: attempt at once.
   */
  retryOf?: { attempts: number; retryAfterMs?: number };
}

export interface WebhookDeliveryResult {
  status: DeliveryStatus;
  /** Attempts this run made (not the relay's). */
  attempts: number;
}

/** ProcessStatus values of a delivery. */
export type DeliveryPhase = DeliveryStatus | 'RETRY_WAIT';

/**
 * What operators filter a new delivery by in the Temporal UI: its company, its booking's ids (the
 * booking row's and its journey's, when known), PENDING.
 */
export function deliverySearchAttributes(delivery: {
  companyId: string;
  bookingId: string;
  journeyId?: string | null;
}): SearchAttributePair[] {
  return processSearchAttributes({
    companyIds: [delivery.companyId],
    bookingIds: [delivery.bookingId, delivery.journeyId],
    status: 'PENDING',
  });
}
