import type { Context } from 'koa';
import { createSeatLock, readSeatLock, releaseSeatLock, type SeatLock } from '../../db/writes/seat-locks.js';
import type { BookingChannel } from '../../domain/journey-confirmation.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import {
  fieldErrorCode,
  GET_LOCK_RULES,
  LOCK_RULES,
  RELEASE_LOCK_RULES,
  SEAT_LOCK_FIELD_CODES,
  SeatLockBody,
  SeatLockResponse,
} from './seat-locks.openapi.js';

/** Web sessions (cookies) book through CUSTOMER_WEB, the mobile app's bearer tokens through CUSTOMER_MOBILE. */
export function channelOf(ctx: Context): BookingChannel {
  return ctx.state.traveller!.via === 'cookie' ? 'CUSTOMER_WEB' : 'CUSTOMER_MOBILE';
}

const toBody = (lock: SeatLock) => ({
  seat_lock_session_id: lock.seatLockSessionId,
  trip_id: lock.tripId,
  seat_numbers: lock.seatNumbers,
  expires_at: lock.expiresAt,
  status: lock.status,
  booking_id: lock.bookingId,
});

export function registerSeatLockRoutes(surface: Surface, context: AppContext): void {
  const { db, config } = context;

  surface.route({
    method: 'post',
    path: '/seat-locks',
    operationId: 'createSeatLock',
    summary: 'Lock seats of a trip for a booking',
    description: LOCK_RULES,
    tags: ['Bookings'],
    security: 'traveller',
    body: SeatLockBody,
    errorCode: fieldErrorCode(SEAT_LOCK_FIELD_CODES),
    responses: {
      201: { description: 'Seats locked', schema: SeatLockResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      const traveller = ctx.state.traveller!;
      const lock = await createSeatLock(
        db,
        { userId: traveller.userId, scope: ctx.state.scope, channel: channelOf(ctx) },
        { tripId: body.trip_id, seatNumbers: body.seat_numbers, lockMinutes: config.SEAT_LOCK_MINUTES },
      );
      ctx.status = 201;
      ctx.body = { success: true, data: toBody(lock) };
    },
  });

  surface.route({
    method: 'get',
    path: '/seat-locks/{id}',
    operationId: 'getSeatLock',
    summary: 'A seat lock of the caller',
    description: GET_LOCK_RULES,
    tags: ['Bookings'],
    security: 'traveller',
    params: IdParams,
    responses: {
      200: { description: 'The lock', schema: SeatLockResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { params }) => {
      const lock = await readSeatLock(db, ctx.state.traveller!.userId, params.id);
      ctx.body = { success: true, data: toBody(lock) };
    },
  });

  surface.route({
    method: 'delete',
    path: '/seat-locks/{id}',
    operationId: 'releaseSeatLock',
    summary: 'Release a seat lock',
    description: RELEASE_LOCK_RULES,
    tags: ['Bookings'],
    security: 'traveller',
    params: IdParams,
    responses: {
      200: { description: 'Released (or already ended)', schema: SeatLockResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { params }) => {
      const lock = await releaseSeatLock(db, ctx.state.traveller!.userId, params.id);
      ctx.body = { success: true, data: toBody(lock) };
    },
  });
}
