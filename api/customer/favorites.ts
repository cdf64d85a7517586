import type { Context } from 'koa';
import { z } from 'zod';
import {
  listFavorites,
  missingCities,
  removeFavorite,
  resolveCanonicalPassenger,
  saveFavorite,
  type CityPair,
} from '../../db/queries/favorites.js';
import type { AppContext } from '../app.js';
import { Refusal, badRequest, conflict } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses, UUID_PATTERN } from '../http/schemas.js';

const CITY_ID_REQUIRED = 'is required';
const CITY_ID_INVALID = 'must be a canonical UUID';

/** A city id whose issues say whether it was missing or malformed (they map to different SPEC codes). */
const CityId = z
  .string({
    error: (issue) =>
      issue.input === undefined || issue.input === null ? CITY_ID_REQUIRED : CITY_ID_INVALID,
  })
  .min(1, CITY_ID_REQUIRED)
  .regex(UUID_PATTERN, CITY_ID_INVALID)
  .toLowerCase()
  .meta({ format: 'uuid', examples: ['0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c'] });

const ROUTE_CITIES_MUST_DIFFER = 'ROUTE_CITIES_MUST_DIFFER';

const CityPair = z
  .object({ originCityId: CityId, destCityId: CityId })
  .strict()
  .refine((pair) => pair.originCityId !== pair.destCityId, {
    message: 'origin and destination city must differ',
    path: ['destCityId'],
    params: { errorCode: ROUTE_CITIES_MUST_DIFFER },
  });

const FavoriteBody = CityPair.meta({ id: 'FavoriteRouteRequest' });
// No id: the query parameters are listed one by one, not as a referenced schema.
const FavoriteQuery = CityPair;

/** SPEC's codes, most basic first: a missing id, then a malformed one, then equal cities. */
function favoriteErrorCode(issues: z.core.$ZodIssue[]): string {
  const onCity = issues.filter((issue) => issue.path[0] === 'originCityId' || issue.path[0] === 'destCityId');
  if (onCity.some((issue) => issue.message === CITY_ID_REQUIRED)) return 'CITY_IDS_REQUIRED';
  if (onCity.some((issue) => issue.code !== 'custom')) return 'INVALID_CITY_ID';
  if (
    issues.some(
      (issue) =>
        issue.code === 'custom' &&
        (issue.params as { errorCode?: string } | undefined)?.errorCode === ROUTE_CITIES_MUST_DIFFER,
    )
  ) {
    return ROUTE_CITIES_MUST_DIFFER;
  }
  return 'VALIDATION_FAILED';
}

const CityRef = z.object({
  id: z.string().meta({ format: 'uuid' }),
  name_ar: z.string(),
  name_en: z.string(),
});
const FavoriteRoute = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    origin_city_id: z.string().meta({ format: 'uuid' }),
    dest_city_id: z.string().meta({ format: 'uuid' }),
    created_at: z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC' }),
    origin_city: CityRef.meta({ description: 'id equals origin_city_id' }),
    dest_city: CityRef.meta({ description: 'id equals dest_city_id' }),
  })
  .meta({ id: 'FavoriteRoute' });

const FavoritesList = z.object({ success: z.literal(true), favorites: z.array(FavoriteRoute) });
const FavoriteSaved = z.object({
  success: z.literal(true),
  alreadySaved: z
    .boolean()
    .meta({ description: 'true when the route was saved before; no second row is made' }),
  favorite: FavoriteRoute,
});
const FavoriteRemoved = z.object({
  success: z.literal(true),
  removed: z.boolean().meta({ description: 'false when the route was not saved (nothing to remove)' }),
});

const COMMON =
  'Needs a traveller session (401 AUTH_REQUIRED); the list is always that of the canonical traveller profile of the ' +
  'signed-in account (merged profiles followed), never of a traveller id sent by the client; an account with no ' +
  'traveller profile gets 409 TRAVELER_PROFILE_REQUIRED.';
const VALIDATION =
  'Both city ids are required (400 CITY_IDS_REQUIRED), must be canonical UUIDs (400 INVALID_CITY_ID), must differ ' +
  '(400 ROUTE_CITIES_MUST_DIFFER) and must name existing cities (400 FAVORITE_CITY_NOT_FOUND). Web calls send ' +
  'X-CSRF-Token (403 CSRF_TOKEN_INVALID); bearer calls need none.';

export function registerFavoriteRoutes(surface: Surface, { db, logger }: AppContext): void {
  /**
   * Runs the database work of one route; a failure that is not a refusal becomes the route's
   * SPEC 500 code. The raw error goes to the log only.
   */
  async function guarded<T>(ctx: Context, errorCode: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof Refusal) throw error;
      logger.error({ requestId: ctx.state.requestId, err: error }, `favorites: ${errorCode}`);
      throw new Refusal(500, errorCode, 'Favorite routes are unavailable right now; try again later');
    }
  }

  async function passengerOf(ctx: Context): Promise<string> {
    const passengerId = await resolveCanonicalPassenger(db, ctx.state.traveller!.userId);
    if (!passengerId) throw conflict('TRAVELER_PROFILE_REQUIRED', 'Complete your traveller profile first');
    return passengerId;
  }

  async function requireCities(pair: CityPair): Promise<void> {
    const missing = await missingCities(db, pair);
    if (missing.length > 0) throw cityNotFound(missing);
  }

  surface.route({
    method: 'get',
    path: '/favorites',
    operationId: 'listFavoriteRoutes',
    summary: "The signed-in traveller's favorite routes, newest first",
    description: `${COMMON} Always Cache-Control: private, no-store. 500 FAVORITES_LOOKUP_FAILED when the list cannot be read.`,
    tags: ['Favorites'],
    security: 'traveller',
    responses: {
      200: { description: 'Favorite routes', schema: FavoritesList },
      ...errorResponses(401, 409, 500),
    },
    handler: async (ctx) => {
      const favorites = await guarded(ctx, 'FAVORITES_LOOKUP_FAILED', async () =>
        listFavorites(db, await passengerOf(ctx)),
      );
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = { success: true, favorites };
    },
  });

  surface.route({
    method: 'post',
    path: '/favorites',
    operationId: 'saveFavoriteRoute',
    summary: 'Save a favorite route (idempotent)',
    description:
      `${COMMON} ${VALIDATION} A new route answers 201; saving it again answers 200 with alreadySaved: true and the ` +
      'same favorite (concurrent duplicates also end with one row). 500 FAVORITE_SAVE_FAILED when saving fails.',
    tags: ['Favorites'],
    security: 'traveller',
    body: FavoriteBody,
    errorCode: favoriteErrorCode,
    responses: {
      200: { description: 'Already saved', schema: FavoriteSaved },
      201: { description: 'Saved', schema: FavoriteSaved },
      ...errorResponses(400, 401, 403, 409, 500),
    },
    handler: async (ctx, { body }) => {
      const saved = await guarded(ctx, 'FAVORITE_SAVE_FAILED', async () => {
        const passengerId = await passengerOf(ctx);
        await requireCities(body);
        const outcome = await saveFavorite(db, passengerId, body);
        if (outcome.kind === 'cityMissing') throw cityNotFound([]);
        return outcome;
      });
      ctx.status = saved.alreadySaved ? 200 : 201;
      ctx.body = { success: true, alreadySaved: saved.alreadySaved, favorite: saved.favorite };
    },
  });

  surface.route({
    method: 'delete',
    path: '/favorites',
    operationId: 'removeFavoriteRoute',
    summary: 'Remove a favorite route',
    description:
      `${COMMON} ${VALIDATION} Removing a route that is not saved answers 200 with removed: false. ` +
      '500 FAVORITE_REMOVE_FAILED when removal fails.',
    tags: ['Favorites'],
    security: 'traveller',
    query: FavoriteQuery,
    errorCode: favoriteErrorCode,
    responses: {
      200: { description: 'Removed, or was not saved', schema: FavoriteRemoved },
      ...errorResponses(400, 401, 403, 409, 500),
    },
    handler: async (ctx, { query }) => {
      const removed = await guarded(ctx, 'FAVORITE_REMOVE_FAILED', async () => {
        const passengerId = await passengerOf(ctx);
        if (await removeFavorite(db, passengerId, query)) return true;
        // Nothing was saved: a city that does not exist is still named as such.
        await requireCities(query);
        return false;
      });
      ctx.body = { success: true, removed };
    },
  });
}

function cityNotFound(missing: string[]): Refusal {
  return badRequest('FAVORITE_CITY_NOT_FOUND', 'A city of this route does not exist', {
    missingCityIds: missing,
  });
}
