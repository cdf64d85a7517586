import type { Context } from 'koa';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { cancelOwnBooking, modifyOwnBooking } from '../use-cases/booking-changes.js';
import { documentSharing } from '../use-cases/document-sharing.js';
import { docs, ModifyBody } from './booking-changes.openapi.js';
import { travellerOf } from './booking-reads.js';
import { channelOf } from './seat-locks.js';
import { ok } from '../http/respond.js';

/** PATCH /bookings/{id} (modify) and POST /bookings/{id}/cancel: a traveller's own changes. */

export function registerBookingChangeRoutes(surface: Surface, context: AppContext): void {
  const { db, config } = context;
  const sharing = documentSharing(context);
  const caller = (ctx: Context) => ({
    userId: travellerOf(ctx).userId,
    scope: ctx.state.scope,
    channel: channelOf(ctx),
  });

  surface.route({
    ...docs.modifyBooking,
    method: 'patch',
    path: '/bookings/{id}',
    security: 'traveller',
    params: IdParams,
    body: ModifyBody,
    handler: async (ctx, { params, body }) => {
      const booking = await modifyOwnBooking(
        sharing,
        caller(ctx),
        { bookingId: params.id, newTripId: body.newTripId, newSeatNumbers: body.newSeatNumbers },
        { signing: { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM, logger: context.logger } },
      );
      ok(ctx, booking);
    },
  });

  surface.route({
    ...docs.cancelBooking,
    method: 'post',
    path: '/bookings/{id}/cancel',
    security: 'traveller',
    params: IdParams,
    handler: async (ctx, { params }) => {
      const cutoffMinutes = config.BOOKING_CANCEL_CUTOFF_MINUTES;
      const booking = await cancelOwnBooking(db, caller(ctx), params.id, { cutoffMinutes });
      ok(ctx, booking);
    },
  });
}
