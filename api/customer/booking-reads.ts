import type { Context } from 'koa';
import { findOwnBooking, listOwnBookings } from '../../db/queries/customer-bookings.js';
import { bookingNotFound } from '../../domain/booking-rules.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { BookingList, BookingResponse, ListQuery, OWN_RULE } from './booking-reads.openapi.js';

/** GET /bookings and GET /bookings/{id}: a traveller's own bookings (SPEC "Bookings (customer API)"). */

export const travellerOf = (ctx: Context) => ctx.state.traveller!;

export function registerBookingReadRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/bookings',
    operationId: 'listBookings',
    summary: "The traveller's bookings",
    description: `Newest first; limit (1 to 100, default 20) and offset; total counts them all. ${OWN_RULE}`,
    tags: ['Bookings'],
    security: 'traveller',
    query: ListQuery,
    responses: {
      200: { description: 'A page of bookings', schema: BookingList },
      ...errorResponses(400, 401),
    },
    handler: async (ctx, { query }) => {
      const page = await listOwnBookings(db, travellerOf(ctx).userId, query);
      ctx.body = { success: true, data: { ...page, limit: query.limit, offset: query.offset } };
    },
  });

  surface.route({
    method: 'get',
    path: '/bookings/{id}',
    operationId: 'getBooking',
    summary: 'One of the traveller’s bookings',
    description: `The booking with its trip (trip.pickupLocation), amounts, confirmation and tickets. ${OWN_RULE}`,
    tags: ['Bookings'],
    security: 'traveller',
    params: IdParams,
    responses: {
      200: { description: 'The booking', schema: BookingResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { params }) => {
      const booking = await findOwnBooking(db, travellerOf(ctx).userId, params.id);
      if (!booking) throw bookingNotFound();
      ctx.body = { success: true, data: booking };
    },
  });
}
