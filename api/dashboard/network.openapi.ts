import { z } from 'zod';
import { MAX_ROUTE_STOPS } from '../../domain/route-plan.js';
import { PICKUP_MAX_KM_FROM_CITY, TRAVELLER_STOP_KINDS } from '../../domain/trip-planning.js';
import { PickupLocationSchema } from '../customer/trips.openapi.js';
import { errorResponses, LetteredName, Pagination, PrintedText, Uuid } from '../http/schemas.js';
import {
  DateTime,
  Latitude,
  Longitude,
  NamedRefOut,
  ok,
  page,
  UuidOut,
  WRITE_RULES,
} from './planning-schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';

/** OpenAPI of the network routes (network.ts): cities, routes with their stops, pickup locations. */

const TAGS = ['Dashboard: network'];

/** A city's name, shown to every traveller: with a letter that city matching keeps (nameKey). */
const CityName = LetteredName(2, 80);

export const CityBody = z
  .object({ name_ar: CityName, name_en: CityName, latitude: Latitude, longitude: Longitude })
  .strict();

const City = NamedRefOut.extend({ latitude: z.number(), longitude: z.number() }).meta({
  id: 'DashboardCity',
});

const RouteStopBody = z
  .object({
    stop_id: Uuid,
    running_minutes: z.int().min(0).max(1440).default(0).meta({
      description: "minutes from the previous stop's departure to arriving here; 0 for the first stop",
    }),
    dwell_minutes: z
      .int()
      .min(0)
      .max(240)
      .default(0)
      .meta({ description: 'minutes the coach waits here; 0 at both ends' }),
    fare_share_bp: z.int().min(0).max(10_000).meta({
      description:
        'share of the full fare up to this stop in basis points: 0 at the first stop, 10000 at the last',
    }),
  })
  .strict()
  .meta({ id: 'DashboardRouteStopInput' });

/**
 * The stop rules JSON Schema can state (domain/route-plan.ts checks them all): the first stop has no
 * running time, no dwell and fare share 0; every later stop sends at least a minute of running time.
 * The rest (the last stop's 10000 and no dwell, shares that rise at every stop, a day at most, each stop
 * once, stops the company may use, two cities) are SPEC 400s named in the description.
 */
const STOP = { $ref: '#/$defs/DashboardRouteStopInput' };
const STOP_ORDER = {
  prefixItems: [
    {
      allOf: [
        STOP,
        {
          properties: {
            running_minutes: { const: 0 },
            dwell_minutes: { const: 0 },
            fare_share_bp: { const: 0 },
          },
        },
      ],
    },
  ],
  items: {
    allOf: [STOP, { required: ['running_minutes'], properties: { running_minutes: { minimum: 1 } } }],
  },
};

export const RouteBody = z
  .object({
    name_ar: PrintedText(2, 120).optional(),
    name_en: PrintedText(2, 120).optional(),
    distance_km: z.int().min(1).max(5000).nullable().optional(),
    stops: z.array(RouteStopBody).min(2).max(MAX_ROUTE_STOPS).meta(STOP_ORDER),
  })
  .strict();

export const RoutesQuery = z.object(Pagination).strict();

const Route = z
  .object({
    id: UuidOut,
    name_ar: z.string(),
    name_en: z.string(),
    origin_city: NamedRefOut,
    destination_city: NamedRefOut,
    distance_km: z.int().nullable(),
    active: z.boolean(),
    duration_minutes: z.int(),
    stops: z.array(
      z.object({
        sequence: z.int(),
        stop_id: UuidOut,
        city_id: UuidOut,
        name_ar: z.string(),
        name_en: z.string(),
        running_minutes: z.int(),
        dwell_minutes: z.int(),
        fare_share_bp: z.int(),
      }),
    ),
    created_at: DateTime,
  })
  .meta({ id: 'DashboardRoute' });

export const PickupQuery = z.object({ city_id: Uuid }).strict();

export const PickupBody = z
  .object({
    city_id: Uuid,
    kind: z.enum(TRAVELLER_STOP_KINDS).default('BOARDING_POINT'),
    name: PrintedText(2, 120).meta({ description: 'Arabic name' }),
    nameEn: PrintedText(2, 120).optional().meta({ description: 'English name; the Arabic one when omitted' }),
    // Shown to travellers as the trip's pickupLocation: printable, like the names.
    address: PrintedText(3, 200),
    addressEn: PrintedText(3, 200).optional(),
    directions: PrintedText(0, 500).default(''),
    directionsEn: PrintedText(0, 500).optional(),
    latitude: Latitude,
    longitude: Longitude,
  })
  .strict();

const PickupPoint = PickupLocationSchema.extend({
  city_id: UuidOut,
  kind: z.string(),
  scope: z
    .enum(['PUBLIC', 'COMPANY'])
    .meta({ description: "PUBLIC: a shared station; COMPANY: the company's own" }),
});

export const docs = taggedOperations(TAGS, {
  listDashboardCities: {
    summary: 'Every city',
    description: 'Cities are shared by all companies. Any role may read them.',
    responses: answers(200, 'The cities', ok(z.array(City)), [401]),
  },
  addCity: {
    summary: 'Add a city (or find the one that exists)',
    description:
      `${WRITE_RULES} When either name matches an existing city's Arabic or English name ignoring case, diacritics ` +
      '(Latin accents, Arabic vowel marks and hamza seats), tatweel, invisible format characters (zero-width ' +
      'space, direction marks, soft hyphen) and the letters names write one for the other (Persian yeh and keheh, ' +
      'alef maksura for yeh, heh for teh marbuta, alef wasla), that city is answered with 200 and ' +
      'created: false, and nothing is written; otherwise the new city is answered with 201 and created: true. Two ' +
      'additions of the same name at once make one city. Each name needs a letter that matching keeps: tatweel and ' +
      'diacritics alone, also as compatibility characters made of them (U+FE70), are 400 VALIDATION_FAILED.',
    responses: {
      200: { description: 'The existing city', schema: ok(City).extend({ created: z.literal(false) }) },
      201: { description: 'The new city', schema: ok(City).extend({ created: z.literal(true) }) },
      ...errorResponses(400, 401, 403),
    },
  },
  listDashboardRoutes: {
    summary: "The company's routes with their stops",
    description: 'Ordered stops with running times, dwell times and fare shares. Any role may read them.',
    responses: answers(200, 'A page of routes', page(Route), [400, 401]),
  },
  createRoute: {
    summary: 'Create a route with its ordered stops',
    description:
      `${WRITE_RULES} 2 to ${MAX_ROUTE_STOPS} stops, each an enabled public stop or one of the company's own (no depot; ` +
      '400 ROUTE_STOP_NOT_ALLOWED) and each once (STOP_REPEATED). The first stop has no running time ' +
      '(FIRST_STOP_RUNNING_TIME), later ones at least a minute (RUNNING_TIME_INVALID); the ends have no dwell ' +
      '(END_STOP_DWELL); fare shares start at 0, end at 10000 and rise at every stop: a share below the one before is ' +
      'FARE_SHARE_DECREASES, an equal one (a leg that would cost nothing) or a wrong first or last share ' +
      'FARE_SHARE_INVALID; running and dwell times add up to at most a day (ROUTE_TOO_LONG). The origin and ' +
      'destination cities are those of the first and last stop and must differ (ROUTE_CITIES_MUST_DIFFER). Each ' +
      'refusal is 400 with that code and details.issues naming the offending stop (stops.<index>.<field>). The names ' +
      'default to "Origin – Destination". Trips on the route get their stop calls from these stops.',
    responses: answers(201, 'The route', ok(Route), [400, 401, 403]),
  },
  listPickupLocations: {
    summary: 'Pickup points of a city the company may use',
    description:
      "The enabled public stops (scope PUBLIC) and the company's own enabled points (scope COMPANY) of the city; " +
      "never depots, never another company's points. A trip's pickup_stop_id is one of these in the route's origin " +
      "city. The company's default pickup point (PATCH /settings) comes first, then public stops and the company's " +
      'own points by English name. Any role may read them.',
    responses: answers(200, 'The points', ok(z.array(PickupPoint)), [400, 401]),
  },
  createPickupLocation: {
    summary: 'Add a pickup point of the company',
    description:
      `${WRITE_RULES} Names of 2 to 120 characters, an address of 3 to 200 and directions of up to 500 (travellers ` +
      "see them as a trip's pickupLocation, so none may hold control or bidirectional-override characters: 400 " +
      `VALIDATION_FAILED), coordinates on the globe and within ` +
      `${PICKUP_MAX_KM_FROM_CITY} km of the city's centre (400 PICKUP_TOO_FAR_FROM_CITY); an unknown city is 404 ` +
      'CITY_NOT_FOUND. The point becomes a stop of the company (kind BOARDING_POINT unless given) that its trips may ' +
      'pick travellers up from; travellers see it in the journey directory.',
    responses: answers(201, 'The point', ok(PickupPoint), [400, 401, 403, 404]),
  },
});
