import {
  createBooking,
  createRoundTrip,
  type BookingRecord,
  type CreatedRoundTrip,
} from '../../db/writes/bookings/index.js';
import type { AppContext } from '../app.js';
import { accountCaps, perAccountHourlyLimit } from '../http/abuse-limits.js';
import type { z } from 'zod';
import type { Infer, OperationDoc, Surface } from '../http/route.js';
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
  const signing = { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM, logger: context.logger };
  const createRoute = bookingCreateRoute(surface, context);

  createRoute({ ...docs.createBooking, path: '/bookings', body: BookingBody }, async (caller, body) => {
    const lock = { seatLockSessionId: body.seat_lock_session_id, tripId: body.trip_id };
    const input = { ...lock, seatNumbers: body.seat_numbers, ...passengerOf(body) };
    const result = await createBooking(db, caller, input, signing);
    return { created: result.created, data: bookingData(result.booking) };
  });

  createRoute(
    { ...docs.createRoundTripBooking, path: '/bookings/round-trip', body: RoundTripBody },
    async (caller, body) => {
      const input = {
        outboundSeatLockSessionId: body.outbound_seat_lock_session_id,
        returnSeatLockSessionId: body.return_seat_lock_session_id,
        ...passengerOf(body),
      };
      const result = await createRoundTrip(db, caller, input, signing);
      return { created: result.created, data: roundTripData(result) };
    },
  );
}

type InventoryCaller = ReturnType<typeof inventoryCaller>;

/**
 * How both create routes are declared: a traveller's POST with the booking field codes, counted
 * against the account's hourly booking limit (one counter for both: a round trip is one booking
 * request), made for the caller who holds the seats; 201 when made now, 200 when it repeats.
 */
function bookingCreateRoute(surface: Surface, { db, config }: AppContext) {
  const caps = accountCaps(config);
  const rateLimit = perAccountHourlyLimit(db, 'booking-create', config.BOOKING_RATE_LIMIT_PER_HOUR);
  return <B extends z.ZodType>(
    route: OperationDoc & { path: string; body: B },
    create: (caller: InventoryCaller, body: Infer<B>) => Promise<{ created: boolean; data: unknown }>,
  ) =>
    surface.route({
      ...route,
      method: 'post',
      security: 'traveller',
      errorCode: fieldErrorCode(BOOKING_FIELD_CODES),
      handler: async (ctx, { body }) => {
        await rateLimit(ctx);
        const made = await create(inventoryCaller(ctx, caps), body);
        createdOrOk(ctx, made.created, made.data);
      },
    });
}
