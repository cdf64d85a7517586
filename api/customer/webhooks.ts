import type { Context } from 'koa';
import {
  listDeliveries,
  listSubscriptions,
  readDelivery,
  readSubscription,
} from '../../db/queries/webhooks.js';
import { deleteSubscription } from '../../db/writes/webhook-subscriptions.js';
import { WEBHOOK_LIMITS } from '../../domain/webhooks.js';
import type { AppContext } from '../app.js';
import { currentApiKey, requireActiveKeyCompany } from '../auth/company-api-key.js';
import { Refusal } from '../http/errors.js';
import { createRateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import { webhookClient } from '../temporal/webhook-client.js';
import { changeSubscription, redeliver, subscribe } from '../use-cases/webhooks.js';
import {
  DeliveriesQuery,
  DeliveryParams,
  docs,
  SubscriptionBody,
  SubscriptionParams,
  SubscriptionPatch,
} from './webhooks.openapi.js';
import { created, ok } from '../http/respond.js';

const originOf = (ctx: Context) => ({ ip: ctx.ip, requestId: ctx.state.requestId });
const notFound = () => new Refusal(404, 'NOT_FOUND', 'Not found');

/** The subscription of the key's company, else 404 (another company's is as missing). */
const ownedBy = (db: AppContext['db']) => async (ctx: Context, id: string) => {
  const subscription = await readSubscription(db, currentApiKey(ctx).companyId, id);
  if (!subscription) throw notFound();
  return subscription;
};

/** /webhooks on the customer surface, authenticated by a company API key (security companyApiKey). */
export function registerWebhookRoutes(surface: Surface, context: AppContext): void {
  registerSubscriptionRoutes(surface, context);
  registerDeliveryRoutes(surface, context);
}

function registerSubscriptionRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;
  const owned = ownedBy(db);

  surface.route({
    ...docs.createWebhookSubscription,
    method: 'post',
    path: '/webhooks',
    security: 'companyApiKey',
    body: SubscriptionBody,
    handler: async (ctx, { body }) => {
      const actor = requireActiveKeyCompany(ctx);
      created(ctx, await subscribe(context, actor, body, originOf(ctx)));
    },
  });

  surface.route({
    ...docs.listWebhookSubscriptions,
    method: 'get',
    path: '/webhooks',
    security: 'companyApiKey',
    handler: async (ctx) => {
      ok(ctx, await listSubscriptions(db, currentApiKey(ctx).companyId));
    },
  });

  surface.route({
    ...docs.getWebhookSubscription,
    method: 'get',
    path: '/webhooks/{id}',
    security: 'companyApiKey',
    params: SubscriptionParams,
    handler: async (ctx, { params }) => {
      ok(ctx, await owned(ctx, params.id));
    },
  });

  surface.route({
    ...docs.updateWebhookSubscription,
    method: 'patch',
    path: '/webhooks/{id}',
    security: 'companyApiKey',
    params: SubscriptionParams,
    body: SubscriptionPatch,
    handler: async (ctx, { params, body }) => {
      const actor = requireActiveKeyCompany(ctx);
      ok(ctx, await changeSubscription(context, actor, params.id, body, originOf(ctx)));
    },
  });

  surface.route({
    ...docs.deleteWebhookSubscription,
    method: 'delete',
    path: '/webhooks/{id}',
    security: 'companyApiKey',
    params: SubscriptionParams,
    handler: async (ctx, { params }) => {
      const actor = requireActiveKeyCompany(ctx);
      await deleteSubscription(db, actor, params.id, originOf(ctx));
      ok(ctx);
    },
  });
}

/** The delivery log and manual redelivery. */
function registerDeliveryRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;
  const owned = ownedBy(db);
  const webhooks = webhookClient(context.temporal, context.config);
  const redeliveryLimit = createRateLimiter(db, {
    name: 'webhook-redeliver',
    points: WEBHOOK_LIMITS.redeliveriesPerMinute,
    durationSeconds: 60,
  });

  surface.route({
    ...docs.listWebhookDeliveries,
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    security: 'companyApiKey',
    params: SubscriptionParams,
    query: DeliveriesQuery,
    handler: async (ctx, { params, query }) => {
      const subscription = await owned(ctx, params.id);
      const page = await listDeliveries(db, subscription.id, query);
      ctx.body = {
        success: true,
        data: page.deliveries,
        total: page.total,
        limit: query.limit,
        offset: query.offset,
      };
    },
  });

  surface.route({
    ...docs.getWebhookDelivery,
    method: 'get',
    path: '/webhooks/{id}/deliveries/{deliveryId}',
    security: 'companyApiKey',
    params: DeliveryParams,
    handler: async (ctx, { params }) => {
      const subscription = await owned(ctx, params.id);
      const delivery = await readDelivery(db, subscription.id, params.deliveryId);
      if (!delivery) throw notFound();
      ok(ctx, delivery);
    },
  });

  surface.route({
    ...docs.redeliverWebhookDelivery,
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    security: 'companyApiKey',
    params: DeliveryParams,
    handler: async (ctx, { params }) => {
      const actor = requireActiveKeyCompany(ctx);
      await redeliveryLimit.consume(ctx, actor.keyId);
      await redeliver({ ...context, webhooks }, actor, params.id, params.deliveryId);
      ctx.status = 202;
      ok(ctx);
    },
  });
}
