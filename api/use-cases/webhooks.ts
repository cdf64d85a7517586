import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import type { ApiKeyRecord } from '../../db/queries/webhooks.js';
import type { ActingMember } from '../../db/writes/acting-member.js';
import { createApiKey } from '../../db/writes/api-keys.js';
import { markDeliveriesStarted, reopenDelivery } from '../../db/writes/webhook-deliveries.js';
import {
  createSubscription,
  updateSubscription,
  type KeyActor,
  type SubscriptionChange,
  type SubscriptionFields,
} from '../../db/writes/webhook-subscriptions.js';
import type { RequestOrigin } from '../../db/writes/audit.js';
import { API_KEY_PREFIX, API_KEY_SHOWN_CHARACTERS } from '../../domain/webhooks.js';
import { resolveTarget } from '../../providers/webhook-target.js';
import { hashSecret, newSecret } from '../auth/secrets.js';
import { Refusal } from '../http/errors.js';
import type { WebhookClient } from '../temporal/webhook-client.js';

/**
 * Company webhooks as the routes use them: API keys made in the dashboard, subscriptions whose URL
 * is checked before it is saved, and manual redelivery.
 */

/**
 * A new key: shown once in the answer; only its SHA-256 and first characters are stored. The member
 * making it is checked again in its transaction (createApiKey).
 */
export async function issueApiKey(
  db: Database,
  staff: { companyId: string; actor: ActingMember },
  name: string,
  origin: RequestOrigin,
): Promise<ApiKeyRecord & { key: string }> {
  const key = `${API_KEY_PREFIX}${newSecret(32)}`;
  const { companyId, actor } = staff;
  const keyPrefix = key.slice(0, API_KEY_SHOWN_CHARACTERS);
  const record = await createApiKey(
    db,
    { companyId, staffUserId: actor.staffUserId, name, keyHash: hashSecret(key), keyPrefix },
    origin,
    actor,
  );
  return { ...record, key };
}

const REASONS: Record<string, string> = {
  NOT_A_URL: 'must be an absolute http(s) URL',
  TOO_LONG: 'is longer than 2048 characters',
  HTTPS_REQUIRED: 'must use https',
  CREDENTIALS_IN_URL: 'must not carry a user name or password',
  PRIVATE_ADDRESS: 'must not point at a private, loopback, link-local or reserved address',
};

/**
 * The URL as written and, when local targets are not allowed, every address its host resolves to
 * now (delivery checks again before each attempt). A host that does not resolve yet is accepted.
 */
async function requireTarget(
  config: Pick<Config, 'WEBHOOK_ALLOW_LOCAL_TARGETS'>,
  url: string,
): Promise<void> {
  const checked = await resolveTarget(url, { allowLocal: config.WEBHOOK_ALLOW_LOCAL_TARGETS });
  if (!('problem' in checked) || checked.problem === 'UNRESOLVABLE') return;
  throw new Refusal(400, 'WEBHOOK_URL_REFUSED', `The webhook url ${REASONS[checked.problem]}`, {
    reason: checked.problem,
  });
}

export interface WebhookDeps {
  db: Database;
  config: Pick<Config, 'WEBHOOK_ALLOW_LOCAL_TARGETS'>;
}

export async function subscribe(
  deps: WebhookDeps,
  actor: KeyActor,
  fields: SubscriptionFields,
  origin: RequestOrigin,
) {
  await requireTarget(deps.config, fields.url);
  return createSubscription(deps.db, actor, fields, origin);
}

export async function changeSubscription(
  deps: WebhookDeps,
  actor: KeyActor,
  id: string,
  change: SubscriptionChange,
  origin: RequestOrigin,
) {
  if (change.url !== undefined) await requireTarget(deps.config, change.url);
  return updateSubscription(deps.db, actor, id, change, origin);
}

type RedeliveryRefused = Extract<Awaited<ReturnType<typeof reopenDelivery>>, { refused: string }>['refused'];
/** Each refusal of a redelivery as the client sees it; `event` is the delivery's, for EVENT_UNSUBSCRIBED. */
const REDELIVERY_REFUSALS: Record<RedeliveryRefused, (event?: string) => Refusal> = {
  NOT_FOUND: () => new Refusal(404, 'NOT_FOUND', 'Not found'),
  SUBSCRIPTION_DISABLED: () =>
    new Refusal(
      409,
      'SUBSCRIPTION_DISABLED',
      'The subscription is disabled; enable it first (PATCH enabled: true)',
    ),
  EVENT_UNSUBSCRIBED: (event) =>
    new Refusal(
      409,
      'EVENT_UNSUBSCRIBED',
      `The subscription no longer asks for ${event}; add it to events first (PATCH events)`,
      { event },
    ),
  DELIVERY_IN_PROGRESS: () =>
    new Refusal(409, 'DELIVERY_IN_PROGRESS', 'This delivery is still being attempted; wait for its outcome'),
};

/**
 * Sends a delivery again (same delivery id, so a receiver that has it already can ignore it). A
 * PENDING delivery is refused while its workflow runs (or is yet to start); one whose run has closed
 * without an outcome (terminated or cancelled in the Temporal UI) is redelivered like a finished one.
 * One of an event the subscription no longer asks for is refused, nothing started (reopenDelivery).
 */
export async function redeliver(
  deps: WebhookDeps & { webhooks: WebhookClient },
  actor: KeyActor,
  subscriptionId: string,
  deliveryId: string,
): Promise<void> {
  const scope = { ...actor, subscriptionId, deliveryId };
  let reopened = await reopenDelivery(deps.db, scope);
  if ('startedAt' in reopened && reopened.startedAt && !(await deps.webhooks.deliveryRunOpen(deliveryId))) {
    reopened = await reopenDelivery(deps.db, { ...scope, closedRun: reopened.startedAt });
  }
  if ('refused' in reopened) {
    throw REDELIVERY_REFUSALS[reopened.refused]('event' in reopened ? reopened.event : undefined);
  }
  await deps.webhooks.redeliver({
    deliveryId,
    companyId: actor.companyId,
    bookingId: reopened.reopened.bookingId,
    journeyId: reopened.reopened.journeyId,
    subscriptionId,
    event: reopened.reopened.event,
  });
  await markDeliveriesStarted(deps.db, [deliveryId]);
}
