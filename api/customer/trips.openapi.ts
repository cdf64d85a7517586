import { z } from 'zod';
import { namedErrorCode, ruleIssue } from '../http/rule-issues.js';
import { CalendarDate, queryInteger, Uuid } from '../http/schemas.js';
import { IdText, NamedRef } from './catalogue.openapi.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText as DateTime, successWith, DelayMinutesText } from '../http/answer-schemas.js';

/** Schemas and prose of trip reads (SPEC GET /trips, GET /trips/{id}, GET /trips/{id}/seats). */

/** Response schemas of trip reads. */
export const StopIdentitySchema = z.object({
  stop_call_id: IdText.meta({
    description: 'the visit of this trip at the stop; send it to quote and booking',
  }),
  stop_id: IdText.meta({ description: 'the permanent physical stop; for display, map and navigation' }),
  id: IdText.meta({ description: 'backward-compatibility alias of stop_call_id', deprecated: true }),
  name_ar: z.string(),
  name_en: z.string(),
  kind: z.string(),
  city_id: IdText,
  city_name_ar: z.string(),
  city_name_en: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  arrival_at: DateTime,
  departure_at: DateTime,
  sequence: z.int(),
});

export const PickupLocationSchema = z
  .object({
    id: IdText,
    name: z.string(),
    nameEn: z.string(),
    address: z.string(),
    addressEn: z.string(),
    latitude: z.number(),
    longitude: z.number(),
    directions: z.string(),
    directionsEn: z.string(),
  })
  .meta({
    description:
      "Where the traveller is picked up: the stop itself, never city coordinates or a default station. It is the trip's " +
      'pickup stop only when the traveller boards at it, or, for a pickup point the trip does not call at, boards at ' +
      "the trip's first call in that city; otherwise the boarding stop (a bus never picks up at a stop it has left).",
  });

const BusSchema = z.object({ id: IdText, model: z.string(), amenities: z.array(z.string()) });

const TripSearchItem = z.object({
  id: IdText,
  trip_id: IdText,
  company_id: IdText,
  company: NamedRef,
  route_id: IdText,
  status: z.string(),
  departure_time: DateTime.meta({ description: 'departure of the boarding call' }),
  arrival_time: DateTime.meta({ description: 'arrival at the alighting call' }),
  price: z
    .number()
    .meta({ description: 'fare from board_stop_call_id to alight_stop_call_id: the whole trip' }),
  price_vip: z.number().nullable().meta({
    description:
      'full-trip VIP fare; null when the trip sells no VIP seats (no VIP fare, or no VIP-class seat on its bus)',
  }),
  currency: z.string(),
  available_seats: z.int().meta({ description: 'free seats from board_stop_call_id to alight_stop_call_id' }),
  total_seats: z.int(),
  board_stop_call_id: IdText,
  alight_stop_call_id: IdText,
  board: StopIdentitySchema,
  alight: StopIdentitySchema,
  bus: BusSchema,
  pickupLocation: PickupLocationSchema,
  pickup_location_id: IdText.meta({ deprecated: true }),
  pickup_name: z.string().meta({ deprecated: true }),
  pickup_name_en: z.string().meta({ deprecated: true }),
  pickup_address: z.string().meta({ deprecated: true }),
  pickup_address_en: z.string().meta({ deprecated: true }),
  pickup_latitude: z.number().meta({ deprecated: true }),
  pickup_longitude: z.number().meta({ deprecated: true }),
  pickup_directions: z.string().meta({ deprecated: true }),
  pickup_directions_en: z.string().meta({ deprecated: true }),
});

const TripSearchResponse = successWith(z.array(TripSearchItem));

const TripDetailFields = z.object({
  id: IdText,
  company_id: IdText,
  company: NamedRef,
  route_id: IdText,
  route: z.object({ id: IdText, origin_city: NamedRef, destination_city: NamedRef }),
  status: z.string().meta({ description: 'DELAYED once the company announced a delay (see delay_minutes)' }),
  departure_time: DateTime.meta({ description: 'planned departure from the first stop' }),
  arrival_time: DateTime,
  delay_minutes: DelayMinutesText,
  expected_departure_at: DateTime.meta({
    description:
      'the departure the company announced from the first stop: its planned departure plus delay_minutes (or how ' +
      'late the bus actually left, when more); departure_time when on time',
  }),
  price: z.number().meta({ description: 'full-trip fare' }),
  price_vip: z.number().nullable().meta({
    description:
      'VIP fare over the same stretch as price; null when the trip sells no VIP seats (no VIP fare, or no VIP-class seat on its bus)',
  }),
  currency: z.string(),
  total_seats: z.int(),
  available_seats: z.int().meta({
    description: 'seats free over the whole trip; 0 once the trip can no longer be booked',
  }),
  bus: BusSchema,
  pickupLocation: PickupLocationSchema,
  stop_calls: z.array(StopIdentitySchema),
});

const TripDetailResponse = successWith(
  TripDetailFields.extend({
    trip: TripDetailFields.meta({ description: 'the same trip object, for newer clients' }),
  }),
);

const LayoutElementSchema = z.object({
  type: z.enum(['seat', 'aisle', 'door', 'driver', 'stairs', 'toilet', 'table']),
  x: z.int(),
  y: z.int(),
  width: z.int(),
  height: z.int(),
  rotation: z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)]),
  deck: z.int(),
  seatId: z.string().optional(),
  seatNumber: z.string().optional(),
  seatClass: z.enum(['STANDARD', 'VIP']).optional(),
});

const SeatMapResponse = successWith(
  z.object({
    trip_id: IdText,
    board_stop_call_id: IdText,
    alight_stop_call_id: IdText,
    currency: z.string(),
    layout: z
      .object({
        schemaVersion: z.int(),
        grid: z.object({ columns: z.int(), rows: z.int(), decks: z.int() }),
        elements: z.array(LayoutElementSchema),
      })
      .meta({ description: 'the customer view of the active layout (management notes removed)' }),
    seats: z.array(
      z.object({
        seat_id: z.string().meta({ description: 'stable seat identity' }),
        seat_number: z.string().meta({ description: 'the label passengers see, such as 12 or A1' }),
        deck: z.int(),
        seat_class: z.enum(['STANDARD', 'VIP']),
        price: z.number().meta({ description: 'fare of this seat on the segment' }),
        available: z.boolean(),
      }),
    ),
    summary: z.object({ total: z.int(), available: z.int() }),
  }),
);

const ORIGIN_ALIASES = ['from', 'origin', 'origin_city_id'] as const;
const DESTINATION_ALIASES = ['to', 'dest', 'dest_city_id', 'destination_city_id'] as const;
type CityParameter = (typeof ORIGIN_ALIASES)[number] | (typeof DESTINATION_ALIASES)[number];
const CITY_PARAMETERS: readonly string[] = [...ORIGIN_ALIASES, ...DESTINATION_ALIASES];
const MAX_PASSENGERS = 50;

/** A city parameter; an empty value (a form that left the city unchosen) counts as not sent. */
const cityParameter = (description: string) =>
  Uuid.or(z.literal(''))
    .optional()
    .meta({ description: `${description}; empty: not sent` });

/**
 * GET /trips query: every old and new parameter name is accepted; two names of one parameter
 * must agree. Resolves to one origin, one destination, a date and a passenger count.
 */
export const TripSearchQuery = z
  .object({
    from: cityParameter('origin city id (legacy name)'),
    origin: cityParameter('origin city id (legacy name)'),
    origin_city_id: cityParameter('origin city id'),
    to: cityParameter('destination city id (legacy name)'),
    dest: cityParameter('destination city id (legacy name)'),
    dest_city_id: cityParameter('destination city id (legacy name)'),
    destination_city_id: cityParameter('destination city id'),
    date: CalendarDate.meta({ description: 'departure date from the origin, Damascus calendar' }),
    passengers: queryInteger(z.int().min(1).max(MAX_PASSENGERS).default(1)),
  })
  .strict()
  .transform((query, ctx) => {
    const sent = (name: CityParameter) => query[name] !== undefined && query[name] !== '';
    const resolve = (names: readonly CityParameter[], role: string) => {
      const given = names.filter(sent);
      const values = new Set(given.map((name) => query[name]));
      if (values.size > 1) {
        ctx.addIssue(
          ruleIssue('CONFLICTING_PARAMETERS', `${given.join(', ')} name the ${role} city differently`, given),
        );
      } else if (values.size === 0) {
        ctx.addIssue(
          ruleIssue('CITY_IDS_REQUIRED', `the ${role} city is required (${names.join(' or ')})`, [
            names[names.length - 1]!,
          ]),
        );
      }
      return [...values][0];
    };
    const originCityId = resolve(ORIGIN_ALIASES, 'origin');
    const destinationCityId = resolve(DESTINATION_ALIASES, 'destination');
    if (!originCityId || !destinationCityId) return z.NEVER;
    // Refused as journey search refuses it: a trip calling twice in one city is no journey between cities.
    if (originCityId === destinationCityId) {
      const named = DESTINATION_ALIASES.filter(sent);
      ctx.addIssue(ruleIssue('ROUTE_CITIES_MUST_DIFFER', 'origin and destination are the same city', named));
      return z.NEVER;
    }
    return { originCityId, destinationCityId, date: query.date, passengers: query.passengers };
  });

export function tripSearchErrorCode(issues: z.core.$ZodIssue[]): string {
  const named = issues.map(namedErrorCode).find((code) => code !== undefined);
  if (named) return named;
  if (
    issues.some((issue) => issue.code === 'invalid_format' && CITY_PARAMETERS.includes(String(issue.path[0])))
  ) {
    return 'INVALID_CITY_ID';
  }
  return 'VALIDATION_FAILED';
}

export const TripIdParams = z.object({ id: Uuid }).strict();
export const invalidTripId = (_issues: unknown, part: 'params' | 'query' | 'body') =>
  part === 'params' ? 'INVALID_TRIP_ID' : 'VALIDATION_FAILED';

export const SeatMapQuery = z
  .object({
    board_stop_call_id: Uuid.optional().meta({
      description: 'boarding stop call; default the first call of the trip',
    }),
    alight_stop_call_id: Uuid.optional().meta({
      description: 'alighting stop call; default the last call of the trip',
    }),
  })
  .strict();

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Trips'], {
  searchTrips: {
    summary: 'Legacy-compatible direct trip search',
    description:
      'Old and new parameter names are all accepted: from | origin | origin_city_id, and to | dest | dest_city_id | ' +
      'destination_city_id. Two names of one parameter with different values give 400 CONFLICTING_PARAMETERS; a ' +
      'missing city gives 400 CITY_IDS_REQUIRED; the same city as origin and destination gives 400 ' +
      'ROUTE_CITIES_MUST_DIFFER (the code SPEC gives for equal cities; journey search answers SAME_ORIGIN_AND_DESTINATION); unknown parameters are refused. Same inventory ' +
      "limits as journey search: the caller's inventory scope, bookable trips, future departures, public stops, at least `passengers` " +
      'free seats on the stretch sold. POST /seat-locks and POST /bookings sell the whole trip and board the traveller ' +
      'at its first stop call, so results are direct trips that start in the origin city (their first stop call is ' +
      'there, public, on `date` (Damascus) and not yet departed) and call later in the destination city, ordered by ' +
      'departure; a trip that only passes through the origin city is not listed (POST /journeys/search offers ' +
      'boarding further along). price, price_vip and available_seats cover its first stop call to its last, which ' +
      'board_stop_call_id and alight_stop_call_id name (GET /trips/{id}/seats with them shows the same prices); ' +
      "board, departure_time and pickupLocation are the first stop call's, while alight and arrival_time stay the " +
      "destination city's first stop call; a trip whose last stop call is not public is not listed. pickupLocation is " +
      "where a traveller boarding at the result's board call is picked up (see PickupLocation), as GET /trips/{id} " +
      'and the booking give it; the flat pickup_* fields repeat it for migrated ' +
      'mobile clients and are deprecated. Rate limited per client IP with the same budget as POST /journeys/search: ' +
      'requests to either path, invalid ones included, count against one limit, and over it both answer 429 ' +
      'RATE_LIMITED with Retry-After. A party no account may hold on one trip (passengers above HELD_SEATS_MAX_PER_TRIP, ' +
      '10, or HELD_SEATS_MAX_TOTAL when lower: no seat lock could take it) is 409 SEAT_HOLD_LIMIT_REACHED, details ' +
      '{scope: TRIP or ACCOUNT, limit, requested}, as journey search answers it; 0 turns a cap off.',
    responses: answers(200, 'Matching trips', TripSearchResponse, [400, 401, 409, 429]),
  },
  getTrip: {
    summary:
      'One trip: fields at the top of data (older clients) and the same object under data.trip (newer clients)',
    description:
      "A trip that does not exist and a trip outside the caller's inventory scope both give the same 404 TRIP_NOT_FOUND. " +
      'available_seats counts seats free over the whole trip, and is 0 once the trip can no longer be booked (a status ' +
      'other than SCHEDULED, BOARDING or DELAYED, or a first stop call already departed), as a seat lock would refuse it ' +
      '(409 TRIP_NOT_BOOKABLE); stop_calls lists the public stop calls in order. pickupLocation is that of a ' +
      'traveller of the whole trip, boarding at its first stop call, and so is expected_departure_at: the departure ' +
      'the company announced from it (the planned time plus delay_minutes, the MARK_DELAYED delay), which a booking of ' +
      "the whole trip's cancel and modification cut-offs count from.",
    responses: answers(200, 'The trip', TripDetailResponse, [400, 401, 404]),
  },
  getTripSeats: {
    summary: 'Seat map of a trip for a segment (default: the whole trip)',
    description:
      "Drawn from the bus's active, valid layout, with management notes removed. A seat is available when no confirmed " +
      'allocation and no unexpired hold overlaps the segment and the trip can still be booked from the boarding call: ' +
      'status SCHEDULED, BOARDING or DELAYED and a boarding call that departs after now (else no seat is available). ' +
      'board_stop_call_id and alight_stop_call_id must be public stop calls of this trip with boarding first and a ' +
      'fare between them (else 400 INVALID_SEGMENT). No active valid layout gives 409 ' +
      "LAYOUT_NOT_AVAILABLE; a trip outside the caller's scope gives the same 404 as a missing one.",
    responses: answers(200, 'The seat map', SeatMapResponse, [400, 401, 404, 409]),
  },
});
