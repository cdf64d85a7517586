import type { Context } from 'koa';
import type { z } from 'zod';
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
import { guardedRoute, type GuardOf, type GuardedRouteSpec } from '../http/guarded-route.js';
import { minuteLimiter } from '../http/rate-limit.js';
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
import { createdOrOk, ok } from '../http/respond.js';
import { requestOrigin } from '../http/request-origin.js';

/** The company API key a guard let through: the company is the key's, never one named in the request. */
type CompanyKey = { keyId: string; companyId: string };

const notFound = () => new Refusal(404, 'NOT_FOUND', 'Not found');

/** The subscription of the key's company, else 404 (another company's is as missing). */
const ownedBy = (db: AppContext['db']) => async (companyId: string, id: string) => {
  const subscription = await readSubscription(db, companyId, id);
  if (!subscription) throw notFound();
  return subscription;
};

/** A 'companyApiKey' route whose handler gets the key `guard` let through. */
function companyKeyRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(surface: Surface, guard: GuardOf<CompanyKey>, spec: GuardedRouteSpec<CompanyKey, P, Q, B>): void {
  guardedRoute(surface, 'companyApiKey', guard, spec);
}

/**
 * /webhooks on the customer surface, authenticated by a company API key (security companyApiKey):
 * reads take any live key (`currentApiKey`), writes the key of an active company (`requireActiveKeyCompany`).
 */
export function registerWebhookRoutes(surface: Surface, context: AppContext): void {
  registerSubscriptionRoutes(surface, context);
  registerDeliveryRoutes(surface, context);
}

function registerSubscriptionRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;
  const owned = ownedBy(db);

  companyKeyRoute(surface, requireActiveKeyCompany, {
    ...docs.createWebhookSubscription,
    method: 'post',
    path: '/webhooks',
    body: SubscriptionBody,
    handler: async (ctx, actor, { body }) => {
      const made = await subscribe(context, actor, body, requestOrigin(ctx));
      createdOrOk(ctx, made.created, made.subscription);
    },
  });

  companyKeyRoute(surface, currentApiKey, {
    ...docs.listWebhookSubscriptions,
    method: 'get',
    path: '/webhooks',
    handler: async (ctx, key) => {
      ok(ctx, await listSubscriptions(db, key.companyId));
    },
  });

  companyKeyRoute(surface, currentApiKey, {
    ...docs.getWebhookSubscription,
    method: 'get',
    path: '/webhooks/{id}',
    params: SubscriptionParams,
    handler: async (ctx, key, { params }) => {
      ok(ctx, await owned(key.companyId, params.id));
    },
  });

  companyKeyRoute(surface, requireActiveKeyCompany, {
    ...docs.updateWebhookSubscription,
    method: 'patch',
    path: '/webhooks/{id}',
    params: SubscriptionParams,
    body: SubscriptionPatch,
    handler: async (ctx, actor, { params, body }) => {
      ok(ctx, await changeSubscription(context, actor, params.id, body, requestOrigin(ctx)));
    },
  });

  companyKeyRoute(surface, requireActiveKeyCompany, {
    ...docs.deleteWebhookSubscription,
    method: 'delete',
    path: '/webhooks/{id}',
    params: SubscriptionParams,
    handler: async (ctx, actor, { params }) => {
      await deleteSubscription(db, actor, params.id, requestOrigin(ctx));
      ok(ctx);
    },
  });
}

/** The delivery log and manual redelivery. */
function registerDeliveryRoutes(surface: Surface, context: AppContext): void {
  const { db } = context;
  const owned = ownedBy(db);
  const webhooks = webhookClient(context.temporal, context.config);
  const redeliveryLimit = minuteLimiter(db, 'webhook-redeliver', WEBHOOK_LIMITS.redeliveriesPerMinute);
  /** The writing key, once one more redelivery of its is counted (the limit is per key). */
  const redeliveringKey = async (ctx: Context) => {
    const actor = requireActiveKeyCompany(ctx);
    await redeliveryLimit.consume(ctx, actor.keyId);
    return actor;
  };

  companyKeyRoute(surface, currentApiKey, {
    ...docs.listWebhookDeliveries,
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    params: SubscriptionParams,
    query: DeliveriesQuery,
    handler: async (ctx, key, { params, query }) => {
      const subscription = await owned(key.companyId, params.id);
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

  companyKeyRoute(surface, currentApiKey, {
    ...docs.getWebhookDelivery,
    method: 'get',
    path: '/webhooks/{id}/deliveries/{deliveryId}',
    params: DeliveryParams,
    handler: async (ctx, key, { params }) => {
      const subscription = await owned(key.companyId, params.id);
      const delivery = await readDelivery(db, subscription.id, params.deliveryId);
      if (!delivery) throw notFound();
      ok(ctx, delivery);
    },
  });

  companyKeyRoute(surface, redeliveringKey, {
    ...docs.redeliverWebhookDelivery,
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    params: DeliveryParams,
    handler: async (ctx, actor, { params }) => {
      await redeliver({ ...context, webhooks }, actor, params.id, params.deliveryId);
      ctx.status = 202;
      ok(ctx);
    },
  });
}
