import { flatPickupFields } from '../../db/queries/pickup-location.js';
import { findTripDetail, searchTrips, tripSeatMap } from '../../db/queries/trips.js';
import type { AppContext } from '../app.js';
import { Refusal, badRequest, conflict } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import {
  invalidTripId,
  SEAT_MAP_DESCRIPTION,
  SeatMapQuery,
  SeatMapResponse,
  TRIP_DESCRIPTION,
  TRIP_SEARCH_DESCRIPTION,
  TripDetailResponse,
  TripIdParams,
  TripSearchResponse,
  TripSearchQuery,
  tripSearchErrorCode,
} from './trips.openapi.js';

/** Schemas other route modules show trips with. */
export { PickupLocationSchema, StopIdentitySchema } from './trips.openapi.js';

/** Out of scope and missing answer identically, so a guessed id reveals nothing. */
const tripNotFound = () => new Refusal(404, 'TRIP_NOT_FOUND', 'No such trip');

export function registerTripRoutes(surface: Surface, context: AppContext): void {
  registerTripSearchRoute(surface, context);
  registerTripReadRoutes(surface, context);
}

function registerTripSearchRoute(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/trips',
    operationId: 'searchTrips',
    summary: 'Legacy-compatible direct trip search',
    description: TRIP_SEARCH_DESCRIPTION,
    tags: ['Trips'],
    security: 'optionalTraveller',
    query: TripSearchQuery,
    errorCode: tripSearchErrorCode,
    responses: {
      200: { description: 'Matching trips', schema: TripSearchResponse },
      ...errorResponses(400, 401),
    },
    handler: async (ctx, { query }) => {
      const trips = await searchTrips(db, { scope: ctx.state.scope, ...query });
      ctx.body = {
        success: true,
        data: trips.map((trip) => ({ ...trip, ...flatPickupFields(trip.pickupLocation) })),
      };
    },
  });
}

function registerTripReadRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/trips/{id}',
    operationId: 'getTrip',
    summary:
      'One trip: fields at the top of data (older clients) and the same object under data.trip (newer clients)',
    description: TRIP_DESCRIPTION,
    tags: ['Trips'],
    security: 'optionalTraveller',
    params: TripIdParams,
    errorCode: invalidTripId,
    responses: {
      200: { description: 'The trip', schema: TripDetailResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { params }) => {
      const trip = await findTripDetail(db, ctx.state.scope, params.id);
      if (!trip) throw tripNotFound();
      ctx.body = { success: true, data: { ...trip, trip } };
    },
  });

  surface.route({
    method: 'get',
    path: '/trips/{id}/seats',
    operationId: 'getTripSeats',
    summary: 'Seat map of a trip for a segment (default: the whole trip)',
    description: SEAT_MAP_DESCRIPTION,
    tags: ['Trips'],
    security: 'optionalTraveller',
    params: TripIdParams,
    query: SeatMapQuery,
    errorCode: invalidTripId,
    responses: {
      200: { description: 'The seat map', schema: SeatMapResponse },
      ...errorResponses(400, 401, 404, 409),
    },
    handler: async (ctx, { params, query }) => {
      const result = await tripSeatMap(db, ctx.state.scope, params.id, {
        boardStopCallId: query.board_stop_call_id,
        alightStopCallId: query.alight_stop_call_id,
      });
      switch (result.outcome) {
        case 'TRIP_NOT_FOUND':
          throw tripNotFound();
        case 'INVALID_SEGMENT':
          throw badRequest('INVALID_SEGMENT', result.reason);
        case 'LAYOUT_NOT_AVAILABLE':
          throw conflict('LAYOUT_NOT_AVAILABLE', 'This trip has no seat layout that can be booked');
        case 'OK':
          ctx.body = { success: true, data: result.seatMap };
      }
    },
  });
}
