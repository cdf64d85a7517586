import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { workflowIds } from './shared.js';
import type { Activities } from './steps.js';
import { deliverySearchAttributes, type WebhookDeliveryInput } from './webhook-delivery.contract.js';
import type { WebhookOutboxInput } from './webhook-outbox.contract.js';
import type { webhookDelivery } from './webhook-delivery.js';

/** The claim is one short transaction: a local activity, inside the workflow task. */
const claiming = proxyLocalActivities<Activities>({
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
const STEPS_PER_RUN = 200;

type DeliveryToStart = Awaited<ReturnType<Activities['claimWebhookDeliveries']>>[number];

/** Starts the delivery's workflow as an abandoned child; one already running counts as started. */
async function startDelivery(delivery: DeliveryToStart, input: WebhookOutboxInput): Promise<string> {
  const child: WebhookDeliveryInput = { ...delivery, trigger: 'AUTOMATIC', retry: input.retry };
  try {
    await startChild<typeof webhookDelivery>('webhookDelivery', {
      workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
      args: [child],
      parentClosePolicy: 'ABANDON',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      typedSearchAttributes: deliverySearchAttributes(delivery),
      memo: { event: delivery.event, subscriptionId: delivery.subscriptionId },
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return delivery.deliveryId;
}

/**
 * `webhook-outbox`: each step claims (outbox events → deliveries, the deliveries to start) and
 * starts one webhook-delivery child per delivery, ABANDONed so it outlives this run; the next step
 * marks them started. With nothing to do it waits for the next commit. After STEPS_PER_RUN steps it
 * continues as new, handing over the ids still to mark.
 */
export async function webhookOutbox(input: WebhookOutboxInput): Promise<void> {
  let started = input.started ?? [];
  for (let step = 0; step < STEPS_PER_RUN && !workflowInfo().continueAsNewSuggested; step++) {
    const deliveries = await claiming.claimWebhookDeliveries({ started, limit: input.limit });
    started = await Promise.all(deliveries.map((delivery) => startDelivery(delivery, input)));
    if (!deliveries.length) await waiting.awaitWebhookOutbox({ waitMs: input.waitMs });
  }
  await continueAsNew<typeof webhookOutbox>({ ...input, started });
}
