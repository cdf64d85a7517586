import { Context } from '@temporalio/activity';
import type { SearchAttributePair } from '@temporalio/common';
import pg from 'pg';
import {
  deliveryToSend,
  hasWebhookWork,
  unstartedDeliveries,
  type DeliveryToStart,
} from '../db/queries/webhooks.js';
import {
  dispatchOutboxEvents,
  finishDelivery,
  markDeliveriesStarted,
  recordAttempt,
} from '../db/writes/webhook-deliveries.js';
import { headerSignature, notificationBody } from '../domain/webhook-signing.js';
import {
  outcomeOfStatus,
  responseExcerpt,
  retryAfterMs,
  WEBHOOK_LIMITS,
  type AttemptOutcome,
  type DeliveryStatus,
  type DeliveryTrigger,
} from '../domain/webhooks.js';
import { postWebhook, type WebhookAnswer } from '../providers/webhook-sender.js';
import { resolveTarget } from '../providers/webhook-target.js';
import type { ActivityDeps } from './index.js';

/**
 * The effects of webhook delivery: the relay's step (outbox events → deliveries, and which
 * delivery workflows to start) and one HTTP attempt of a delivery with its log row.
 */

/** The relay's step: what to start, after noting what the previous step started. */
export interface RelayStepInput {
  /** Deliveries whose workflows the previous step started. */
  started: string[];
  limit: number;
}

/** Workflows to start, built by the relay workflow (which owns their ids and search attributes). */
export interface WorkflowStarts {
  workflowType: string;
  taskQueue: string;
  starts: {
    workflowId: string;
    args: unknown[];
    searchAttributes: SearchAttributePair[];
    memo: Record<string, unknown>;
  }[];
}

export interface AttemptInput {
  deliveryId: string;
  trigger: DeliveryTrigger;
}

export interface AttemptResult {
  /** The delivery's status after the attempt: PENDING means "retry later". */
  status: DeliveryStatus;
  outcome: AttemptOutcome | 'SKIPPED';
  /** The receiver's Retry-After, in milliseconds. */
  retryAfterMs?: number;
}

/**
 * Waits until the database announces a committed outbox event (LISTEN webhook_outbox), `waitMs`
 * passes or the activity is cancelled; returns at once when `ready()` finds work after LISTEN (a
 * commit between the caller's last look and LISTEN is not missed).
 */
async function outboxNotification(
  databaseUrl: string,
  waitMs: number,
  ready: () => Promise<boolean>,
): Promise<void> {
  const listener = new pg.Client({ connectionString: databaseUrl });
  await listener.connect();
  try {
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    listener.on('notification', () => wake());
    await listener.query('LISTEN webhook_outbox');
    if (await ready()) return;
    const context = Context.current();
    const heartbeat = setInterval(() => context.heartbeat(), 2000);
    try {
      await Promise.race([
        woken,
        new Promise((resolve) => setTimeout(resolve, waitMs)),
        context.cancelled.catch(() => undefined),
      ]);
    } finally {
      clearInterval(heartbeat);
    }
  } finally {
    await listener.end().catch(() => undefined);
  }
}

/** One line for the attempt log from the sender's answer: outcome, status, error, excerpt. */
function attemptOf(answer: WebhookAnswer, now: number) {
  if (answer.kind === 'failed') {
    return {
      outcome: 'RETRY' as const,
      statusCode: null,
      error: answer.error === 'TIMEOUT' ? 'TIMEOUT' : `NETWORK_ERROR ${answer.detail}`,
      excerpt: null,
      retryAfterMs: undefined,
    };
  }
  const outcome = outcomeOfStatus(answer.status);
  return {
    outcome,
    statusCode: answer.status,
    error: outcome === 'DELIVERED' ? null : `HTTP ${answer.status}`,
    excerpt: responseExcerpt(answer.excerpt),
    retryAfterMs: outcome === 'RETRY' ? retryAfterMs(answer.retryAfter, now) : undefined,
  };
}

/** Every webhook activity: the relay's and the delivery's. */
export function createWebhookActivities(deps: ActivityDeps) {
  return { ...createWebhookRelayActivities(deps), ...createWebhookDeliveryActivities(deps) };
}

/** The relay's steps: claim, start, wait. */
function createWebhookRelayActivities({ db, config }: ActivityDeps) {
  return {
    /**
     * The relay's step (a short local activity): marks the previous step's deliveries started,
     * turns committed outbox events into deliveries and answers the deliveries to start.
     */
    async claimWebhookDeliveries(input: RelayStepInput): Promise<DeliveryToStart[]> {
      await markDeliveriesStarted(db, input.started);
      await dispatchOutboxEvents(db, input.limit);
      return unstartedDeliveries(db, input.limit);
    },

    /**
     * Starts the relay's delivery workflows through the worker's client (a plain start costs the
     * server a fraction of a child workflow's start and never wakes the relay when it ends). A
     * workflow already running with the id is kept; one that has ended is run again, and finds its
     * delivery no longer PENDING. Answers the workflow ids.
     */
    async startWebhookDeliveries(input: WorkflowStarts): Promise<string[]> {
      const { client } = Context.current();
      await Promise.all(
        input.starts.map((start) =>
          client.workflow.start(input.workflowType, {
            workflowId: start.workflowId,
            taskQueue: input.taskQueue,
            args: start.args,
            typedSearchAttributes: start.searchAttributes,
            memo: start.memo,
            workflowIdConflictPolicy: 'USE_EXISTING',
            workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          }),
        ),
      );
      return input.starts.map((start) => start.workflowId);
    },

    /**
     * The relay's wait when there is nothing to do: until the next commit of an outbox event
     * (within milliseconds) or waitMs, so a lost notification costs at most waitMs.
     */
    async awaitWebhookOutbox(input: { waitMs: number }): Promise<void> {
      await outboxNotification(config.DATABASE_URL, input.waitMs, () => hasWebhookWork(db));
    },
  };
}

/** One attempt of a delivery, and giving up. */
function createWebhookDeliveryActivities({ db, config }: ActivityDeps) {
  const policy = { allowLocal: config.WEBHOOK_ALLOW_LOCAL_TARGETS };
  return {
    /**
     * One attempt: the subscription must still be ACTIVE (else the delivery is ABANDONED), its URL
     * is checked and resolved again, and the signed body is POSTed to the checked address. The
     * attempt is logged with the delivery's new state. A delivery no longer PENDING (a repeated
     * activity after its attempt was recorded) is answered as it stands, without sending again.
     */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptResult> {
      const delivery = await deliveryToSend(db, input.deliveryId);
      if (!delivery) return { status: 'ABANDONED', outcome: 'SKIPPED' };
      if (delivery.status !== 'PENDING') return { status: delivery.status, outcome: 'SKIPPED' };
      if (delivery.subscriptionStatus !== 'ACTIVE') {
        await finishDelivery(db, delivery.id, 'ABANDONED', `SUBSCRIPTION_${delivery.subscriptionStatus}`);
        return { status: 'ABANDONED', outcome: 'SKIPPED' };
      }
      const attemptedAt = new Date();
      const target = await resolveTarget(delivery.url, policy);
      if ('problem' in target) {
        const outcome = target.problem === 'UNRESOLVABLE' ? 'RETRY' : 'FAILED';
        const status = await recordAttempt(db, {
          deliveryId: delivery.id,
          trigger: input.trigger,
          attemptedAt,
          durationMs: 0,
          statusCode: null,
          outcome,
          error: `TARGET_${target.problem}`,
          responseExcerpt: null,
        });
        return { status, outcome };
      }
      const notification = { event: delivery.event, timestamp: delivery.occurredAt, data: delivery.data };
      const body = notificationBody(delivery.secret, notification);
      const seconds = Math.floor(attemptedAt.getTime() / 1000);
      const answer = await postWebhook({
        target,
        body,
        timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
        excerptBytes: WEBHOOK_LIMITS.responseExcerptLength,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'BusBooking-Webhooks/1.0',
          'Webhook-Id': delivery.id,
          'Webhook-Event': delivery.event,
          'Webhook-Timestamp': String(seconds),
          'Webhook-Signature': headerSignature(delivery.secret, seconds, body),
        },
      });
      const attempt = attemptOf(answer, Date.now());
      const status = await recordAttempt(db, {
        deliveryId: delivery.id,
        trigger: input.trigger,
        attemptedAt,
        durationMs: answer.durationMs,
        statusCode: attempt.statusCode,
        outcome: attempt.outcome,
        error: attempt.error,
        responseExcerpt: attempt.excerpt,
      });
      return {
        status,
        outcome: attempt.outcome,
        ...(attempt.retryAfterMs === undefined ? {} : { retryAfterMs: attempt.retryAfterMs }),
      };
    },

    /** The retry window ended with the delivery still PENDING: it is FAILED. */
    async giveUpWebhookDelivery(input: { deliveryId: string }): Promise<void> {
      await finishDelivery(db, input.deliveryId, 'FAILED', 'RETRY_WINDOW_ENDED');
    },
  };
}
