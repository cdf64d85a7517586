import { deliveryToSend } from '../db/queries/webhooks.js';
import { finishDelivery } from '../db/writes/webhook-deliveries.js';
import type { DeliveryTrigger } from '../domain/webhooks.js';
import { attemptPending, type AttemptResult } from './webhook-attempt.js';
import { createWebhookRelayActivities } from './webhook-relay.js';
import type { ActivityDeps } from './index.js';

export type { AttemptResult } from './webhook-attempt.js';
export type { RelayStepInput, RelayStepResult, WorkflowStarts } from './webhook-relay.js';

/**
 * The effects of webhook delivery: the relay's (activities/webhook-relay.ts: outbox events →
 * deliveries, first attempts, which delivery workflows to start) and the webhook-delivery
 * workflow's (one attempt of a retry or a manual redelivery, and giving up).
 */

export interface AttemptInput {
  deliveryId: string;
  trigger: DeliveryTrigger;
}

/** Every webhook activity: the relay's and the delivery's. */
export function createWebhookActivities(deps: ActivityDeps) {
  return { ...createWebhookRelayActivities(deps), ...createWebhookDeliveryActivities(deps) };
}

/** One attempt of a delivery, and giving up. */
function createWebhookDeliveryActivities(deps: ActivityDeps) {
  return {
    /**
     * One attempt (activities/webhook-attempt.ts). A delivery no longer PENDING (a repeated
     * activity after its attempt was recorded) is answered as it stands, without sending again.
     */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptResult> {
      const delivery = await deliveryToSend(deps.db, input.deliveryId);
      if (!delivery) return { status: 'ABANDONED', outcome: 'SKIPPED' };
      if (delivery.status !== 'PENDING') return { status: delivery.status, outcome: 'SKIPPED' };
      return attemptPending(deps, delivery, input.trigger);
    },

    /** The retry window ended with the delivery still PENDING: it is FAILED. */
    async giveUpWebhookDelivery(input: { deliveryId: string }): Promise<void> {
      await finishDelivery(deps.db, input.deliveryId, 'FAILED', 'RETRY_WINDOW_ENDED');
    },
  };
}
