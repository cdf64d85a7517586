import type { Context, Next } from 'koa';
import type { ShareIssuer } from '../../domain/document-sharing.js';
import type { AppContext } from '../app.js';
import { clientKey } from '../http/client-address.js';
import { minuteLimiter } from '../http/rate-limit.js';
import { guardedRoute, type GuardedRouteSpec, type Part } from '../http/guarded-route.js';
import type { OperationDoc, Surface } from '../http/route.js';
import { issueShare, revokeShare, type DocumentSharing } from '../use-cases/document-sharing.js';
import { CreateShareBody, docs, GrantParams } from './share-routes.openapi.js';
import { created, ok } from '../http/respond.js';

/**
 * What every surface that issues document shares declares alike: the guard of its
 * /document-shares paths (and, app-level, their headers) and the issuer routes POST /document-shares and
 * POST /document-shares/{grantId}/revoke, with the surface's own security and issuer.
 */

/** Headers every share answer carries, errors included. */
function shareHeaders(ctx: Context): void {
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Robots-Tag', 'noindex, nofollow');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

const SHARE_PATH = '/document-shares';

/**
 * Whether `path` is under `prefix` (a surface's share paths), compared as the router compares:
 * case-sensitively (/api/Document-Shares is no share route), with or without a trailing slash.
 */
function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * App-level, before the router and the gates that answer before it (an unknown method's 405, a
 * maintenance window's 503): every answer under the /document-shares paths of a surface that
 * declares share routes carries the share headers, the router's own 405 and 404 included.
 */
export function shareAnswerHeaders(surfaces: readonly Surface[]) {
  const prefixes = surfaces
    .filter((surface) => surface.routes.some((route) => underPrefix(route.spec.path, SHARE_PATH)))
    .map((surface) => `${surface.base}${SHARE_PATH}`);
  return async (ctx: Context, next: Next): Promise<void> => {
    if (prefixes.some((prefix) => underPrefix(ctx.path, prefix))) shareHeaders(ctx);
    await next();
  };
}

/**
 * Before every share route of the surface (and its authentication): the limit per client IP
 * (SHARE_RATE_LIMIT_PER_IP_PER_MINUTE). The headers are set before, for every answer on these
 * paths (`shareAnswerHeaders`).
 */
export function guardSharePaths(surface: Surface, context: AppContext): void {
  const perIp = minuteLimiter(
    context.db,
    'document-share-ip',
    context.config.SHARE_RATE_LIMIT_PER_IP_PER_MINUTE,
  );
  const sharePrefix = `${surface.base}${SHARE_PATH}`;
  surface.router.use(async (ctx: Context, next: Next): Promise<void> => {
    if (underPrefix(ctx.path, sharePrefix)) await perIp.consume(ctx, clientKey(ctx));
    await next();
  });
}

export interface ShareIssuerSpec {
  security: 'shareIssuer' | 'companyStaff';
  /** Added to the operationIds, so each surface's operations are named apart. */
  operationSuffix: string;
  /** The issuer behind the request, as the surface's authentication resolved it. */
  issuerOf: (ctx: Context) => ShareIssuer;
}

/** POST /document-shares and POST /document-shares/{grantId}/revoke on a surface, with its issuer. */
export function registerShareIssuerRoutes(
  surface: Surface,
  sharing: DocumentSharing,
  spec: ShareIssuerSpec,
): void {
  /**
   * Declares `doc`'s operation with the surface's security: its operationId gets the surface's
   * suffix, and its handler the issuer.
   */
  const issuerRoute = <P extends Part = undefined, B extends Part = undefined>(
    doc: OperationDoc,
    route: Omit<GuardedRouteSpec<ShareIssuer, P, undefined, B>, keyof OperationDoc>,
  ) =>
    guardedRoute(surface, spec.security, spec.issuerOf, {
      ...doc,
      operationId: `${doc.operationId}${spec.operationSuffix}`,
      ...route,
    });

  issuerRoute(docs.createDocumentShare, {
    method: 'post',
    path: '/document-shares',
    body: CreateShareBody,
    handler: async (ctx, issuer, { body }) => {
      created(ctx, await issueShare(sharing, issuer, body));
    },
  });

  issuerRoute(docs.revokeDocumentShare, {
    method: 'post',
    path: '/document-shares/{grantId}/revoke',
    params: GrantParams,
    handler: async (ctx, issuer, { params }) => {
      ok(ctx, await revokeShare(sharing, issuer, params.grantId));
    },
  });
}
