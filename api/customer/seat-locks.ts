import type { Context } from 'koa';
import { createSeatLock, readSeatLock, releaseSeatLock, type SeatLock } from '../../db/writes/seat-locks.js';
import type { AccountCaps } from '../../domain/inventory-caps.js';
import type { BookingChannel } from '../../domain/journey-confirmation.js';
import type { AppContext } from '../app.js';
import { accountCaps, perAccountHourlyLimit } from '../http/abuse-limits.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { docs, fieldErrorCode, SEAT_LOCK_FIELD_CODES, SeatLockBody } from './seat-locks.openapi.js';
import { createdOrOk, ok } from '../http/respond.js';

/** Web sessions (cookies) book through CUSTOMER_WEB, the mobile app's bearer tokens through CUSTOMER_MOBILE. */
export function channelOf(ctx: Context): BookingChannel {
  return ctx.state.traveller!.via === 'cookie' ? 'CUSTOMER_WEB' : 'CUSTOMER_MOBILE';
}

/** Who takes seats: the signed-in traveller, the request's inventory scope, the channel and the account's caps. */
export const inventoryCaller = (ctx: Context, caps: AccountCaps) => ({
  userId: ctx.state.traveller!.userId,
  scope: ctx.state.scope,
  channel: channelOf(ctx),
  caps,
});

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
  const caps = accountCaps(config);
  const rateLimit = perAccountHourlyLimit(db, 'seat-lock-create', config.SEAT_LOCK_RATE_LIMIT_PER_HOUR);

  surface.route({
    ...docs.createSeatLock,
    method: 'post',
    path: '/seat-locks',
    security: 'traveller',
    body: SeatLockBody,
    errorCode: fieldErrorCode(SEAT_LOCK_FIELD_CODES),
    handler: async (ctx, { body }) => {
      await rateLimit(ctx);
      const lock = await createSeatLock(db, inventoryCaller(ctx, caps), {
        tripId: body.trip_id,
        seatNumbers: body.seat_numbers,
        lockMinutes: config.SEAT_LOCK_MINUTES,
      });
      createdOrOk(ctx, lock.created, toBody(lock));
    },
  });

  /** Reading and releasing a lock: the owner's lock by id, answered the same way. */
  const ownLockRoutes = [
    { doc: docs.getSeatLock, method: 'get', act: readSeatLock },
    { doc: docs.releaseSeatLock, method: 'delete', act: releaseSeatLock },
  ] as const;
  for (const { doc, method, act } of ownLockRoutes) {
    surface.route({
      ...doc,
      method,
      path: '/seat-locks/{id}',
      security: 'traveller',
      params: IdParams,
      handler: async (ctx, { params }) => {
        const lock = await act(db, ctx.state.traveller!.userId, params.id);
        ok(ctx, toBody(lock));
      },
    });
  }
}
