import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  landingRoutes,
  listCities,
  listJourneyLocations,
  popularRoutes,
} from '../../db/queries/catalogue.js';
import type { AppContext } from '../app.js';
import { publicCache } from '../http/middleware.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';

/** Response schemas shared by catalogue and trip reads (documentation of what the API returns). */
export const IdText = z.string().meta({ format: 'uuid' });
export const NamedRef = z.object({ id: IdText, name_ar: z.string(), name_en: z.string() });
const Coordinates = { latitude: z.number(), longitude: z.number() };

const DirectoryCity = z.object({
  key: z
    .string()
    .meta({ description: 'CITY:<uuid>; stable', examples: ['CITY:0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c'] }),
  id: IdText,
  name_ar: z.string(),
  name_en: z.string(),
  ...Coordinates,
});

const DirectoryLocation = z.object({
  key: z
    .string()
    .meta({ description: 'STOP:<uuid>; stable', examples: ['STOP:0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c'] }),
  id: IdText,
  city_id: IdText,
  city_key: z.string(),
  kind: z.enum(['BUS_STATION', 'PARKING_POINT', 'AIRPORT', 'BOARDING_POINT']),
  name_ar: z.string(),
  name_en: z.string(),
  address_ar: z.string(),
  address_en: z.string(),
  ...Coordinates,
});

const JourneyLocationsResponse = z.object({
  success: z.literal(true),
  data: z.object({ cities: z.array(DirectoryCity), locations: z.array(DirectoryLocation) }),
});

const CitiesResponse = z.object({
  success: z.literal(true),
  data: z.array(z.object({ id: IdText, name_ar: z.string(), name_en: z.string(), ...Coordinates })),
});

const PopularRoutesResponse = z.object({
  success: z.literal(true),
  data: z.array(
    z.object({
      origin_city: NamedRef,
      destination_city: NamedRef,
      departures: z.int().meta({ description: 'bookable departures in the next 30 days' }),
      companies: z.int().meta({ description: 'companies running them' }),
      min_price: z.number(),
      currency: z.string(),
    }),
  ),
});

const LandingRoutesResponse = z.object({
  success: z.literal(true),
  data: z.array(
    z.object({
      origin_city: NamedRef,
      destination_city: NamedRef,
      min_price: z.number(),
      currency: z.string(),
      departures_per_day: z.number().meta({ description: 'average over the next 7 days' }),
      companies: z.array(NamedRef),
    }),
  ),
});

const gzipAsync = promisify(gzip);

const ONE_HOUR = 3600;
const POPULAR_PUBLIC_MAX_AGE = 300;
const LANDING_MAX_AGE = 600;

/** A JSON answer encoded once: plain bytes, gzip bytes for clients that accept them, and its ETag. */
interface EncodedJson {
  identity: Buffer;
  gzip: Buffer;
  etag: string;
}

/**
 * A JSON answer kept in process memory already encoded, so a hit costs no query, no
 * serialization and no compression. Concurrent misses share one load. A lost cache is
 * harmless: the next request reloads it.
 */
function cachedJson(load: () => Promise<unknown>, ttlSeconds: number): () => Promise<EncodedJson> {
  let entry: { encoded: EncodedJson; expiresAt: number } | undefined;
  let loading: Promise<EncodedJson> | undefined;
  return async () => {
    if (entry && entry.expiresAt > Date.now()) return entry.encoded;
    loading ??= load()
      .then(async (value) => {
        const identity = Buffer.from(JSON.stringify(value), 'utf8');
        const etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 32)}"`;
        const encoded = { identity, gzip: await gzipAsync(identity), etag };
        if (ttlSeconds > 0) entry = { encoded, expiresAt: Date.now() + ttlSeconds * 1000 };
        return encoded;
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
 * Sends pre-encoded JSON: 304 when the client already holds this version, gzip when the client
 * accepts it (a national directory is large on mobile networks).
 */
function sendEncodedJson(ctx: Context, encoded: EncodedJson) {
  ctx.set('ETag', encoded.etag);
  if (holdsVersion(ctx, encoded.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json';
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = encoded.gzip;
  } else {
    ctx.body = encoded.identity;
  }
}

export function registerCatalogueRoutes(surface: Surface, { db, config }: AppContext): void {
  const locationDirectory = cachedJson(
    async () => ({ success: true, data: await listJourneyLocations(db) }),
    config.LOCATIONS_CACHE_SECONDS,
  );

  surface.route({
    method: 'get',
    path: '/journey-locations',
    operationId: 'listJourneyLocations',
    summary: 'Public directory of cities and stops for journey search',
    description:
      'Enabled stops of public kinds (bus stations, parking points, airports, boarding points; never depots). A stop owned by ' +
      'a company is listed only while that company is a published, active production company. cities[] holds the cities ' +
      'that have at least one listed stop. The answer is the same for every caller (credentials are not read) and is cached for one hour; gzip when ' +
      'accepted, and an ETag for revalidation.',
    tags: ['Catalogue'],
    security: 'public',
    responses: {
      200: { description: 'The directory', schema: JourneyLocationsResponse },
      304: { description: 'Not modified: If-None-Match names the current version (ETag)' },
    },
    handler: async (ctx) => {
      const encoded = await locationDirectory();
      publicCache(ctx, config.LOCATIONS_CACHE_SECONDS);
      sendEncodedJson(ctx, encoded);
    },
  });

  surface.route({
    method: 'get',
    path: '/cities',
    operationId: 'listCities',
    summary: 'Cities, ordered by English name',
    description:
      'City-level lookup (also a temporary fallback of the mobile client). Ids are city ids only, never stop ids.',
    tags: ['Catalogue'],
    security: 'public',
    responses: { 200: { description: 'All cities', schema: CitiesResponse } },
    handler: async (ctx) => {
      const cities = await listCities(db);
      publicCache(ctx, ONE_HOUR);
      ctx.body = { success: true, data: cities };
    },
  });

  surface.route({
    method: 'get',
    path: '/routes/popular',
    operationId: 'listPopularRoutes',
    summary: "Top 10 city pairs by bookable departures in the next 30 days, in the caller's inventory scope",
    description:
      "Companies are filtered by the caller's inventory scope before anything is counted, so departures, company counts, " +
      "prices and order reveal no trip outside it. A guest's answer may be publicly cached for 5 minutes; a signed-in " +
      "caller's answer is private.",
    tags: ['Catalogue'],
    security: 'optionalTraveller',
    responses: {
      200: { description: 'Popular routes', schema: PopularRoutesResponse },
      ...errorResponses(401),
    },
    handler: async (ctx) => {
      const routes = await popularRoutes(db, ctx.state.scope);
      if (!ctx.state.traveller) publicCache(ctx, POPULAR_PUBLIC_MAX_AGE);
      ctx.body = { success: true, data: routes };
    },
  });

  surface.route({
    method: 'get',
    path: '/landing/routes',
    operationId: 'listLandingRoutes',
    summary: 'Marketing routes of production companies (shared-cache data)',
    description:
      'Always production companies only (never internal, demo, suspended, inactive or unpublished companies), whatever ' +
      'credential the request carries. City pairs with bookable departures in the next 30 days, at most 12.',
    tags: ['Catalogue'],
    security: 'public',
    responses: {
      200: { description: 'Landing routes', schema: LandingRoutesResponse },
    },
    handler: async (ctx) => {
      const routes = await landingRoutes(db);
      publicCache(ctx, LANDING_MAX_AGE);
      ctx.body = { success: true, data: routes };
    },
  });
}
