import { z } from 'zod';
import { MAX_SEATS_PER_BOOKING } from '../../domain/booking.js';
import { errorResponses, Instant, NAME_LETTER_RULE, PersonName, PersonPhone, Uuid } from '../http/schemas.js';
import { IdText, NamedRef } from './catalogue.js';
import { checkDistinctSeats, checkRule, SeatNumbers } from './seat-locks.openapi.js';
import { PickupLocationSchema } from './trips.js';
import { taggedOperations } from '../http/operation-docs.js';
import { DelayMinutesText, successWith } from '../http/answer-schemas.js';

/** OpenAPI of the booking creation routes (bookings.ts): schemas and the rules they document. */

const PassengerFields = {
  passenger_name: PersonName.meta({ description: `printed on every ticket; ${NAME_LETTER_RULE}` }),
  passenger_phone: PersonPhone.meta({
    description:
      'international format with leading + (+963944123456; a Syrian number may keep its trunk 0, +9630944123456); ' +
      'stored and answered in its E.164 form, the one sign-in stores for the number (+963944123456)',
  }),
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

export const BOOKING_FIELD_CODES = {
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

export const BookingBody = z
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
      description:
        'from POST /seat-locks; names exactly these seats of this trip, under the labels the lock answered or ' +
        'their current labels when the company has renamed them since',
    }),
  })
  .strict()
  .superRefine((body, ctx) => {
    checkDistinctSeats(ctx, body.seat_numbers);
    checkRule(ctx, body.seats_count !== body.seat_numbers.length, {
      errorCode: 'SEATS_COUNT_MISMATCH',
      message: 'seats_count must equal the number of seat_numbers',
      field: 'seats_count',
    });
  })
  .meta({ id: 'BookingCreateRequest' });

export const RoundTripBody = z
  .object({
    outbound_seat_lock_session_id: Uuid.meta({ description: 'seat lock of the outbound trip' }),
    return_seat_lock_session_id: Uuid.meta({
      description:
        'seat lock of the return trip: the opposite direction, departing after the outbound arrives',
    }),
    ...PassengerFields,
  })
  .strict()
  .superRefine((body, ctx) =>
    checkRule(ctx, body.outbound_seat_lock_session_id === body.return_seat_lock_session_id, {
      errorCode: 'SAME_SEAT_LOCK',
      message: 'the outbound and return seat locks must differ',
      field: 'return_seat_lock_session_id',
    }),
  )
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
      departure_at: Instant.meta({ description: "the trip's planned departure from its first stop" }),
      arrival_at: Instant,
      status: z
        .string()
        .meta({ description: 'DELAYED once the company announced a delay (see delay_minutes)' }),
      delay_minutes: DelayMinutesText,
      expected_departure_at: Instant.meta({
        description:
          "the departure the company announced from the booking's boarding stop, as GET /bookings/{id} shows it: that " +
          "stop's planned departure plus delay_minutes (or how late the bus actually left its first stop, when more); " +
          'the planned time when on time',
      }),
      company: NamedRef,
      origin_city: NamedRef,
      destination_city: NamedRef,
      pickupLocation: PickupLocationSchema,
    }),
  })
  .meta({ id: 'CreatedBooking' });

const BookingResponse = successWith(
  z.object({
    booking: Booking,
    finalPrice: z.number().meta({ description: 'total_price: the price after the voucher' }),
    discount: z.number().meta({ description: 'the discount the voucher gave (0 without one)' }),
  }),
);

const RoundTripResponse = successWith(
  z.object({
    order_id: IdText.meta({ description: 'the journey order holding both journeys' }),
    bookings: z.array(Booking).meta({ description: 'outbound first, then return' }),
    subtotal: z.number(),
    finalPrice: z.number().meta({ description: 'sum of both total_price' }),
    discount: z.number().meta({ description: 'the whole voucher discount, split across both bookings' }),
  }),
);

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
  'the X-CSRF-Token header (403 CSRF_TOKEN_INVALID). Abuse limits per account: at most UNPAID_BOOKINGS_MAX (3) unpaid ' +
  'bookings (payment UNPAID with a total above 0, so a free-trip booking, which has nothing to pay, never counts; not ' +
  'cancelled; trip not yet left: its departure from the boarding stop, plus any announced delay, still ahead; a round ' +
  'trip adds two), else 409 ' +
  'UNPAID_BOOKING_LIMIT_REACHED with details {limit, unpaid} and nothing written (a retry answering its booking is not a ' +
  'new one); BOOKING_RATE_LIMIT_PER_HOUR (30) POST /bookings and /bookings/round-trip requests together per hour, else ' +
  '429 RATE_LIMITED with Retry-After. 0 turns a limit off.';

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Bookings'], {
  createBooking: {
    summary: 'Book the locked seats of one trip',
    description:
      `Lock the seats first (POST /seat-locks). ${CREATE_RULES} Also 400 SEATS_COUNT_MISMATCH (seats_count ≠ ` +
      'seat_numbers.length). seat_numbers are the labels the seat lock answered; a seat the company renamed since may ' +
      'also be named by its current label (GET /seat-locks/{id}). The booking and its tickets carry the current labels.',
    responses: {
      201: {
        description: 'Booked',
        schema: BookingResponse,
      },
      200: {
        description: 'A retry with the same seat lock: the booking it made',
        schema: BookingResponse,
      },
      ...errorResponses(400, 401, 403, 404, 409, 429),
    },
  },
  createRoundTripBooking: {
    summary: 'Book an outbound and a return trip together',
    description:
      'Both seat locks are required; the trips and seats are the locks’ own. All or nothing: a journey order with two ' +
      'journeys and two bookings, or nothing at all. The return trip must leave from the outbound destination city back ' +
      'to its origin city (409 ROUND_TRIP_DIRECTION_MISMATCH) and depart after the outbound arrives (409 ' +
      'RETURN_DEPARTS_TOO_EARLY). One reward_code applies to the total of both directions; the discount is split ' +
      'across both booking rows in proportion to their subtotals (each row keeps its part). A retry with the same two ' +
      `locks answers 200 with the same bookings. Also 400 SAME_SEAT_LOCK. ${CREATE_RULES}`,
    responses: {
      201: {
        description: 'Both directions booked',
        schema: RoundTripResponse,
      },
      200: {
        description: 'A retry with the same seat locks: the bookings they made',
        schema: RoundTripResponse,
      },
      ...errorResponses(400, 401, 403, 404, 409, 429),
    },
  },
});
