import { z } from 'zod';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';
import { IdText } from '../http/answer-schemas.js';

/** Answer primitives shared by every surface, re-exported for this module's importers. */
export { IdText };

/** Schemas and prose of the public catalogue (SPEC GET /journey-locations, /cities, /routes/popular, /landing/routes). */

/** Response schemas shared by catalogue and trip reads (documentation of what the API returns). */
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

const JourneyLocationsResponse = successWith(
  z.object({ cities: z.array(DirectoryCity), locations: z.array(DirectoryLocation) }),
);

const CitiesResponse = successWith(
  z.array(z.object({ id: IdText, name_ar: z.string(), name_en: z.string(), ...Coordinates })),
);

const PopularRoutesResponse = successWith(
  z.array(
    z.object({
      origin_city: NamedRef,
      destination_city: NamedRef,
      departures: z.int().meta({
        description:
          'bookable departures in the next 30 days with a seat free from their first stop call to their last',
      }),
      companies: z.int().meta({ description: 'companies running them' }),
      min_price: z.number(),
      currency: z.string(),
    }),
  ),
);

const LandingRoutesResponse = successWith(
  z.array(
    z.object({
      origin_city: NamedRef,
      destination_city: NamedRef,
      min_price: z.number(),
      currency: z.string(),
      departures_per_day: z.number().meta({ description: 'average over the next 7 days' }),
      companies: z.array(NamedRef),
    }),
  ),
);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Catalogue'], {
  listJourneyLocations: {
    summary: 'Public directory of cities and stops for journey search',
    description:
      'Enabled stops of public kinds (bus stations, parking points, airports, boarding points; never depots). A stop owned by ' +
      'a company is listed only while that company is a published, active production company. cities[] holds the cities ' +
      'that have at least one listed stop. The answer is the same for every caller (credentials are not read) and is cached for one hour: ' +
      'Cache-Control max-age is what remains of that hour for the snapshot the server holds, so no cache keeps it longer. gzip when ' +
      'accepted (every answer, a 304 included, carries Vary: Accept-Encoding), and an ETag for revalidation, one per encoding ' +
      '(the gzip body\'s ends -gzip").',
    responses: {
      200: {
        description: 'The directory',
        schema: JourneyLocationsResponse,
      },
      304: {
        description:
          'Not modified: If-None-Match names the current version (ETag) in the encoding this request gets',
      },
    },
  },
  listCities: {
    summary: 'Cities, ordered by English name',
    description:
      'City-level lookup (also a temporary fallback of the mobile client). Ids are city ids only, never stop ids.',
    responses: {
      200: {
        description: 'All cities',
        schema: CitiesResponse,
      },
    },
  },
  listPopularRoutes: {
    summary: "Top 10 city pairs by bookable departures in the next 30 days, in the caller's inventory scope",
    description:
      "Companies are filtered by the caller's inventory scope before anything is counted, so departures, company counts, " +
      'prices and order reveal no trip outside it. A departure counts only while a seat is free from its first stop call ' +
      'to its last (confirmed seats and live holds are taken, as search counts them): a sold-out departure neither ' +
      "lists its pair nor sets min_price. A guest's answer may be publicly cached for 5 minutes; a signed-in " +
      "caller's answer is private.",
    responses: answers(200, 'Popular routes', PopularRoutesResponse, [401]),
  },
  listLandingRoutes: {
    summary: 'Marketing routes of production companies (shared-cache data)',
    description:
      'Always production companies only (never internal, demo, suspended, inactive or unpublished companies), whatever ' +
      'credential the request carries. City pairs with bookable departures in the next 30 days, at most 12. A departure ' +
      'counts only while a seat is free from its first stop call to its last (as search and GET /trips count seats: ' +
      'confirmed seats and live holds are taken), so a sold-out departure neither lists its pair nor sets min_price; ' +
      'an answer may be kept by caches for 10 minutes.',
    responses: {
      200: {
        description: 'Landing routes',
        schema: LandingRoutesResponse,
      },
    },
  },
});
