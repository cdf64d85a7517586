import Koa, { type Context } from 'koa';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/orm.js';
import { createMailer, type Mailer } from '../providers/mailer.js';
import { adminAuthenticator } from './auth/admin-auth.js';
import { withCompanyApiKey } from './auth/company-api-key.js';
import { customerAuthenticator } from './auth/customer-auth.js';
import { driverAuthenticator } from './auth/driver-auth.js';
import { withShareSecurity } from './auth/share-issuer.js';
import { staffAuthenticator } from './auth/staff-auth.js';
import { createTravellerTokens } from './auth/traveller-token.js';
import { healthRoutes } from './health.js';
import { maintenanceGate } from './platform/maintenance-gate.js';
import { platformState, type PlatformState } from './platform/state.js';
import { docsRoutes } from './docs.js';
import { sharePageAnswerHeaders, sharePageRoutes } from './web/share-page.js';
import { shareAnswerHeaders } from './documents/share-routes.js';
import { jsonBody, knownMethodsOnly, requestLifecycle, responseHeaders } from './http/middleware.js';
import { buildOpenApi } from './http/openapi.js';
import { routerMethodsAt, Surface } from './http/route.js';
import { registerAdminRoutes } from './admin/index.js';
import { registerCustomerRoutes } from './customer/index.js';
import { pwaSignInAnswerHeaders } from './customer/idp/pwa.js';
import { registerDashboardRoutes } from './dashboard/index.js';
import { registerDriverRoutes } from './driver/index.js';
import './http/koa-state.js';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** Temporal client; the API starts, signals and updates workflows through it. */
  temporal: Client;
}

/** Everything a route module may use; built once per process. */
export type AppContext = AppDeps & {
  tokens: ReturnType<typeof createTravellerTokens>;
  /** SMTP client for traveller e-mails (verification, recovery). */
  mailer: Mailer;
  /** Feature flags and maintenance windows, cached per process (api/platform/state.ts). */
  platform: PlatformState;
};

/**
 * What each route function of a feature module is given when the feature's docs depend on the
 * configuration: the surface, the app, and the docs worded once.
 */
export interface FeatureRoutes<Docs> {
  surface: Surface;
  context: AppContext;
  docs: Docs;
}

/** What route modules share, built once per process (tests build it to register a surface alone). */
export function appContext(deps: AppDeps): AppContext {
  return {
    ...deps,
    tokens: createTravellerTokens(deps.config),
    mailer: createMailer(deps.config, deps.logger),
    platform: platformState(deps.db, deps.config),
  };
}

export function createApp(deps: AppDeps) {
  // ctx.ip is the socket's address unless TRUSTED_PROXY_HOPS proxies append to X-Forwarded-For:
  // then the entry that many hops from the right, never one the client wrote itself.
  const hops = deps.config.TRUSTED_PROXY_HOPS;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  logAppErrors(app, deps.logger);
  const context = appContext(deps);

  const customer = new Surface(
    '/api',
    withCompanyApiKey(withShareSecurity(customerAuthenticator(context), context), context),
  );
  registerCustomerRoutes(customer, context);
  const dashboard = new Surface('/dashboard/api', staffAuthenticator(context));
  registerDashboardRoutes(dashboard, context);
  const admin = new Surface('/admin/api', adminAuthenticator(context));
  registerAdminRoutes(admin, context);
  const driver = new Surface('/driver/api', driverAuthenticator(context));
  registerDriverRoutes(driver, context);

  const surfaces = [customer, dashboard, admin, driver];
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

  const routers = [healthRoutes(context), docsRoutes(openApi), sharePageRoutes()];
  // What a path answers, for the Allow of a method no route knows.
  const methodsAt = (path: string) => [
    ...new Set([
      ...routers.flatMap((router) => routerMethodsAt(router, path)),
      ...surfaces.flatMap((surface) => surface.methodsAt(path)),
    ]),
  ];

  app.use(requestLifecycle(deps.logger));
  app.use(responseHeaders());
  app.use(shareAnswerHeaders(surfaces));
  app.use(sharePageAnswerHeaders());
  app.use(pwaSignInAnswerHeaders(deps.config, customer.base));
  app.use(knownMethodsOnly(methodsAt));
  app.use(maintenanceGate(context.platform));
  app.use(jsonBody((ctx) => surfaces.some((surface) => surface.leavesBodyUnread(ctx.method, ctx.path))));
  for (const router of routers) app.use(router.routes());
  for (const surface of surfaces) {
    app.use(surface.router.routes());
    app.use(surface.allowedMethods());
  }
  return app;
}

/** The codes of a client that left: its connection reset or closed under its body or its answer. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

type AppError = Error & { code?: string; expose?: boolean; status?: number };

/**
 * What Koa reports on the app (an error once an answer has begun, such as a download whose client
 * left, or a socket reset under a body) goes to the JSON log instead of Koa's stack printer on
 * standard error: a client that left is one info line per request, without a stack; anything else
 * is an error line. An error marked `expose` (a client's 4xx, a report stream's stall, which is
 * logged where it happens) is left out, as Koa's printer left it.
 */
function logAppErrors(app: Koa, logger: Logger): void {
  const told = new WeakSet<Context>();
  app.on('error', (error: AppError, ctx?: Context) => {
    if (error.expose || error.status === 404) return;
    const request = ctx ? { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path } : {};
    if (!CLIENT_GONE.has(error.code ?? '') && error.message !== 'aborted') {
      logger.error({ ...request, err: error }, 'unhandled error');
    } else if (!ctx || !told.has(ctx)) {
      if (ctx) told.add(ctx);
      logger.info({ ...request, code: error.code ?? 'aborted' }, 'client went away');
    }
  });
}
