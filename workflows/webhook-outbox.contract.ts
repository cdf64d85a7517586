import type { RetryPlan } from '../domain/webhooks.js';

/**
 * The contract of the `webhookOutbox` workflow (id webhook-outbox, one per namespace): the relay
 * that turns committed outbox events into deliveries and starts webhook-delivery/{deliveryId} for
 * each. The API starts it at boot (a second start joins the running one).
 */
export const WEBHOOK_OUTBOX_WORKFLOW = 'webhookOutbox';

export interface WebhookOutboxInput {
  /** Handed to every delivery it starts. */
  retry: RetryPlan;
  /** Longest wait for a new event when idle: the bound on the lag should a notification be lost. */
  waitMs: number;
  /** Deliveries started per step. */
  limit: number;
  /** Deliveries the previous run started, still to be marked. */
  started?: string[];
}

export const WEBHOOK_RELAY_DEFAULTS = { waitMs: 10_000, limit: 100 } as const;
