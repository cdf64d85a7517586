import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { continueAsNew, proxyActivities, startChild } from '@temporalio/workflow';
import { searchAttributeKeys, workflowIds } from './shared.js';
import type { Activities } from './steps.js';
import type { WebhookDeliveryInput } from './webhook-delivery.contract.js';
import type { WebhookOutboxInput } from './webhook-outbox.contract.js';
import type { webhookDelivery } from './webhook-delivery.js';

/**
 * The step waits for a commit (LISTEN) while idle and heartbeats meanwhile; a worker that dies is
 * noticed within the heartbeat timeout and the step runs again elsewhere.
 */
const relaying = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * `webhook-outbox`: one step (outbox events → deliveries, the deliveries to start), then a
 * webhook-delivery child per delivery, ABANDONed so it outlives this run, then continue-as-new with
 * the ids started, which the next step marks. Each run stays a few events long, and child
 * completions never wake a closed run. A delivery whose workflow is already running (a manual
 * redelivery, a start repeated after a crash) counts as started.
 */
export async function webhookOutbox(input: WebhookOutboxInput): Promise<void> {
  const deliveries = await relaying.nextWebhookDeliveries({
    started: input.started ?? [],
    waitMs: input.waitMs,
    limit: input.limit,
  });
  const started = await Promise.all(
    deliveries.map(async (delivery) => {
      const child: WebhookDeliveryInput = { ...delivery, trigger: 'AUTOMATIC', retry: input.retry };
      try {
        await startChild<typeof webhookDelivery>('webhookDelivery', {
          workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
          args: [child],
          parentClosePolicy: 'ABANDON',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          typedSearchAttributes: [
            { key: searchAttributeKeys.companyIds, value: [delivery.companyId] },
            { key: searchAttributeKeys.bookingId, value: delivery.bookingId },
            { key: searchAttributeKeys.processStatus, value: 'PENDING' },
          ],
          memo: { event: delivery.event, subscriptionId: delivery.subscriptionId },
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      return delivery.deliveryId;
    }),
  );
  await continueAsNew<typeof webhookOutbox>({ ...input, started });
}
