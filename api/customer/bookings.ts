import {
  createBooking,
  createRoundTrip,
  type BookingRecord,
  type CreatedRoundTrip,
} from '../../db/writes/bookings/index.js';
import type { AppContext } from '../app.js';
import { accountCaps, perAccountHourlyLimit } from '../http/abuse-limits.js';
import type { Surface } from '../http/route.js';
import { BOOKING_FIELD_CODES, BookingBody, docs, RoundTripBody } from './bookings.openapi.js';
import { inventoryCaller } from './seat-locks.js';
import { fieldErrorCode } from './seat-locks.openapi.js';
import { createdOrOk } from '../http/respond.js';

/**
 * POST /bookings and POST /bookings/round-trip (SPEC "Booking creation payload", "Bookings").
 * The reads, cancel and modify routes of bookings live in booking-reads.ts and booking-changes.ts.
 */

const bookingData = (booking: BookingRecord) => ({
  booking,
  finalPrice: booking.total_price,
  discount: booking.discount,
});

/** Both bookings, outbound first, with the amounts of the whole order. */
function roundTripData(result: CreatedRoundTrip) {
  const bookings = [result.outbound, result.inbound];
  const sum = (amount: (booking: BookingRecord) => number) =>
    bookings.reduce((total, booking) => total + amount(booking), 0);
  return {
    order_id: result.orderId,
    bookings,
    subtotal: sum((booking) => booking.subtotal),
    finalPrice: sum((booking) => booking.total_price),
    discount: sum((booking) => booking.discount),
  };
}

/** The passenger fields both create bodies share, as the booking transaction takes them. */
const passengerOf = (body: {
  passenger_name: string;
  passenger_phone: string;
  reward_code?: string | undefined;
}) => ({
  passengerName: body.passenger_name,
  passengerPhone: body.passenger_phone,
  rewardCode: body.reward_code,
});

export function registerBookingCreateRoutes(surface: Surface, context: AppContext): void {
  const { db, config } = context;
  const signing = { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM };
  const caps = accountCaps(config);
  // One counter for both routes: a round trip is one booking request.
  const rateLimit = perAccountHourlyLimit(db, 'booking-create', config.BOOKING_RATE_LIMIT_PER_HOUR);

  surface.route({
    ...docs.createBooking,
    method: 'post',
    path: '/bookings',
    security: 'traveller',
    body: BookingBody,
    errorCode: fieldErrorCode(BOOKING_FIELD_CODES),
    handler: async (ctx, { body }) => {
      await rateLimit(ctx);
      const lock = { seatLockSessionId: body.seat_lock_session_id, tripId: body.trip_id };
      const input = { ...lock, seatNumbers: body.seat_numbers, ...passengerOf(body) };
      const result = await createBooking(db, inventoryCaller(ctx, caps), input, signing);
      createdOrOk(ctx, result.created, bookingData(result.booking));
    },
  });

  surface.route({
    ...docs.createRoundTripBooking,
    method: 'post',
    path: '/bookings/round-trip',
    security: 'traveller',
    body: RoundTripBody,
    errorCode: fieldErrorCode(BOOKING_FIELD_CODES),
    handler: async (ctx, { body }) => {
      await rateLimit(ctx);
      const input = {
        outboundSeatLockSessionId: body.outbound_seat_lock_session_id,
        returnSeatLockSessionId: body.return_seat_lock_session_id,
        ...passengerOf(body),
      };
      const result = await createRoundTrip(db, inventoryCaller(ctx, caps), input, signing);
      createdOrOk(ctx, result.created, roundTripData(result));
    },
  });
}
