import type { Context } from 'koa';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { cancelOwnBooking, modifyOwnBooking } from '../use-cases/booking-changes.js';
import { CANCEL_RULES, MODIFY_RULES, ModifyBody } from './booking-changes.openapi.js';
import { BookingResponse } from './booking-reads.openapi.js';
import { travellerOf } from './booking-reads.js';

/** PATCH /bookings/{id} (modify) and POST /bookings/{id}/cancel: a traveller's own changes. */

export function registerBookingChangeRoutes(surface: Surface, { db, config }: AppContext): void {
  const caller = (ctx: Context) => ({ userId: travellerOf(ctx).userId, scope: ctx.state.scope });

  surface.route({
    method: 'patch',
    path: '/bookings/{id}',
    operationId: 'modifyBooking',
    summary: 'Move a booking to another trip or other seats',
    description: MODIFY_RULES,
    tags: ['Bookings'],
    security: 'traveller',
    params: IdParams,
    body: ModifyBody,
    responses: {
      200: { description: 'The booking as modified', schema: BookingResponse },
      ...errorResponses(400, 401, 403, 404, 409, 422),
    },
    handler: async (ctx, { params, body }) => {
      const booking = await modifyOwnBooking(
        db,
        caller(ctx),
        { bookingId: params.id, newTripId: body.newTripId, newSeatNumbers: body.newSeatNumbers },
        { signing: { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM } },
      );
      ctx.body = { success: true, data: booking };
    },
  });

  surface.route({
    method: 'post',
    path: '/bookings/{id}/cancel',
    operationId: 'cancelBooking',
    summary: 'Cancel a booking',
    description: CANCEL_RULES,
    tags: ['Bookings'],
    security: 'traveller',
    params: IdParams,
    responses: {
      200: { description: 'The booking, CANCELLED', schema: BookingResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { params }) => {
      const cutoffMinutes = config.BOOKING_CANCEL_CUTOFF_MINUTES;
      const booking = await cancelOwnBooking(db, caller(ctx), params.id, { cutoffMinutes });
      ctx.body = { success: true, data: booking };
    },
  });
}
