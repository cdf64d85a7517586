import type { Client } from '@temporalio/client';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import { latestRunStatus } from '../../config/temporal.js';
import { workflowIds } from '../../workflows/shared.js';
import {
  deliverySearchAttributes,
  retryPlanOf,
  WEBHOOK_DELIVERY_WORKFLOW,
  type WebhookDeliveryInput,
} from '../../workflows/webhook-delivery.contract.js';
import {
  relayStart,
  retryPlanSignal,
  WEBHOOK_OUTBOX_WORKFLOW,
} from '../../workflows/webhook-outbox.contract.js';
import { unavailableKind } from '../http/unavailable.js';

type WebhookConfig = Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TIME_SCALE' | 'WEBHOOK_RETRY_HOURS'>;

/**
 * The API's side of webhook delivery. `ensureRelay` starts the one webhook-outbox relay of the
 * namespace (at API start; a relay already running is kept, a closed one is started again; the
 * workers restart one that closes later, worker/relay-keeper.ts) and hands it this process's retry
 * plan (signal-with-start: a running relay hands WEBHOOK_RETRY_HOURS as this process has it to the
 * delivery workflows it starts from then on). `redeliver` starts
 * webhook-delivery/{deliveryId} again for a manual redelivery (same id, a new run);
 * `deliveryRunOpen` tells whether that id has a run still open.
 */
export function webhookClient(temporal: Client, config: WebhookConfig) {
  return {
    async ensureRelay(): Promise<void> {
      await temporal.workflow.signalWithStart(WEBHOOK_OUTBOX_WORKFLOW, {
        ...relayStart(config),
        signal: retryPlanSignal,
        signalArgs: [retryPlanOf(config)],
      });
    },

    /**
     * Whether webhook-delivery/{deliveryId} has a run still open. A PENDING delivery whose run has
     * closed (terminated or cancelled by an operator) will never be attempted again: it may be
     * redelivered. A run Temporal no longer knows of (past the namespace's retention) is closed.
     */
    async deliveryRunOpen(deliveryId: string): Promise<boolean> {
      return (await latestRunStatus(temporal, workflowIds.webhookDelivery(deliveryId))) === 'RUNNING';
    },

    /**
     * Starts the delivery's new run, replacing a run still open under its id. The delivery was
     * reopened because it was no longer PENDING (or its run had closed, deliveryRunOpen), so such a
     * run has recorded its outcome and only its closing workflow task is left: attached to, it
     * would close without an attempt, and the delivery stay PENDING for good. Should the relay have started the reopened delivery a moment
     * before, its run is replaced too (the receiver may then get it twice, with one Webhook-Id).
     */
    async redeliver(
      delivery: Omit<WebhookDeliveryInput, 'trigger' | 'retry'> & { journeyId?: string | null },
    ): Promise<void> {
      const { journeyId: _journeyId, ...delivered } = delivery;
      const input: WebhookDeliveryInput = { ...delivered, trigger: 'MANUAL', retry: retryPlanOf(config) };
      await temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [input],
        workflowIdConflictPolicy: 'TERMINATE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: deliverySearchAttributes(delivery),
        memo: { event: delivery.event, subscriptionId: delivery.subscriptionId, trigger: 'MANUAL' },
      });
    },
  };
}

export type WebhookClient = ReturnType<typeof webhookClient>;

/** Milliseconds between an API process's attempts to start the relay while Temporal does not answer. */
const RELAY_RETRY_MS = 5_000;

/**
 * The API's start of the webhook relay (ensureRelay), in the background: the process listens at
 * once, whether Temporal answers or not. While Temporal is unreachable the start is tried again
 * every RELAY_RETRY_MS until it is made (the workers' relay keeper restarts a closed relay too,
 * but not one an operator cancelled: an API process that starts does); another failure is logged
 * once and left to the relay keeper. Answers the stop, called when the process stops.
 */
export function startRelayOnceReachable(
  webhooks: Pick<WebhookClient, 'ensureRelay'>,
  logger: Logger,
  retryMs = RELAY_RETRY_MS,
): () => void {
  let stopped = false;
  let retried = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = () => {
    webhooks.ensureRelay().then(
      () => {
        if (retried) logger.info('webhook relay started: Temporal answers again');
      },
      (error: unknown) => {
        if (stopped) return;
        const kind = unavailableKind(error);
        if (!kind) {
          logger.error({ err: error }, 'webhook relay not started');
          return;
        }
        logger.warn({ kind }, 'webhook relay not started yet: Temporal does not answer; trying again');
        retried = true;
        timer = setTimeout(attempt, retryMs);
        timer.unref();
      },
    );
  };
  attempt();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
