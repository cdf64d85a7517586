import { z } from 'zod';
import { MAX_SEATS_PER_BOOKING } from '../../domain/booking.js';
import { firstNamedErrorCode, namedErrorCode, ruleIssue } from '../http/rule-issues.js';
import { errorResponses, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText, IdText, successWith } from '../http/answer-schemas.js';

/**
 * OpenAPI of the seat lock routes (seat-locks.ts): schemas, the rules they document, and the
 * validation helpers the booking bodies (bookings.openapi.ts) share with them.
 */

/** Adds the issue of a rule between fields when `broken`; its errorCode answers the request. */
export function checkRule(
  ctx: z.RefinementCtx,
  broken: boolean,
  rule: { errorCode: string; message: string; field: string },
): void {
  if (broken) ctx.addIssue(ruleIssue(rule.errorCode, rule.message, [rule.field]));
}

/** seat_numbers names each seat once (DUPLICATE_SEAT). */
export function checkDistinctSeats(ctx: z.RefinementCtx, seatNumbers: readonly string[]): void {
  checkRule(ctx, new Set(seatNumbers).size !== seatNumbers.length, {
    errorCode: 'DUPLICATE_SEAT',
    message: 'a seat is listed twice',
    field: 'seat_numbers',
  });
}

/**
 * The errorCode of a refused input: a broken field first (INVALID_<FIELD>; a field's own check in
 * code, such as a name's letter, is a custom issue naming no code), then a rule between fields that
 * names its code (SEATS_COUNT_MISMATCH, ...), else VALIDATION_FAILED (unknown fields).
 */
export function fieldErrorCode(fieldCodes: Record<string, string>) {
  return (issues: z.core.$ZodIssue[]): string => {
    for (const issue of issues) {
      const field = fieldCodes[String(issue.path[0])];
      if (field && issue.code !== 'unrecognized_keys' && !namedErrorCode(issue)) return field;
    }
    return firstNamedErrorCode(issues);
  };
}

export const SeatNumbers = z
  .array(z.string().trim().min(1).max(16))
  .min(1)
  .max(MAX_SEATS_PER_BOOKING)
  .meta({
    uniqueItems: true,
    description: `passenger-visible seat labels (seatNumber) of the bus's active layout, custom labels included; 1 to ${MAX_SEATS_PER_BOOKING}`,
  });

export const SeatLockBody = z
  .object({
    trip_id: Uuid,
    seat_numbers: SeatNumbers,
  })
  .strict()
  .superRefine((body, ctx) => checkDistinctSeats(ctx, body.seat_numbers))
  .meta({ id: 'SeatLockRequest' });

export const SEAT_LOCK_FIELD_CODES = { trip_id: 'INVALID_TRIP_ID', seat_numbers: 'INVALID_SEAT_NUMBERS' };

const SeatLockData = z
  .object({
    seat_lock_session_id: IdText.meta({ description: 'send it as seat_lock_session_id to POST /bookings' }),
    trip_id: IdText,
    seat_numbers: z.array(z.string()),
    expires_at: DateTimeText.meta({ description: 'ISO 8601 UTC; the seats are free for anyone after it' }),
    status: z.enum(['ACTIVE', 'CONSUMED', 'RELEASED', 'EXPIRED']),
    booking_id: z.string().nullable().meta({ format: 'uuid', description: 'the booking that used the lock' }),
  })
  .meta({ id: 'SeatLock' });

const SeatLockResponse = successWith(SeatLockData);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Bookings'], {
  createSeatLock: {
    summary: 'Lock seats of a trip for a booking',
    description:
      'A seat lock keeps named seats of one trip (over the whole trip, first stop to last) for SEAT_LOCK_MINUTES (10 by ' +
      'default) so that POST /bookings can book exactly those seats; it needs a signed-in traveller (CSRF header for web ' +
      'sessions). An expired lock is free for everyone at once (no sweeper needed) and can no longer book. Errors: 400 ' +
      'SEAT_NOT_FOUND (a label the active layout does not have; details.seat_numbers), DUPLICATE_SEAT, INVALID_TRIP_ID, ' +
      "INVALID_SEAT_NUMBERS; 404 TRIP_NOT_FOUND (no such trip, or outside the caller's inventory scope); 409 SEAT_OCCUPIED " +
      '(details.seat_numbers: the seats held or booked by someone else, or by another lock of the caller that is not of ' +
      'exactly these seats), TRIP_NOT_BOOKABLE (departed, cancelled or under ' +
      'way), JOURNEY_FLOW_REQUIRED (the company confirms bookings itself for this channel: use /journeys; details.companyId). ' +
      `At most ${MAX_SEATS_PER_BOOKING} seats per lock. Two travellers locking the same seat at once: exactly one succeeds. ` +
      'The same request again (same traveller, trip and exactly the same seats, in any order) while the lock it made is ' +
      'ACTIVE answers 200 with that lock as it is (same seat_lock_session_id, expires_at not extended): a retry after a ' +
      'lost answer, or two identical requests at once, end with one lock that both answers name. It writes nothing and ' +
      'does not count against the held-seat caps (it still counts one request against the hourly limit). A request ' +
      'naming only some of the seats of the caller’s own live lock, or more, is refused 409 SEAT_OCCUPIED as for ' +
      'anyone: release that lock first (DELETE) or repeat its exact seats to learn it. ' +
      'Abuse limits per account: its live seat locks and journey holds together may hold at most HELD_SEATS_MAX_PER_TRIP ' +
      '(10) seats of one trip and HELD_SEATS_MAX_TOTAL (20) in all, else 409 SEAT_HOLD_LIMIT_REACHED with details ' +
      '{scope: TRIP (and trip_id) or ACCOUNT, limit, held, requested} and nothing locked (concurrent requests of one account ' +
      'take turns, so the cap holds); SEAT_LOCK_RATE_LIMIT_PER_HOUR (30) requests per account per hour, else 429 ' +
      'RATE_LIMITED with Retry-After. 0 turns a limit off.',
    responses: {
      201: { description: 'Seats locked', schema: SeatLockResponse },
      200: {
        description: 'The same request again while its lock is ACTIVE: that lock, unchanged',
        schema: SeatLockResponse,
      },
      ...errorResponses(400, 401, 403, 404, 409, 429),
    },
  },
  getSeatLock: {
    summary: 'A seat lock of the caller',
    description:
      'Owner only: another traveller’s lock is 404 SEAT_LOCK_NOT_FOUND. status ACTIVE while it lasts, then CONSUMED ' +
      '(booking_id set), RELEASED or EXPIRED.',
    responses: answers(200, 'The lock', SeatLockResponse, [400, 401, 404]),
  },
  releaseSeatLock: {
    summary: 'Release a seat lock',
    description:
      'Frees the seats at once (status RELEASED; a lock already past its time answers EXPIRED). Idempotent: releasing ' +
      'again answers the same state. 404 SEAT_LOCK_NOT_FOUND for another traveller’s lock; 409 SEAT_LOCK_CONSUMED when ' +
      'a booking used it (cancel the booking instead).',
    responses: answers(200, 'Released (or already ended)', SeatLockResponse, [400, 401, 403, 404, 409]),
  },
});
