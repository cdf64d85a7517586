import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Context } from 'koa';
import {
  landingRoutes,
  listCities,
  listJourneyLocations,
  popularRoutes,
  type LandingRoute,
  type PopularRoute,
} from '../../db/queries/catalogue.js';
import { PUBLIC_SCOPE, type InventoryScope } from '../../domain/inventory-scope.js';
import type { AppContext } from '../app.js';
import { MicroCache } from '../http/micro-cache.js';
import { publicCache } from '../http/middleware.js';
import type { OperationDoc, Surface } from '../http/route.js';
import { docs } from './catalogue.openapi.js';
import { ok } from '../http/respond.js';

/** Schemas other route modules name companies and cities with. */
export { IdText, NamedRef } from './catalogue.openapi.js';

const gzipAsync = promisify(gzip);

const ONE_HOUR = 3600;
const POPULAR_PUBLIC_MAX_AGE = 300;
const LANDING_MAX_AGE = 600;

/** One encoding of a JSON answer and its strong ETag. */
interface Encoding {
  body: Buffer;
  etag: string;
}

/**
 * A JSON answer encoded once: plain bytes, and gzip bytes for clients that accept them. Each has its
 * own ETag (the gzip one the plain one's with `-gzip`): a strong tag names one representation, so a
 * cache that holds the gzip body and revalidates it for a client without gzip gets the plain body,
 * not a 304 that would let it serve gzip bytes the client cannot read (RFC 9110 8.8.3.3).
 */
interface EncodedJson {
  identity: Encoding;
  gzip: Encoding;
}

/** An encoded answer and until when (epoch milliseconds) it is the one the process serves. */
interface Snapshot {
  encoded: EncodedJson;
  expiresAt: number;
}

/**
 * A JSON answer kept in process memory already encoded, so a hit costs no query, no
 * serialization and no compression. Concurrent misses share one load. A lost cache is
 * harmless: the next request reloads it.
 */
function cachedJson(load: () => Promise<unknown>, ttlSeconds: number): () => Promise<Snapshot> {
  let entry: Snapshot | undefined;
  let loading: Promise<Snapshot> | undefined;
  return async () => {
    if (entry && entry.expiresAt > Date.now()) return entry;
    loading ??= load()
      .then(async (value) => {
        const identity = Buffer.from(JSON.stringify(value), 'utf8');
        const version = createHash('sha256').update(identity).digest('base64url').slice(0, 32);
        const loaded = {
          encoded: {
            identity: { body: identity, etag: `"${version}"` },
            gzip: { body: await gzipAsync(identity), etag: `"${version}-gzip"` },
          },
          expiresAt: Date.now() + ttlSeconds * 1000,
        };
        if (ttlSeconds > 0) entry = loaded;
        return loaded;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
}

/**
 * If-None-Match names this version. Checked here rather than with ctx.fresh, which follows shared
 * cache rules and ignores validators whenever the request says Cache-Control: no-cache (as fetch
 * does when it revalidates); an origin server still answers 304 then.
 */
function holdsVersion(ctx: Context, etag: string): boolean {
  const header = ctx.get('If-None-Match');
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Sends pre-encoded JSON: gzip when the client accepts it (a national directory is large on mobile
 * networks), else plain; 304 when the client already holds that body (its own ETag). Every answer,
 * the 304 included, varies by Accept-Encoding: a 304 sends the Vary its 200 would (RFC 9110
 * 15.4.5), and the plain body too was chosen by it.
 */
function sendEncodedJson(ctx: Context, encoded: EncodedJson) {
  ctx.vary('Accept-Encoding');
  const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  const chosen = gzip ? encoded.gzip : encoded.identity;
  ctx.set('ETag', chosen.etag);
  if (holdsVersion(ctx, chosen.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json';
  if (gzip) ctx.set('Content-Encoding', 'gzip');
  ctx.body = chosen.body;
}

export function registerCatalogueRoutes(surface: Surface, { db, config, platform }: AppContext): void {
  const locationDirectory = cachedJson(
    async () => ({ success: true, data: await listJourneyLocations(db) }),
    config.LOCATIONS_CACHE_SECONDS,
  );

  surface.route({
    ...docs.listJourneyLocations,
    method: 'get',
    path: '/journey-locations',
    security: 'public',
    handler: async (ctx) => {
      const { encoded, expiresAt } = await locationDirectory();
      // Only what remains of the snapshot's period (rounded up to the second): a client or CDN
      // that kept it LOCATIONS_CACHE_SECONDS afresh could hold the directory twice that old.
      publicCache(ctx, Math.max(0, Math.ceil((expiresAt - Date.now()) / 1000)));
      sendEncodedJson(ctx, encoded);
    },
  });

  publicRead(surface, { ...docs.listCities, path: '/cities' }, ONE_HOUR, () => listCities(db));

  // The route statistics count the free seats of every departure of the next 30 days (about 50 ms
  // on the demo network): an answer is shared by the callers of one inventory scope for
  // SEARCH_CACHE_SECONDS, as search shares its free-seat counts, and made anew once a company is
  // suspended or unsuspended.
  const popular = new MicroCache<PopularRoute[]>(config.SEARCH_CACHE_SECONDS * 1000, { maxEntries: 1000 });
  const landing = new MicroCache<LandingRoute[]>(config.SEARCH_CACHE_SECONDS * 1000, { maxEntries: 1 });
  const keyOf = async (cache: { enabled: boolean }, scope: InventoryScope) =>
    cache.enabled ? JSON.stringify([await platform.companyStanding(), scope]) : '';

  surface.route({
    ...docs.listPopularRoutes,
    method: 'get',
    path: '/routes/popular',
    security: 'optionalTraveller',
    handler: async (ctx) => {
      const { scope } = ctx.state;
      const routes = await popular.get(await keyOf(popular, scope), () => popularRoutes(db, scope));
      if (!ctx.state.traveller) publicCache(ctx, POPULAR_PUBLIC_MAX_AGE);
      ok(ctx, routes);
    },
  });

  publicRead(surface, { ...docs.listLandingRoutes, path: '/landing/routes' }, LANDING_MAX_AGE, async () =>
    landing.get(await keyOf(landing, PUBLIC_SCOPE), () => landingRoutes(db)),
  );
}

/** A public GET that answers what `read` returns, which any cache may keep for `maxAgeSeconds`. */
function publicRead(
  surface: Surface,
  route: OperationDoc & { path: string },
  maxAgeSeconds: number,
  read: () => Promise<unknown>,
): void {
  surface.route({
    ...route,
    method: 'get',
    security: 'public',
    handler: async (ctx) => {
      const answer = await read();
      publicCache(ctx, maxAgeSeconds);
      ok(ctx, answer);
    },
  });
}
