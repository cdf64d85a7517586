import Koa from 'koa';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/orm.js';
import { createTravellerTokens, travellerIdentity } from './auth/traveller-token.js';
import { healthRoutes } from './health.js';
import { docsRoutes } from './docs.js';
import { jsonBody, requestLifecycle, responseHeaders } from './http/middleware.js';
import { buildOpenApi } from './http/openapi.js';
import { Surface } from './http/route.js';
import { registerCustomerRoutes } from './customer/index.js';
import './http/koa-state.js';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** Temporal client; the API starts, signals and updates workflows through it. */
  temporal: Client;
}

/** Everything a route module may use; built once per process. */
export type AppContext = AppDeps & { tokens: ReturnType<typeof createTravellerTokens> };

export function createApp(deps: AppDeps) {
  const app = new Koa({ proxy: deps.config.NODE_ENV === 'production' });
  const context: AppContext = { ...deps, tokens: createTravellerTokens(deps.config) };

  const customer = new Surface('/api');
  registerCustomerRoutes(customer, context);

  const surfaces = [customer];
  const openApi = buildOpenApi(
    surfaces.flatMap((surface) => surface.routes),
    {
      title: 'Bus booking API',
      version: '0.1.0',
      description:
        'Customer, company dashboard and administration interfaces of the intercity bus booking platform. ' +
        'Errors share one envelope: {success:false, errorCode, message, details?, requestId}.',
    },
  );

  app.use(requestLifecycle(deps.logger));
  app.use(responseHeaders());
  app.use(jsonBody());
  const health = healthRoutes(context);
  app.use(health.routes());
  const docs = docsRoutes(openApi);
  app.use(docs.routes());
  app.use(travellerIdentityFor('/api', context));
  for (const surface of surfaces) {
    app.use(surface.router.routes());
    app.use(surface.router.allowedMethods());
  }
  return app;
}

/** Traveller identity is resolved only on the customer surface. */
function travellerIdentityFor(prefix: string, context: AppContext): Koa.Middleware {
  const resolve = travellerIdentity(context.tokens);
  return async (ctx, next) => {
    if (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`)) {
      if (ctx.path === `${prefix}/openapi.json`) return next();
      return resolve(ctx, next);
    }
    return next();
  };
}
