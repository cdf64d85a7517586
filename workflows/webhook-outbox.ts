import { proxyActivities, proxyLocalActivities, workflowInfo, continueAsNew } from '@temporalio/workflow';
import { workflowIds } from './shared.js';
import type { Activities } from './steps.js';
import {
  deliverySearchAttributes,
  WEBHOOK_DELIVERY_WORKFLOW,
  type WebhookDeliveryInput,
} from './webhook-delivery.contract.js';
import type { WebhookOutboxInput } from './webhook-outbox.contract.js';

/** Claiming and starting are short: local activities, inside the workflow task. */
const stepping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * The wait for a commit (LISTEN) heartbeats; a worker that dies is noticed within the heartbeat
 * timeout and the wait runs again elsewhere.
 */
const waiting = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** A run continues as new after this many steps (or sooner when Temporal suggests it). */
const STEPS_PER_RUN = 500;

type DeliveryToStart = Awaited<ReturnType<Activities['claimWebhookDeliveries']>>[number];

/** webhook-delivery/{deliveryId} for each delivery: its input, search attributes and memo. */
function startsOf(deliveries: DeliveryToStart[], input: WebhookOutboxInput) {
  return deliveries.map((delivery) => {
    const args: [WebhookDeliveryInput] = [{ ...delivery, trigger: 'AUTOMATIC', retry: input.retry }];
    return {
      workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
      args,
      searchAttributes: deliverySearchAttributes(delivery),
      memo: { event: delivery.event, subscriptionId: delivery.subscriptionId },
    };
  });
}

/**
 * `webhook-outbox`: each step claims (outbox events → deliveries, the deliveries to start) and
 * starts one webhook-delivery workflow per delivery; the next step marks them started, so a crash
 * in between only starts them again (a running one is kept). With nothing to do it waits for the
 * next commit. After STEPS_PER_RUN steps it continues as new, handing over the ids still to mark.
 */
export async function webhookOutbox(input: WebhookOutboxInput): Promise<void> {
  let started = input.started ?? [];
  for (let step = 0; step < STEPS_PER_RUN && !workflowInfo().continueAsNewSuggested; step++) {
    const deliveries = await stepping.claimWebhookDeliveries({ started, limit: input.limit });
    if (deliveries.length) {
      await stepping.startWebhookDeliveries({
        workflowType: WEBHOOK_DELIVERY_WORKFLOW,
        taskQueue: workflowInfo().taskQueue,
        starts: startsOf(deliveries, input),
      });
    } else {
      await waiting.awaitWebhookOutbox({ waitMs: input.waitMs });
    }
    started = deliveries.map((delivery) => delivery.deliveryId);
  }
  await continueAsNew<typeof webhookOutbox>({ ...input, started });
}
