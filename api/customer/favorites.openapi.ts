import { z } from 'zod';
import { IdText } from '../http/answer-schemas.js';
import { NamedRef } from './catalogue.openapi.js';
import { ErrorBody, errorResponses, Instant, UUID_PATTERN } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';

/**
 * The OpenAPI side of the favorite routes (api/customer/favorites.ts): request and response
 * schemas, which also validate, SPEC's validation codes, and the prose of each route.
 */

const TAGS = ['Favorites'];

/** What saving or removing a favorite may answer besides success. */
const CHANGE_ERRORS = errorResponses(400, 401, 403, 409, 500);

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

export const FavoriteBody = CityPair.meta({ id: 'FavoriteRouteRequest' });
// No id: the query parameters are listed one by one, not as a referenced schema.
export const FavoriteQuery = CityPair;

/** SPEC's codes, most basic first: a missing id, then a malformed one, then equal cities. */
export function favoriteErrorCode(issues: z.core.$ZodIssue[]): string {
  const onCity = issues.filter((issue) => issue.path[0] === 'originCityId' || issue.path[0] === 'destCityId');
  if (onCity.some((issue) => issue.message === CITY_ID_REQUIRED)) return 'CITY_IDS_REQUIRED';
  if (onCity.some((issue) => issue.code !== 'custom')) return 'INVALID_CITY_ID';
  const differ = (issue: z.core.$ZodIssue) =>
    issue.code === 'custom' && issue.params?.errorCode === ROUTE_CITIES_MUST_DIFFER;
  return issues.some(differ) ? ROUTE_CITIES_MUST_DIFFER : 'VALIDATION_FAILED';
}

const FavoriteRoute = z
  .object({
    id: IdText,
    origin_city_id: IdText,
    dest_city_id: IdText,
    created_at: Instant,
    origin_city: NamedRef.meta({ description: 'id equals origin_city_id' }),
    dest_city: NamedRef.meta({ description: 'id equals dest_city_id' }),
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

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  listFavoriteRoutes: {
    summary: "The signed-in traveller's favorite routes, newest first",
    description: `${COMMON} Always Cache-Control: private, no-store. 500 FAVORITES_LOOKUP_FAILED when the list cannot be read.`,
    responses: answers(200, 'Favorite routes', FavoritesList, [401, 409, 500]),
  },
  saveFavoriteRoute: {
    summary: 'Save a favorite route (idempotent)',
    description:
      `${COMMON} ${VALIDATION} A new route answers 201; saving it again answers 200 with alreadySaved: true and the ` +
      'same favorite (concurrent duplicates also end with one row), also at the cap. A traveller keeps at most ' +
      'FAVORITES_MAX (50) routes: a new one past it is 409 FAVORITES_LIMIT_REACHED with details {limit} and nothing ' +
      'saved (remove one first; concurrent saves of one traveller take turns, so the cap holds). ' +
      '500 FAVORITE_SAVE_FAILED when saving fails.',
    responses: {
      200: {
        description: 'Already saved',
        schema: FavoriteSaved,
      },
      201: {
        description: 'Saved',
        schema: FavoriteSaved,
      },
      ...CHANGE_ERRORS,
      409: {
        description: 'TRAVELER_PROFILE_REQUIRED, or FAVORITES_LIMIT_REACHED (details.limit: FAVORITES_MAX)',
        schema: ErrorBody,
      },
    },
  },
  removeFavoriteRoute: {
    summary: 'Remove a favorite route',
    description:
      `${COMMON} ${VALIDATION} Removing a route that is not saved answers 200 with removed: false. ` +
      '500 FAVORITE_REMOVE_FAILED when removal fails.',
    responses: {
      200: {
        description: 'Removed, or was not saved',
        schema: FavoriteRemoved,
      },
      ...CHANGE_ERRORS,
    },
  },
});
