import { proxyActivities, proxyLocalActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { retryDelayMs } from '../domain/webhooks.js';
import { searchAttributeKeys } from './shared.js';
import { ENFORCING_STEP, type Activities } from './steps.js';
import type {
  DeliveryPhase,
  WebhookDeliveryInput,
  WebhookDeliveryResult,
} from './webhook-delivery.contract.js';

/**
 * An attempt: the target's lookup (5 s at most), its HTTP exchange (WEBHOOK_ATTEMPT_TIMEOUT_MS, 15 s
 * at most) and the database, so 30 s to close; run as a local activity
 * (inside the workflow task, without the activity task's own round trips through the server: about
 * half the server work of a delivery). An attempt that fails (the database away) is retried like
 * every enforcing step; the receiver's own answers are not failures but outcomes the loop acts on.
 */
const delivering = proxyLocalActivities<Activities>(ENFORCING_STEP);
const finishing = proxyActivities<Activities>(ENFORCING_STEP);

const showPhase = (phase: DeliveryPhase) =>
  upsertSearchAttributes([{ key: searchAttributeKeys.processStatus, value: phase }]);

/**
 * The wait before the next attempt after `failed` failed ones; false (and the delivery FAILED)
 * when that wait would pass the retry window that began at `started`.
 */
async function waitToRetry(
  input: WebhookDeliveryInput,
  started: number,
  failed: number,
  retryAfterMs: number | undefined,
): Promise<boolean> {
  const delay = retryDelayMs(input.retry, failed, Math.random(), retryAfterMs);
  if (Date.now() + delay - started > input.retry.windowMs) {
    await finishing.giveUpWebhookDelivery({ deliveryId: input.deliveryId });
    showPhase('FAILED');
    return false;
  }
  showPhase('RETRY_WAIT');
  await sleep(delay);
  showPhase('PENDING');
  return true;
}

/**
 * `webhook-delivery/{deliveryId}`: attempts the delivery; after a retryable failure waits
 * retryDelayMs (exponential with jitter, at least the receiver's Retry-After) and tries again,
 * until a final outcome or the end of the retry window, when the delivery is FAILED. Started for
 * a retry of the relay's first attempt (`retryOf`), it waits before its first attempt.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const started = Date.now();
  let attempts = 0;
  let failed = input.retryOf?.attempts ?? 0;
  if (input.retryOf && !(await waitToRetry(input, started, failed, input.retryOf.retryAfterMs))) {
    return { status: 'FAILED', attempts };
  }
  for (;;) {
    const result = await delivering.attemptWebhookDelivery({
      deliveryId: input.deliveryId,
      trigger: attempts === 0 && !input.retryOf ? input.trigger : 'AUTOMATIC',
    });
    if (result.outcome !== 'SKIPPED') {
      attempts += 1;
      failed += 1;
    }
    if (result.status !== 'PENDING') {
      showPhase(result.status);
      return { status: result.status, attempts };
    }
    if (!(await waitToRetry(input, started, failed, result.retryAfterMs))) {
      return { status: 'FAILED', attempts };
    }
  }
}
