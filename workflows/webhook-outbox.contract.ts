import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { RetryPlan } from '../domain/webhooks.js';
import { workflowIds } from './shared.js';
import { retryPlanOf } from './webhook-delivery.contract.js';

/**
 * The contract of the `webhookOutbox` workflow (id webhook-outbox, one per namespace): the relay.
 * Its activity turns committed outbox events into deliveries and sends the FIRST attempt of each
 * new delivery itself, many at once, with no workflow (same signing, headers, URL check and
 * attempt log as every attempt): a delivery the receiver takes (or refuses for good: other 4xx,
 * 410) never has a workflow, and operators find it in the delivery log only. A delivery that must
 * wait and retry (network error, timeout, 3xx, 5xx, 408, 429) is handed to a
 * webhook-delivery/{deliveryId} workflow, which the relay starts and which waits the backoff before
 * its first retry; those are the ones in the Temporal UI (CompanyId, BookingId, ProcessStatus).
 * The API starts the relay at boot with retryPlanSignal (signal-with-start: a relay already running
 * is kept and takes that process's retry plan), and every worker starts it again when its run has
 * closed other than by an operator's cancel (worker/relay-keeper.ts), with the worker's plan.
 */
export const WEBHOOK_OUTBOX_WORKFLOW = 'webhookOutbox';

/**
 * The retry plan of an API process's configuration (retryPlanOf: WEBHOOK_RETRY_HOURS), sent with
 * every start of the relay an API process makes: a running relay hands it to the delivery
 * workflows it starts from then on, and on to its next run at continue-as-new.
 */
export const retryPlanSignal = defineSignal<[RetryPlan]>('retryPlan');
/** The retry plan the relay hands to the delivery workflows it starts now. */
export const currentRetryPlanQuery = defineQuery<RetryPlan>('currentRetryPlan');

export interface WebhookOutboxInput {
  /** Handed to every delivery workflow it starts, until a retryPlanSignal brings another. */
  retry: RetryPlan;
  /**
   * How often the idle loop steps (sweeps) when no commit is announced: the bound on the lag should
   * a notification be lost. The loop hands back to the workflow after RELAY_IDLE_SPAN_MS (60 s).
   */
  waitMs: number;
  /** Outbox events per claim; delivery workflows started per step. */
  limit: number;
  /** First attempts in flight at once (default WEBHOOK_RELAY_DEFAULTS). */
  concurrency?: number;
  /**
   * How long a claimed first attempt is the claiming relay's (default WEBHOOK_RELAY_DEFAULTS): a
   * worker that dies mid-step leaves its claims, and the deliveries are sent again (same
   * Webhook-Id) by the first step after the lease has passed.
   */
  leaseMs?: number;
  /** How long one step keeps claiming first attempts (default WEBHOOK_RELAY_DEFAULTS). */
  budgetMs?: number;
  /** Steps a run takes before it continues as new (500 when absent; tests take fewer). */
  stepsPerRun?: number;
  /** Deliveries the previous run started, still to be marked. */
  started?: string[];
}

/**
 * 48 attempts in flight (each is one socket and, at its end, one short transaction: the worker's
 * pool queues them; at most 16 of one company's, and each ends within 2 s: the activity's
 * RELAY_FIRST_ATTEMPTS); a 60 s lease covers an attempt with room; a step claims for 2 s at most,
 * so a retry's workflow starts at most about 4 s (2 s plus the attempts in flight) after its
 * attempt; the idle loop sweeps every 2 s itself and hands back after 60 s (one step and one wait a
 * minute in the relay's history when nothing happens).
 */
export const WEBHOOK_RELAY_DEFAULTS = {
  waitMs: 2_000,
  limit: 100,
  concurrency: 48,
  leaseMs: 60_000,
  budgetMs: 2_000,
} as const;

/**
 * How the relay is started (by the API at boot, with retryPlanSignal; by the worker's keeper): one
 * id per namespace, a start while a run is open joins it, and a closed run (whatever its end) may
 * be followed by a new one.
 */
export function relayStart(config: {
  TEMPORAL_TASK_QUEUE: string;
  WEBHOOK_RETRY_HOURS: number;
  TIME_SCALE: number;
}) {
  const input: WebhookOutboxInput = { retry: retryPlanOf(config), ...WEBHOOK_RELAY_DEFAULTS };
  return {
    workflowId: workflowIds.webhookOutbox(),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [input] as [WebhookOutboxInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
  };
}
