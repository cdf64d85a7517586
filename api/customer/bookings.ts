import type { Context } from 'koa';
import { z } from 'zod';
import { createBooking, createRoundTrip, type BookingRecord } from '../../db/writes/bookings/index.js';
import { MAX_SEATS_PER_BOOKING, PASSENGER_PHONE } from '../../domain/booking.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses, Uuid, Instant } from '../http/schemas.js';
import { channelOf, fieldErrorCode, ruleIssue, SeatNumbers } from './seat-locks.js';
import { IdText, NamedRef } from './catalogue.js';
import { PickupLocationSchema } from './trips.js';

/**
 * POST /bookings and POST /bookings/round-trip (SPEC "Booking creation payload", "Bookings").
 * The reads, cancel and modify routes of bookings live in booking-reads.ts and booking-changes.ts.
 */
const PassengerFields = {
  passenger_name: z.string().trim().min(1).max(120).meta({ description: 'printed on every ticket' }),
  passenger_phone: z
    .string()
    .trim()
    .regex(PASSENGER_PHONE, 'must be an international number: + then 8 to 15 digits')
    .meta({ description: 'international format with leading + (E.164)' }),
  reward_code: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a voucher code such as RWD-AB12CD34')
    .optional()
    .meta({
      description:
        'a voucher from POST /loyalty/redeem: RWD- and 8 characters. A catalogue reward code is not a voucher (409 LOYALTY_REDEMPTION_NOT_FOUND)',
    }),
};

const FIELD_CODES = {
  trip_id: 'INVALID_TRIP_ID',
  passenger_name: 'INVALID_PASSENGER_NAME',
  passenger_phone: 'INVALID_PASSENGER_PHONE',
  seats_count: 'INVALID_SEATS_COUNT',
  seat_numbers: 'INVALID_SEAT_NUMBERS',
  seat_lock_session_id: 'INVALID_SEAT_LOCK_SESSION_ID',
  outbound_seat_lock_session_id: 'INVALID_SEAT_LOCK_SESSION_ID',
  return_seat_lock_session_id: 'INVALID_SEAT_LOCK_SESSION_ID',
  reward_code: 'INVALID_REWARD_CODE',
};

const BookingBody = z
  .object({
    trip_id: Uuid,
    ...PassengerFields,
    seats_count: z
      .int()
      .min(1)
      .max(MAX_SEATS_PER_BOOKING)
      .meta({ description: 'equals seat_numbers.length' }),
    seat_numbers: SeatNumbers,
    seat_lock_session_id: Uuid.meta({
      description: 'from POST /seat-locks; names exactly these seats of this trip',
    }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (new Set(body.seat_numbers).size !== body.seat_numbers.length)
      ctx.addIssue(ruleIssue('DUPLICATE_SEAT', 'a seat is listed twice', ['seat_numbers']));
    if (body.seats_count !== body.seat_numbers.length)
      ctx.addIssue(
        ruleIssue('SEATS_COUNT_MISMATCH', 'seats_count must equal the number of seat_numbers', [
          'seats_count',
        ]),
      );
  })
  .meta({ id: 'BookingCreateRequest' });

const RoundTripBody = z
  .object({
    outbound_seat_lock_session_id: Uuid.meta({ description: 'seat lock of the outbound trip' }),
    return_seat_lock_session_id: Uuid.meta({
      description:
        'seat lock of the return trip: the opposite direction, departing after the outbound arrives',
    }),
    ...PassengerFields,
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.outbound_seat_lock_session_id === body.return_seat_lock_session_id) {
      ctx.addIssue(
        ruleIssue('SAME_SEAT_LOCK', 'the outbound and return seat locks must differ', [
          'return_seat_lock_session_id',
        ]),
      );
    }
  })
  .meta({ id: 'RoundTripCreateRequest' });

const Booking = z
  .object({
    id: IdText.meta({ description: 'the booking id (GET /bookings/{id})' }),
    booking_code: z.string().meta({ description: 'BK- and 8 characters, read out at the office' }),
    status: z.string().meta({ description: 'CONFIRMED for a new booking' }),
    trip_id: IdText,
    seat_numbers: z.array(z.string()),
    seats_count: z.int(),
    passenger_name: z.string(),
    passenger_phone: z.string(),
    subtotal: z.number().meta({ description: 'the seats at their fares, before the voucher' }),
    discount: z.number().meta({ description: "the voucher's part on this booking" }),
    total_price: z.number().meta({ description: 'subtotal - discount: what is paid in cash' }),
    currency: z.string(),
    payment_status: z.string().meta({ description: 'UNPAID: cash is paid at the office or to the driver' }),
    seat_lock_session_id: IdText.nullable(),
    journey_id: IdText.nullable().meta({
      description: 'the journey holding the signed tickets (GET /journeys/{id})',
    }),
    order_id: IdText.nullable().meta({ description: 'the journey order of a round trip' }),
    created_at: Instant,
    trip: z.object({
      id: IdText,
      departure_at: Instant,
      arrival_at: Instant,
      status: z.string(),
      company: NamedRef,
      origin_city: NamedRef,
      destination_city: NamedRef,
      pickupLocation: PickupLocationSchema,
    }),
  })
  .meta({ id: 'CreatedBooking' });

const BookingResponse = z.object({
  success: z.literal(true),
  data: z.object({
    booking: Booking,
    finalPrice: z.number().meta({ description: 'total_price: the price after the voucher' }),
    discount: z.number().meta({ description: 'the discount the voucher gave (0 without one)' }),
  }),
});

const RoundTripResponse = z.object({
  success: z.literal(true),
  data: z.object({
    order_id: IdText.meta({ description: 'the journey order holding both journeys' }),
    bookings: z.array(Booking).meta({ description: 'outbound first, then return' }),
    subtotal: z.number(),
    finalPrice: z.number().meta({ description: 'sum of both total_price' }),
    discount: z.number().meta({ description: 'the whole voucher discount, split across both bookings' }),
  }),
});

const CREATE_RULES =
  'One transaction: checks the seat lock (the caller’s, ACTIVE, not expired, same trip, exactly its seats), the trip ' +
  '(in the caller’s inventory scope, still bookable), that the company confirms automatically for this channel, the ' +
  'seat prices (VIP seats at the VIP fare) and the voucher (owner, status, expiry, minimum, routes, allowed days); then ' +
  'creates a journey with signed tickets (one per seat, the passenger’s name) and the booking, CONFIRMED with ' +
  'payment_status UNPAID, and marks the voucher used. Any refusal leaves nothing behind: the lock stays ACTIVE and the ' +
  'voucher unused. A retry with the same seat lock by the same traveller answers 200 with the booking it made. Errors: ' +
  '400 INVALID_<FIELD> (INVALID_PASSENGER_PHONE, INVALID_PASSENGER_NAME, INVALID_REWARD_CODE, ...), DUPLICATE_SEAT, ' +
  'VALIDATION_FAILED (unknown fields); 404 SEAT_LOCK_NOT_FOUND (none, or another traveller’s), TRIP_NOT_FOUND; 409 ' +
  'SEAT_LOCK_EXPIRED, SEAT_LOCK_RELEASED, SEAT_LOCK_CONSUMED, SEAT_LOCK_MISMATCH, TRIP_NOT_BOOKABLE, ' +
  'JOURNEY_FLOW_REQUIRED (the company confirms bookings itself for this channel: book through /journeys; ' +
  'details.companyId), LOYALTY_* (a rejected voucher: LOYALTY_REDEMPTION_NOT_FOUND also for a catalogue reward code, ' +
  'LOYALTY_REDEMPTION_USED, LOYALTY_REDEMPTION_EXPIRED, LOYALTY_REWARD_UNSUPPORTED, LOYALTY_MINIMUM_NOT_MET, ' +
  'LOYALTY_ROUTE_NOT_ELIGIBLE, LOYALTY_DAY_NOT_ELIGIBLE, LOYALTY_REWARD_CONFIGURATION_INVALID). Web sessions need ' +
  'the X-CSRF-Token header (403 CSRF_TOKEN_INVALID).';

const bookingData = (booking: BookingRecord) => ({
  booking,
  finalPrice: booking.total_price,
  discount: booking.discount,
});

const callerOf = (ctx: Context) => ({
  userId: ctx.state.traveller!.userId,
  scope: ctx.state.scope,
  channel: channelOf(ctx),
});

export function registerBookingCreateRoutes(surface: Surface, context: AppContext): void {
  const { db, config } = context;
  const signing = { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM };

  surface.route({
    method: 'post',
    path: '/bookings',
    operationId: 'createBooking',
    summary: 'Book the locked seats of one trip',
    description: `Lock the seats first (POST /seat-locks). ${CREATE_RULES} Also 400 SEATS_COUNT_MISMATCH (seats_count ≠ seat_numbers.length).`,
    tags: ['Bookings'],
    security: 'traveller',
    body: BookingBody,
    errorCode: fieldErrorCode(FIELD_CODES),
    responses: {
      201: { description: 'Booked', schema: BookingResponse },
      200: { description: 'A retry with the same seat lock: the booking it made', schema: BookingResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      const result = await createBooking(
        db,
        callerOf(ctx),
        {
          seatLockSessionId: body.seat_lock_session_id,
          tripId: body.trip_id,
          seatNumbers: body.seat_numbers,
          passengerName: body.passenger_name,
          passengerPhone: body.passenger_phone,
          rewardCode: body.reward_code,
        },
        signing,
      );
      ctx.status = result.created ? 201 : 200;
      ctx.body = { success: true, data: bookingData(result.booking) };
    },
  });

  surface.route({
    method: 'post',
    path: '/bookings/round-trip',
    operationId: 'createRoundTripBooking',
    summary: 'Book an outbound and a return trip together',
    description:
      'Both seat locks are required; the trips and seats are the locks’ own. All or nothing: a journey order with two ' +
      'journeys and two bookings, or nothing at all. The return trip must leave from the outbound destination city back ' +
      'to its origin city (409 ROUND_TRIP_DIRECTION_MISMATCH) and depart after the outbound arrives (409 ' +
      'RETURN_DEPARTS_TOO_EARLY). One reward_code applies to the total of both directions; the discount is split ' +
      'across both booking rows in proportion to their subtotals (each row keeps its part). A retry with the same two ' +
      `locks answers 200 with the same bookings. Also 400 SAME_SEAT_LOCK. ${CREATE_RULES}`,
    tags: ['Bookings'],
    security: 'traveller',
    body: RoundTripBody,
    errorCode: fieldErrorCode(FIELD_CODES),
    responses: {
      201: { description: 'Both directions booked', schema: RoundTripResponse },
      200: {
        description: 'A retry with the same seat locks: the bookings they made',
        schema: RoundTripResponse,
      },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      const result = await createRoundTrip(
        db,
        callerOf(ctx),
        {
          outboundSeatLockSessionId: body.outbound_seat_lock_session_id,
          returnSeatLockSessionId: body.return_seat_lock_session_id,
          passengerName: body.passenger_name,
          passengerPhone: body.passenger_phone,
          rewardCode: body.reward_code,
        },
        signing,
      );
      const bookings = [result.outbound, result.inbound];
      ctx.status = result.created ? 201 : 200;
      ctx.body = {
        success: true,
        data: {
          order_id: result.orderId,
          bookings,
          subtotal: bookings.reduce((sum, booking) => sum + booking.subtotal, 0),
          finalPrice: bookings.reduce((sum, booking) => sum + booking.total_price, 0),
          discount: bookings.reduce((sum, booking) => sum + booking.discount, 0),
        },
      };
    },
  });
}
