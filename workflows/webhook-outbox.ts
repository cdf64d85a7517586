import {
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { workflowIds } from './shared.js';
import type { Activities } from './steps.js';
import {
  deliverySearchAttributes,
  WEBHOOK_DELIVERY_WORKFLOW,
  type RetryPlan,
  type WebhookDeliveryInput,
} from './webhook-delivery.contract.js';
import {
  currentRetryPlanQuery,
  retryPlanSignal,
  WEBHOOK_RELAY_DEFAULTS,
  type WebhookOutboxInput,
} from './webhook-outbox.contract.js';

/** Starting workflows is short: a local activity, inside the workflow task. */
const stepping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * The step (first attempts: up to the budget plus one attempt) and the wait for a commit (LISTEN)
 * heartbeat; a worker that dies is noticed within the heartbeat timeout and the activity runs
 * again elsewhere (what the dead worker had claimed is sent again after its lease).
 */
const relaying = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * A run continues as new after this many steps, unless its input says otherwise (or sooner when
 * Temporal suggests it).
 */
const STEPS_PER_RUN = 500;

type DeliveryToStart = Awaited<ReturnType<Activities['relayWebhookDeliveries']>>['toStart'][number];

/** webhook-delivery/{deliveryId} for each delivery: its input, search attributes and memo. */
function startsOf(deliveries: DeliveryToStart[], retry: RetryPlan) {
  return deliveries.map((delivery) => {
    const args: [WebhookDeliveryInput] = [{ ...delivery, trigger: 'AUTOMATIC', retry }];
    return {
      workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
      args,
      searchAttributes: deliverySearchAttributes(delivery),
      memo: { event: delivery.event, subscriptionId: delivery.subscriptionId },
    };
  });
}

/**
 * `webhook-outbox`: each step (one activity) dispatches events, sends first attempts and answers
 * the deliveries that need a workflow (retries); the relay starts one webhook-delivery workflow for
 * each and the next step marks them started, so a crash in between only starts them again (a
 * running one is kept). A step that did nothing is followed by the idle loop (awaitWebhookOutbox),
 * which steps itself on each committed event (and sweeps every waitMs) and hands back only when
 * workflows are to be started or after RELAY_IDLE_SPAN_MS (60 s), so a busy or idle outbox adds
 * (almost) no events to this history. After STEPS_PER_RUN steps it continues as new, handing over
 * the ids still to mark. The retry plan it hands to the delivery workflows is its input's until an
 * API process signals its own (retryPlanSignal, at the process's start): that one from then on, and
 * on to the next run.
 */
export async function webhookOutbox(input: WebhookOutboxInput): Promise<void> {
  const settings = {
    limit: input.limit,
    concurrency: input.concurrency ?? WEBHOOK_RELAY_DEFAULTS.concurrency,
    leaseMs: input.leaseMs ?? WEBHOOK_RELAY_DEFAULTS.leaseMs,
    budgetMs: input.budgetMs ?? WEBHOOK_RELAY_DEFAULTS.budgetMs,
  };
  let retry = input.retry;
  setHandler(retryPlanSignal, (plan) => {
    retry = plan;
  });
  setHandler(currentRetryPlanQuery, () => retry);
  let started = input.started ?? [];
  const stepsPerRun = input.stepsPerRun ?? STEPS_PER_RUN;
  for (let step = 0; step < stepsPerRun && !workflowInfo().continueAsNewSuggested; step++) {
    const { attempted, toStart } = await relaying.relayWebhookDeliveries({ started, ...settings });
    if (toStart.length) {
      await stepping.startWebhookDeliveries({
        workflowType: WEBHOOK_DELIVERY_WORKFLOW,
        taskQueue: workflowInfo().taskQueue,
        starts: startsOf(toStart, retry),
      });
    } else if (!attempted) {
      await relaying.awaitWebhookOutbox({ waitMs: input.waitMs, ...settings });
    }
    started = toStart.map((delivery) => delivery.deliveryId);
  }
  await continueAsNew<typeof webhookOutbox>({ ...input, retry, started });
}
