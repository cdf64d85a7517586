import { z } from 'zod';
import { RESOURCE_CODES } from '../../domain/journey-quote.js';
import { MAX_JOURNEYS } from '../../domain/journey-search.js';
import { operations } from '../http/route.js';
import { namedErrorCode, ruleIssue } from '../http/rule-issues.js';
import { CalendarDate, Currency, errorResponses, Instant, Locale, Uuid } from '../http/schemas.js';
import { StopIdentitySchema } from './trips.openapi.js';
import { IdText, successWith } from '../http/answer-schemas.js';

/** Schemas and prose of journey search and quote (SPEC POST /journeys/search, POST /journeys/quote). */

/**
 * A rule's errorCode when every issue is a named rule (the first one wins); any issue of shape,
 * type or range makes the answer the generic VALIDATION_FAILED.
 */
export function errorCodeOf(issues: z.core.$ZodIssue[]): string {
  const codes = issues.map(namedErrorCode);
  return codes.every((code) => code !== undefined) && codes.length ? codes[0]! : 'VALIDATION_FAILED';
}

const Passengers = z.int().min(1).max(20);

export const SearchBody = z
  .object({
    origin_city_id: Uuid.optional(),
    origin_stop_id: Uuid.optional(),
    destination_city_id: Uuid.optional(),
    destination_stop_id: Uuid.optional(),
    departure_date: CalendarDate.meta({ description: 'operating date in Asia/Damascus; today or later' }),
    passengers: Passengers,
    locale: Locale.default('ar'),
    currency: Currency.default('SYP'),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.origin_city_id === undefined) === (body.origin_stop_id === undefined)) {
      ctx.addIssue(
        ruleIssue('EXACTLY_ONE_ORIGIN', 'send exactly one of origin_city_id and origin_stop_id', [
          'origin_city_id',
        ]),
      );
    }
    if ((body.destination_city_id === undefined) === (body.destination_stop_id === undefined)) {
      ctx.addIssue(
        ruleIssue(
          'EXACTLY_ONE_DESTINATION',
          'send exactly one of destination_city_id and destination_stop_id',
          ['destination_city_id'],
        ),
      );
    }
  })
  .meta({
    id: 'JourneySearchRequest',
    description:
      'Exactly one origin (origin_city_id or origin_stop_id: 400 EXACTLY_ONE_ORIGIN) and exactly one destination ' +
      '(destination_city_id or destination_stop_id: 400 EXACTLY_ONE_DESTINATION).',
    allOf: [
      { oneOf: [{ required: ['origin_city_id'] }, { required: ['origin_stop_id'] }] },
      { oneOf: [{ required: ['destination_city_id'] }, { required: ['destination_stop_id'] }] },
    ],
  });

const JourneyLegSchema = z.object({
  sequence: z.int().meta({ description: '1-based' }),
  trip_id: IdText,
  company_id: IdText,
  company: z.object({ id: IdText, name_ar: z.string(), name_en: z.string() }),
  departure_at: Instant,
  arrival_at: Instant,
  duration_minutes: z.int(),
  price: z.number(),
  price_vip: z.number().nullable().meta({
    description: 'null when the trip sells no VIP seats (no VIP fare, or no VIP-class seat on its bus)',
  }),
  currency: z.string(),
  free_seats: z.int(),
  board: StopIdentitySchema,
  alight: StopIdentitySchema,
});

const JourneySchema = z
  .object({
    journey_key: z.string().meta({ description: 'stable key built from the legs (trip and stop calls)' }),
    departure_at: Instant,
    arrival_at: Instant,
    duration_minutes: z.int(),
    transfers: z.union([z.literal(0), z.literal(1)]),
    total_price: z.number().meta({
      description:
        "one traveller's standard fare over the legs, whatever `passengers` is (the quote prices the party)",
    }),
    currency: z.string(),
    free_seats: z.int().meta({ description: 'the smallest free seat count over the legs' }),
    legs: z.array(JourneyLegSchema),
    transfer: z
      .object({ kind: z.enum(['SAME_STOP', 'SAME_CITY']), city_id: IdText, wait_minutes: z.int() })
      .nullable(),
  })
  .meta({ id: 'Journey' });

const SearchResponse = successWith(
  z.object({
    journeys: z.array(JourneySchema),
    search: z
      .object({
        origin_city_id: IdText.optional(),
        origin_stop_id: IdText.optional(),
        destination_city_id: IdText.optional(),
        destination_stop_id: IdText.optional(),
        fromType: z.enum(['city', 'stop']),
        toType: z.enum(['city', 'stop']),
        departure_date: z.string(),
        passengers: z.int(),
        locale: Locale,
        currency: Currency,
      })
      .meta({ description: 'the search as understood (defaults applied, ids in lower case)' }),
  }),
);

const SeatLabel = z
  .string()
  .min(1)
  .max(32)
  .meta({ description: 'passenger-visible seat label (seatNumber)' });

export const QuoteBody = z
  .object({
    party_size: Passengers,
    locale: Locale.default('ar'),
    currency: Currency.default('SYP'),
    legs: z
      .array(
        z
          .object({
            trip_id: Uuid,
            board_stop_call_id: Uuid.meta({
              description: 'board.stop_call_id from search; a stop_id is refused',
            }),
            alight_stop_call_id: Uuid.meta({
              description: 'alight.stop_call_id from search; a stop_id is refused',
            }),
          })
          .strict(),
      )
      .min(1)
      .max(2),
    resources: z
      .array(
        z
          .object({
            leg_sequence: z.int().min(1).max(2),
            resource_code: z.enum(RESOURCE_CODES),
            quantity: Passengers,
            assignments: z.array(SeatLabel).max(20).default([]),
          })
          .strict(),
      )
      .min(1)
      .max(8),
    idempotency_key: z
      .string()
      .regex(/^[A-Za-z0-9_-]{8,128}$/, 'must be 8 to 128 characters of A-Z a-z 0-9 _ -'),
  })
  .strict()
  .superRefine((body, ctx) => {
    body.resources.forEach((resource, index) => {
      if (resource.leg_sequence > body.legs.length) {
        ctx.addIssue({
          code: 'custom',
          message: 'leg_sequence names no leg of this request',
          path: ['resources', index, 'leg_sequence'],
        });
      }
      if (resource.assignments.length > resource.quantity) {
        ctx.addIssue(
          ruleIssue('ASSIGNMENTS_EXCEED_QUANTITY', 'more seats assigned than asked for', [
            'resources',
            index,
            'assignments',
          ]),
        );
      }
    });
    body.legs.forEach((_leg, index) => {
      const resources = body.resources.filter((resource) => resource.leg_sequence === index + 1);
      const quantity = resources.reduce((sum, resource) => sum + resource.quantity, 0);
      if (quantity !== body.party_size) {
        ctx.addIssue(
          ruleIssue(
            'RESOURCES_DO_NOT_MATCH_PARTY',
            `leg ${index + 1} has ${quantity} places for a party of ${body.party_size}`,
            ['resources'],
          ),
        );
      }
      const labels = resources.flatMap((resource) => resource.assignments);
      if (new Set(labels).size !== labels.length) {
        ctx.addIssue(
          ruleIssue('DUPLICATE_SEAT_ASSIGNMENT', `a seat is assigned twice on leg ${index + 1}`, [
            'resources',
          ]),
        );
      }
    });
  })
  .meta({ id: 'JourneyQuoteRequest' });

const QuotedLegSchema = z.object({
  sequence: z.int(),
  trip_id: IdText,
  company_id: IdText,
  board: StopIdentitySchema,
  alight: StopIdentitySchema,
  unit_price: z.number().meta({ description: 'standard fare of this leg' }),
  quantity: z.int(),
  subtotal: z.number(),
  resources: z.array(
    z.object({
      resource_code: z.enum(RESOURCE_CODES),
      quantity: z.int(),
      unit_price: z.number(),
      subtotal: z.number(),
      assignments: z.array(z.string()),
      assignment_classes: z.array(z.enum(['STANDARD', 'VIP'])).meta({
        description:
          'the seat class each assignment was priced at, in order; a hold finding another class is 409 SEATS_UNAVAILABLE',
      }),
    }),
  ),
  assignments: z.array(z.string()),
});

const QuoteResponse = successWith(
  z
    .object({
      quote_id: IdText,
      journey_id: IdText.meta({ description: 'the draft journey id hold and confirm take as {bookingId}' }),
      expiresAt: z.int().meta({ description: 'Unix epoch seconds' }),
      party_size: z.int(),
      currency: z.string(),
      total_price: z.number().meta({
        description:
          "the whole party's: each assigned seat at its own class's fare, the others at their resource's (SEAT standard, VIP_SEAT VIP)",
      }),
      legs: z.array(QuotedLegSchema),
    })
    .meta({ id: 'JourneyQuote' }),
);

/** The docs of each route, in the order they are registered. */
export const docs = operations({
  searchJourneys: {
    summary: 'Search journeys between two cities or stops on one day',
    description:
      'Read-only: no session or CSRF header needed; a bearer or cookie identity, when sent, decides the inventory scope ' +
      '(an invalid or expired one is a 401, never public data). Exactly one of origin_city_id / origin_stop_id and of ' +
      'destination_city_id / destination_stop_id. A city covers every public stop of it; depots and disabled stops never ' +
      "match, and a stop of a company outside the caller's inventory scope is answered like an unknown one (404 " +
      'LOCATION_NOT_FOUND). Legs board on departure_date (Damascus) at a call still in the future, with enough free seats on the ridden ' +
      'part of the trip. Connections with one change (same stop, or another stop of the same city, within the configured ' +
      "change times counted from the first leg's expected arrival, its planned arrival plus its announced delay, which " +
      'transfer.wait_minutes shows; the second leg may leave after midnight) are offered only when the day has no direct journey. A trip ' +
      'calling at several stops of the origin or destination city is offered once, with its earliest boarding that has seats ' +
      'for the party and then earliest arrival. Order: departure, duration, price, then journey_key; at most ' +
      `${MAX_JOURNEYS} journeys, the first in that order. Rate limited per client IP, ` +
      'one budget with GET /trips (its legacy form): requests to either path count against it. ' +
      'The same search in the same inventory scope is answered from a per-process cache for SEARCH_CACHE_SECONDS (5 s), and for ' +
      'as long again while one background search refreshes it: free-seat counts may lag by up to twice that; the hold is the ' +
      'authority on seats. Refusals: 400 EXACTLY_ONE_ORIGIN, EXACTLY_ONE_DESTINATION (not exactly one of each pair sent), ' +
      'DEPARTURE_DATE_IN_PAST (departure_date before today in Damascus; today is searched, for the calls still to ' +
      'come), SAME_ORIGIN_AND_DESTINATION (both ends the same place, or in the same city), ' +
      'VALIDATION_FAILED (any other field missing, malformed or unknown); 409 SEAT_HOLD_LIMIT_REACHED (more passengers ' +
      'than one account may hold on a trip, HELD_SEATS_MAX_PER_TRIP (10) or HELD_SEATS_MAX_TOTAL if lower, so no hold ' +
      'could place the party; details {scope: TRIP or ACCOUNT, limit, requested}; 0 turns a cap off); 404 ' +
      'LOCATION_NOT_FOUND; 429 RATE_LIMITED.',
    tags: ['Journeys'],
    responses: {
      200: {
        description: 'Journeys, possibly none',
        schema: SearchResponse,
      },
      ...errorResponses(400, 401, 404, 409, 429),
    },
  },
  quoteJourney: {
    summary: 'Price legs and resources from a search result (holds nothing)',
    description:
      'Takes the stop_call_id values of search results (a stop_id in their place is refused with STOP_ID_NOT_ACCEPTED). ' +
      "Guests may quote; a signed-in traveller owns the quote. A trip outside the caller's inventory scope is answered " +
      'exactly like a missing one (404 TRIP_NOT_FOUND). A leg between two stop calls with the same fare share is not ' +
      'sold (400 STOP_CALL_NOT_BOOKABLE). Two legs must chain: the second boards at the stop or in the city ' +
      "where the first alights, within the change times counted from the first leg's expected arrival (its planned " +
      'arrival plus its announced delay), else 400 LEGS_NOT_CONNECTED. A journey whose first boarding call and last ' +
      'alighting call are in the same city is not sold, as search offers no such route (400 SAME_ORIGIN_AND_DESTINATION). ' +
      'Per leg the resource quantities add up to party_size; ' +
      'VIP_SEAT, and a SEAT assigned a VIP-class seat, cost the VIP fare; a VIP_SEAT on a trip without a VIP fare, or on ' +
      'a bus whose layout has no VIP-class seat, is 400 RESOURCE_NOT_OFFERED. No inventory is written; the quote is stored ' +
      'and expires after the configured time (expiresAt, epoch seconds). idempotency_key is replayed per signed-in ' +
      "traveller: the same key and body return that traveller's stored quote again (same quote_id); the same key with " +
      "another body is 409 IDEMPOTENCY_KEY_REUSED. A guest's request always quotes anew (new quote_id and journey_id), " +
      'whatever its key: a guest has no identity to scope a key by.\n\n' +
      'Refusals (nothing is stored; a refusal found on one leg carries details.leg_sequence). The body first: 400 ' +
      "RESOURCES_DO_NOT_MATCH_PARTY (a leg's resource quantities do not add up to party_size), " +
      'ASSIGNMENTS_EXCEED_QUANTITY (a resource assigns more seats than its quantity), DUPLICATE_SEAT_ASSIGNMENT (one ' +
      'seat assigned twice on a leg); when the body also breaks a rule of shape (a missing or malformed field, an ' +
      'unknown one, a leg_sequence naming no leg of the request) it is 400 VALIDATION_FAILED instead, its issues in ' +
      'details.issues. Then the party: 409 SEAT_HOLD_LIMIT_REACHED when no hold could place it (party_size above ' +
      'HELD_SEATS_MAX_PER_TRIP, 10, or party_size times the legs above HELD_SEATS_MAX_TOTAL, 20; details {scope: TRIP ' +
      'or ACCOUNT, limit, requested}; 0 turns a cap off), as search refuses it. ' +
      'Then each leg, in order: 400 STOP_ID_NOT_ACCEPTED; 404 TRIP_NOT_FOUND; 400 STOP_CALL_NOT_ON_TRIP ' +
      "(a stop call id that is not one of this trip's calls); 400 INVALID_LEG_DIRECTION (the alighting call is not " +
      'after the boarding call); 400 STOP_CALL_NOT_BOOKABLE (a call travellers cannot board or alight at, or two calls ' +
      'of the same fare share); 409 TRIP_NOT_BOOKABLE (the trip is not on sale: cancelled, departed, or its boarding ' +
      'call has left). Then the legs together: 400 LEGS_NOT_CONNECTED, SAME_ORIGIN_AND_DESTINATION. Then the seats of ' +
      'each leg: 400 RESOURCE_NOT_OFFERED; 400 SEAT_NOT_FOUND (an assigned label the bus layout does not have; ' +
      'details.seats); 400 SEAT_CLASS_MISMATCH (a VIP_SEAT assigned a standard-class seat; details.seats); 409 ' +
      'SEAT_OCCUPIED (an assigned seat already taken on the ridden stretch; details.seats); 409 ' +
      'INSUFFICIENT_SEATS (fewer free seats on the ridden stretch than party_size, details.free_seats; or fewer free ' +
      'VIP-class seats than the unassigned VIP_SEATs plus the VIP-class seats assigned, details.free_vip_seats). A ' +
      'quote is no reservation: seats free now may be taken before the hold, which is the authority.',
    tags: ['Journeys'],
    responses: {
      200: {
        description: 'The quote (or the stored one for a retry)',
        schema: QuoteResponse,
      },
      ...errorResponses(400, 401, 403, 404, 409),
    },
  },
});
