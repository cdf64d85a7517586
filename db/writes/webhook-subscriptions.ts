import type { WebhookEvent } from '../../domain/webhook-events.js';
import { Refusal } from '../../domain/refusal.js';
import { WEBHOOK_LIMITS } from '../../domain/webhooks.js';
import type { Database, TransactionClient } from '../orm.js';
import {
  SUBSCRIPTION_COLUMNS,
  toSubscription,
  type SubscriptionRecord,
  type SubscriptionRow,
} from '../queries/webhooks.js';
import { companyTransaction } from './active-company.js';
import { recordAudit, type RequestOrigin } from './audit.js';
import { abandonUnwantedDeliveries } from './webhook-deliveries.js';

/**
 * A company's webhook subscriptions, changed with one of its API keys (POST, PATCH and DELETE
 * /api/webhooks). Each change is one transaction with its audit row (actor SYSTEM: an API key, its
 * id as the actor). The company comes from the key, never from the body. Each takes the company row,
 * then checks its key again, still unrevoked, holding it for share until it commits
 * (companyTransaction's actor): a revocation committed while the request waited refuses it (401
 * INVALID_CREDENTIAL, nothing written), and one that comes later waits for it. Every change of a
 * subscription's status or events is kept in webhook_subscription_history by a trigger (the relay
 * matches an event against it, db/writes/webhook-deliveries.ts), and a change of its secret counts
 * up secret_version (an answer given under the former secret is not final: recordAttempt).
 */

export interface KeyActor {
  companyId: string;
  keyId: string;
}

export interface SubscriptionFields {
  url: string;
  events: WebhookEvent[];
  secret: string;
}

const audit = (
  client: TransactionClient,
  actor: KeyActor,
  origin: RequestOrigin,
  action: string,
  id: string,
  details = {},
) =>
  recordAudit(client, {
    actorKind: 'SYSTEM',
    actorId: actor.keyId,
    action,
    targetKind: 'webhook_subscription',
    targetId: id,
    details: { via: 'company_api_key', companyId: actor.companyId, ...details },
    ip: origin.ip,
    requestId: origin.requestId,
  });

/**
 * The company's ACTIVE subscription this very request made before (the same url, set of events and
 * secret): a create sent again after its answer was lost answers it instead of making a second one,
 * whose notifications would reach the receiver twice under other Webhook-Ids.
 */
async function madeBefore(
  client: TransactionClient,
  companyId: string,
  fields: SubscriptionFields,
): Promise<SubscriptionRecord | undefined> {
  const { rows } = await client.query<SubscriptionRow>(
    `select ${SUBSCRIPTION_COLUMNS} from webhook_subscriptions
     where company_id = $1 and status = 'ACTIVE' and url = $2
       and events @> $3::text[] and events <@ $3::text[] and secret = $4
     order by created_at, id limit 1`,
    [companyId, fields.url, fields.events, fields.secret],
  );
  return rows[0] && toSubscription(rows[0]);
}

/**
 * A new subscription (`created` true), or the ACTIVE one the same request made before (`created`
 * false, nothing written: madeBefore), which the limit does not refuse.
 */
export async function createSubscription(
  db: Database,
  actor: KeyActor,
  fields: SubscriptionFields,
  origin: RequestOrigin,
): Promise<{ subscription: SubscriptionRecord; created: boolean }> {
  // Locks the company row: two creations at once cannot both pass the limit (nor both miss the
  // other in madeBefore), and a suspension committed meanwhile refuses the creation
  // (db/writes/active-company.ts); so does the key's revocation (401 INVALID_CREDENTIAL), the key
  // being the write's actor.
  return companyTransaction(db, { companyId: actor.companyId, actor }, 'update', async (client) => {
    const earlier = await madeBefore(client, actor.companyId, fields);
    if (earlier) return { subscription: earlier, created: false };
    const { rows: counted } = await client.query<{ n: number }>(
      `select count(*)::int as n from webhook_subscriptions where company_id = $1 and status <> 'DELETED'`,
      [actor.companyId],
    );
    if (counted[0]!.n >= WEBHOOK_LIMITS.subscriptionsPerCompany) {
      throw new Refusal(
        409,
        'WEBHOOK_LIMIT_REACHED',
        `A company may have ${WEBHOOK_LIMITS.subscriptionsPerCompany} webhook subscriptions; delete one first`,
      );
    }
    const { rows } = await client.query<SubscriptionRow>(
      `insert into webhook_subscriptions (company_id, url, events, secret, created_by_key_id)
       values ($1, $2, $3, $4, $5) returning ${SUBSCRIPTION_COLUMNS}`,
      [actor.companyId, fields.url, fields.events, fields.secret, actor.keyId],
    );
    const created = toSubscription(rows[0]!);
    await audit(client, actor, origin, 'company.webhook.create', created.id, {
      url: fields.url,
      events: fields.events,
    });
    return { subscription: created, created: true };
  });
}

export interface SubscriptionChange {
  url?: string | undefined;
  events?: WebhookEvent[] | undefined;
  secret?: string | undefined;
  /** true turns a DISABLED subscription back on; false disables it by hand. */
  enabled?: boolean | undefined;
}

/**
 * Changes the given fields; another company's or a deleted subscription is 404. Its PENDING
 * deliveries it no longer wants (all of them once DISABLED, else those of an event dropped from
 * `events`) are ABANDONED in the same transaction, so they are not sent should it be turned back on.
 */
export async function updateSubscription(
  db: Database,
  actor: KeyActor,
  id: string,
  change: SubscriptionChange,
  origin: RequestOrigin,
): Promise<SubscriptionRecord> {
  return companyTransaction(db, { companyId: actor.companyId, actor }, 'share', async (client) => {
    const status = change.enabled === undefined ? null : change.enabled ? 'ACTIVE' : 'DISABLED';
    const { rows } = await client.query<SubscriptionRow>(
      `update webhook_subscriptions set
         url = coalesce($3, url), events = coalesce($4, events), secret = coalesce($5, secret),
         secret_version = secret_version + case when $5 is distinct from secret and $5 is not null then 1 else 0 end,
         status = coalesce($6, status),
         disabled_reason = case when $6 = 'ACTIVE' then null when $6 = 'DISABLED' and status <> 'DISABLED' then 'BY_COMPANY' else disabled_reason end,
         disabled_at = case when $6 = 'ACTIVE' then null when $6 = 'DISABLED' and status <> 'DISABLED' then now() else disabled_at end,
         updated_at = now()
       where id = $1 and company_id = $2 and status <> 'DELETED'
       returning ${SUBSCRIPTION_COLUMNS}`,
      [id, actor.companyId, change.url ?? null, change.events ?? null, change.secret ?? null, status],
    );
    if (!rows[0]) throw new Refusal(404, 'NOT_FOUND', 'Not found');
    await abandonUnwantedDeliveries(client, id);
    await audit(client, actor, origin, 'company.webhook.update', id, {
      fields: Object.keys(change).filter((key) => change[key as keyof SubscriptionChange] !== undefined),
    });
    return toSubscription(rows[0]);
  });
}

/**
 * Deletes the subscription (kept as DELETED with its delivery log); pending deliveries are abandoned.
 * Deleting the company's own subscription again changes nothing and answers as the first delete
 * did (a DELETE sent again after its answer was lost); another company's is 404.
 */
export async function deleteSubscription(
  db: Database,
  actor: KeyActor,
  id: string,
  origin: RequestOrigin,
): Promise<void> {
  await companyTransaction(db, { companyId: actor.companyId, actor }, 'share', async (client) => {
    const { rowCount } = await client.query(
      `update webhook_subscriptions set status = 'DELETED', deleted_at = now(), updated_at = now()
       where id = $1 and company_id = $2 and status <> 'DELETED'`,
      [id, actor.companyId],
    );
    if (!rowCount) {
      if (await deletedBefore(client, actor.companyId, id)) return;
      throw new Refusal(404, 'NOT_FOUND', 'Not found');
    }
    await abandonUnwantedDeliveries(client, id);
    await audit(client, actor, origin, 'company.webhook.delete', id);
  });
}

/** Whether the company's subscription `id` is already DELETED (a repeated DELETE). */
async function deletedBefore(client: TransactionClient, companyId: string, id: string): Promise<boolean> {
  const { rowCount } = await client.query(
    `select 1 from webhook_subscriptions where id = $1 and company_id = $2 and status = 'DELETED'`,
    [id, companyId],
  );
  return Boolean(rowCount);
}
