import { flatPickupFields } from '../../db/queries/pickup-location.js';
import { searchTrips } from '../../db/queries/trip-search.js';
import { findTripDetail, tripSeatMap } from '../../db/queries/trips.js';
import type { AppContext } from '../app.js';
import { accountCaps, requireHoldableParty } from '../http/abuse-limits.js';
import { clientKey } from '../http/client-address.js';
import { badRequest, conflict, Refusal } from '../http/errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { Surface } from '../http/route.js';
import {
  docs,
  invalidTripId,
  SeatMapQuery,
  TripIdParams,
  tripSearchErrorCode,
  TripSearchQuery,
} from './trips.openapi.js';
import { ok } from '../http/respond.js';

/** Schemas other route modules show trips with. */
export { PickupLocationSchema, StopIdentitySchema } from './trips.openapi.js';

/** Out of scope and missing answer identically, so a guessed id reveals nothing. */
const tripNotFound = () => new Refusal(404, 'TRIP_NOT_FOUND', 'No such trip');

/** `searchLimit`: the journey search's per-IP limit (journeySearchLimit), which GET /trips shares. */
export function registerTripRoutes(surface: Surface, context: AppContext, searchLimit: RateLimiter): void {
  registerTripSearchRoute(surface, context, searchLimit);
  registerTripReadRoutes(surface, context);
}

function registerTripSearchRoute(
  surface: Surface,
  { config, db }: AppContext,
  searchLimit: RateLimiter,
): void {
  const caps = accountCaps(config);
  // The legacy form of the journey search spends its budget: counted per client IP before anything
  // else runs, invalid requests included, as POST /journeys/search is.
  surface.router.get('/trips', searchLimit.middleware(clientKey));
  surface.route({
    ...docs.searchTrips,
    method: 'get',
    path: '/trips',
    security: 'optionalTraveller',
    query: TripSearchQuery,
    errorCode: tripSearchErrorCode,
    handler: async (ctx, { query }) => {
      // No trip is listed for a party that no seat lock or hold could place.
      requireHoldableParty(caps, query.passengers);
      const trips = await searchTrips(db, { scope: ctx.state.scope, ...query });
      ok(
        ctx,
        trips.map((trip) => ({ ...trip, ...flatPickupFields(trip.pickupLocation) })),
      );
    },
  });
}

function registerTripReadRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.getTrip,
    method: 'get',
    path: '/trips/{id}',
    security: 'optionalTraveller',
    params: TripIdParams,
    errorCode: invalidTripId,
    handler: async (ctx, { params }) => {
      const trip = await findTripDetail(db, ctx.state.scope, params.id);
      if (!trip) throw tripNotFound();
      ok(ctx, { ...trip, trip });
    },
  });

  surface.route({
    ...docs.getTripSeats,
    method: 'get',
    path: '/trips/{id}/seats',
    security: 'optionalTraveller',
    params: TripIdParams,
    query: SeatMapQuery,
    errorCode: invalidTripId,
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
          ok(ctx, result.seatMap);
      }
    },
  });
}
