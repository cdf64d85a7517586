import type { Context } from 'koa';
import { findOwnBooking, listOwnBookings } from '../../db/queries/customer-bookings.js';
import { releaseOverdueScopesOf } from '../../db/writes/journeys/index.js';
import { bookingNotFound } from '../../domain/booking-rules.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { docs, ListQuery } from './booking-reads.openapi.js';
import { ok } from '../http/respond.js';

/**
 * GET /bookings and GET /bookings/{id}: a traveller's own bookings (SPEC "Bookings (customer API)"),
 * read once a request past its decision deadline is released (releaseOverdueScopesOf), as the
 * journey's projection shows it.
 */

export const travellerOf = (ctx: Context) => ctx.state.traveller!;

export function registerBookingReadRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.listBookings,
    method: 'get',
    path: '/bookings',
    security: 'traveller',
    query: ListQuery,
    handler: async (ctx, { query }) => {
      const { userId } = travellerOf(ctx);
      await releaseOverdueScopesOf(db, { kind: 'TRAVELLER', id: userId });
      const page = await listOwnBookings(db, userId, query);
      ok(ctx, { ...page, limit: query.limit, offset: query.offset });
    },
  });

  surface.route({
    ...docs.getBooking,
    method: 'get',
    path: '/bookings/{id}',
    security: 'traveller',
    params: IdParams,
    handler: async (ctx, { params }) => {
      await releaseOverdueScopesOf(db, { kind: 'BOOKING', id: params.id });
      const booking = await findOwnBooking(db, travellerOf(ctx).userId, params.id);
      if (!booking) throw bookingNotFound();
      ok(ctx, booking);
    },
  });
}
