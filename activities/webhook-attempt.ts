import type { DeliveryToSend } from '../db/queries/webhooks.js';
import { finishDelivery, recordAttempt } from '../db/writes/webhook-deliveries.js';
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
import { resolveTarget, WEBHOOK_LOOKUP_TIMEOUT_MS } from '../providers/webhook-target.js';
import type { ActivityDeps } from './index.js';

/**
 * One HTTP attempt of a PENDING delivery with its log row, shared by the webhook-delivery
 * workflow's activity (retries, manual redeliveries) and the relay's activity (first attempts).
 */

export interface AttemptResult {
  /** The delivery's status after the attempt: PENDING means "retry later". */
  status: DeliveryStatus;
  outcome: AttemptOutcome | 'SKIPPED';
  /** The receiver's Retry-After, in milliseconds. */
  retryAfterMs?: number;
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

/** The signed POST of the delivery to the checked address. */
function send(
  delivery: DeliveryToSend,
  target: Parameters<typeof postWebhook>[0]['target'],
  at: Date,
  timeoutMs: number,
) {
  const notification = { event: delivery.event, timestamp: delivery.occurredAt, data: delivery.data };
  const body = notificationBody(delivery.secret, notification);
  const seconds = Math.floor(at.getTime() / 1000);
  return postWebhook({
    target,
    body,
    timeoutMs,
    // The log keeps characters; one is at most four bytes of UTF-8.
    excerptBytes: WEBHOOK_LIMITS.responseExcerptLength * 4,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'BusBooking-Webhooks/1.0',
      'Webhook-Id': delivery.id,
      'Webhook-Event': delivery.event,
      'Webhook-Timestamp': String(seconds),
      'Webhook-Signature': headerSignature(delivery.secret, delivery.id, seconds, body),
    },
  });
}

/**
 * The relay's first attempt: it hands a retry to a workflow (recordAttempt), and the whole attempt
 * (lookup and HTTP exchange) ends within `deadlineMs`, shorter than a retry's, so that a receiver
 * that hangs holds a relay slot that long at most; one that has not answered by then is a TIMEOUT,
 * retried by the webhook-delivery workflow with the full deadlines.
 */
export interface RelayAttempt {
  deadlineMs: number;
}

/**
 * One attempt of a PENDING delivery: its subscription must still be ACTIVE and ask for its event
 * (else the delivery is ABANDONED, nothing sent), its URL is checked and resolved again, and the
 * signed body is POSTed to the checked address. The attempt is logged with the delivery's new
 * state. `relay`: the relay's first attempt (RelayAttempt).
 */
export async function attemptPending(
  { db, config }: Pick<ActivityDeps, 'db' | 'config'>,
  delivery: DeliveryToSend,
  trigger: DeliveryTrigger,
  relay?: RelayAttempt,
): Promise<AttemptResult> {
  const unwanted =
    delivery.subscriptionStatus !== 'ACTIVE'
      ? `SUBSCRIPTION_${delivery.subscriptionStatus}`
      : !delivery.eventSubscribed && 'EVENT_UNSUBSCRIBED';
  if (unwanted) {
    await finishDelivery(db, delivery.id, 'ABANDONED', unwanted);
    return { status: 'ABANDONED', outcome: 'SKIPPED' };
  }
  const attemptedAt = new Date();
  const until = attemptedAt.getTime() + (relay?.deadlineMs ?? Infinity);
  const target = await resolveTarget(
    delivery.url,
    { allowLocal: config.WEBHOOK_ALLOW_LOCAL_TARGETS },
    undefined,
    Math.min(WEBHOOK_LOOKUP_TIMEOUT_MS, until - Date.now()),
  );
  const logged = {
    deliveryId: delivery.id,
    trigger,
    attemptedAt,
    sentTo: { url: delivery.url, secretVersion: delivery.secretVersion },
  };
  if ('problem' in target) {
    const outcome = target.problem === 'UNRESOLVABLE' ? 'RETRY' : 'FAILED';
    const status = await recordAttempt(db, {
      ...logged,
      durationMs: 0,
      statusCode: null,
      outcome,
      error: `TARGET_${target.problem}`,
      responseExcerpt: null,
      ...(relay ? { byRelay: { retryAfterMs: undefined } } : {}),
    });
    return { status, outcome };
  }
  const timeoutMs = Math.max(0, Math.min(config.WEBHOOK_ATTEMPT_TIMEOUT_MS, until - Date.now()));
  const answer = await send(delivery, target, attemptedAt, timeoutMs);
  const attempt = attemptOf(answer, Date.now());
  const status = await recordAttempt(db, {
    ...logged,
    durationMs: answer.durationMs,
    statusCode: attempt.statusCode,
    outcome: attempt.outcome,
    error: attempt.error,
    responseExcerpt: attempt.excerpt,
    ...(relay ? { byRelay: { retryAfterMs: attempt.retryAfterMs } } : {}),
  });
  return {
    status,
    outcome: attempt.outcome,
    ...(attempt.retryAfterMs === undefined ? {} : { retryAfterMs: attempt.retryAfterMs }),
  };
}
