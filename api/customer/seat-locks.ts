import type { Context } from 'koa';
import { z } from 'zod';
import { createSeatLock, readSeatLock, releaseSeatLock, type SeatLock } from '../../db/writes/seat-locks.js';
import { MAX_SEATS_PER_BOOKING } from '../../domain/booking.js';
import type { BookingChannel } from '../../domain/journey-confirmation.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses, IdParams, Uuid } from '../http/schemas.js';

/** A custom zod issue that names the errorCode of the rule it breaks. */
export const ruleIssue = (errorCode: string, message: string, path: (string | number)[]) =>
  ({ code: 'custom', message, path, params: { errorCode } }) as const;

/**
 * The errorCode of a refused input: a broken field first (INVALID_<FIELD>), then a rule between
 * fields that names its code (SEATS_COUNT_MISMATCH, ...), else VALIDATION_FAILED (unknown fields).
 */
export function fieldErrorCode(fieldCodes: Record<string, string>) {
  return (issues: z.core.$ZodIssue[]): string => {
    for (const issue of issues) {
      const field = fieldCodes[String(issue.path[0])];
      if (field && issue.code !== 'custom' && issue.code !== 'unrecognized_keys') return field;
    }
    for (const issue of issues) {
      const code =
        issue.code === 'custom' ? (issue.params as { errorCode?: string } | undefined)?.errorCode : undefined;
      if (code) return code;
    }
    return 'VALIDATION_FAILED';
  };
}

/** Web sessions (cookies) book through CUSTOMER_WEB, the mobile app's bearer tokens through CUSTOMER_MOBILE. */
export function channelOf(ctx: Context): BookingChannel {
  return ctx.state.traveller!.via === 'cookie' ? 'CUSTOMER_WEB' : 'CUSTOMER_MOBILE';
}

export const SeatNumbers = z
  .array(z.string().trim().min(1).max(16))
  .min(1)
  .max(MAX_SEATS_PER_BOOKING)
  .meta({
    description: `passenger-visible seat labels (seatNumber) of the bus's active layout, custom labels included; 1 to ${MAX_SEATS_PER_BOOKING}`,
  });

const SeatLockBody = z
  .object({
    trip_id: Uuid,
    seat_numbers: SeatNumbers,
  })
  .strict()
  .superRefine((body, ctx) => {
    if (new Set(body.seat_numbers).size !== body.seat_numbers.length)
      ctx.addIssue(ruleIssue('DUPLICATE_SEAT', 'a seat is listed twice', ['seat_numbers']));
  })
  .meta({ id: 'SeatLockRequest' });

const SeatLockData = z
  .object({
    seat_lock_session_id: z
      .string()
      .meta({ format: 'uuid', description: 'send it as seat_lock_session_id to POST /bookings' }),
    trip_id: z.string().meta({ format: 'uuid' }),
    seat_numbers: z.array(z.string()),
    expires_at: z
      .string()
      .meta({ format: 'date-time', description: 'ISO 8601 UTC; the seats are free for anyone after it' }),
    status: z.enum(['ACTIVE', 'CONSUMED', 'RELEASED', 'EXPIRED']),
    booking_id: z.string().nullable().meta({ format: 'uuid', description: 'the booking that used the lock' }),
  })
  .meta({ id: 'SeatLock' });

const SeatLockResponse = z.object({ success: z.literal(true), data: SeatLockData });

const LOCK_RULES =
  'A seat lock keeps named seats of one trip (over the whole trip, first stop to last) for SEAT_LOCK_MINUTES (10 by ' +
  'default) so that POST /bookings can book exactly those seats; it needs a signed-in traveller (CSRF header for web ' +
  'sessions). An expired lock is free for everyone at once (no sweeper needed) and can no longer book. Errors: 400 ' +
  'SEAT_NOT_FOUND (a label the active layout does not have; details.seat_numbers), DUPLICATE_SEAT, INVALID_TRIP_ID, ' +
  "INVALID_SEAT_NUMBERS; 404 TRIP_NOT_FOUND (no such trip, or outside the caller's inventory scope); 409 SEAT_OCCUPIED " +
  '(details.seat_numbers: the seats held or booked by someone else), TRIP_NOT_BOOKABLE (departed, cancelled or under ' +
  'way), JOURNEY_FLOW_REQUIRED (the company confirms bookings itself for this channel: use /journeys; details.companyId). ' +
  `At most ${MAX_SEATS_PER_BOOKING} seats per lock. Two travellers locking the same seat at once: exactly one succeeds.`;

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
    errorCode: fieldErrorCode({ trip_id: 'INVALID_TRIP_ID', seat_numbers: 'INVALID_SEAT_NUMBERS' }),
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
    description:
      'Owner only: another traveller’s lock is 404 SEAT_LOCK_NOT_FOUND. status ACTIVE while it lasts, then CONSUMED ' +
      '(booking_id set), RELEASED or EXPIRED.',
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
    description:
      'Frees the seats at once (status RELEASED; a lock already past its time answers EXPIRED). Idempotent: releasing ' +
      'again answers the same state. 404 SEAT_LOCK_NOT_FOUND for another traveller’s lock; 409 SEAT_LOCK_CONSUMED when ' +
      'a booking used it (cancel the booking instead).',
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
