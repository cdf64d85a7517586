import { z } from 'zod';
import { BOOKING_STATUSES } from '../../domain/booking-rules.js';
import { FAILURE_REASONS } from '../../domain/journey-confirmation.js';
import { Instant, Pagination } from '../http/schemas.js';
import { IdText, NamedRef } from './catalogue.js';
import { PickupLocationSchema } from './trips.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith, DelayMinutesText } from '../http/answer-schemas.js';
import { CredentialSignatureText, SHOWN_CREDENTIAL_RULE } from '../http/credential-schemas.js';

/** OpenAPI of a traveller's booking reads (booking-reads.ts), whose booking the change routes answer too. */

const BookingTicket = z.object({
  id: IdText,
  traveller_name: z.string(),
  seat_number: z.string(),
  status: z.enum(['PENDING_CONFIRMATION', 'VALID', 'CANCELLED', 'USED']),
  payload: z.unknown().nullable().meta({
    description:
      'the boarding credential (its canonical JSON is what was signed); null unless boarding_authorized',
  }),
  signature: CredentialSignatureText.meta({
    description: 'Ed25519 signature, base64url; null unless boarding_authorized',
  }),
  key_id: z.string().nullable().meta({ description: 'null unless boarding_authorized' }),
  boarding_authorized: z.boolean().meta({ description: SHOWN_CREDENTIAL_RULE }),
});

const CustomerBooking = z
  .object({
    id: IdText.meta({ description: 'the booking id of every /bookings path' }),
    booking_code: z.string().meta({ description: 'BK- code to read out at a counter' }),
    journey_id: IdText.nullable().meta({
      description: 'the journey behind the booking (null for imported rows)',
    }),
    status: z.enum(BOOKING_STATUSES),
    payment_status: z.enum(['UNPAID', 'PAID', 'REFUNDED']).meta({
      description:
        'REFUNDED: the company refunded it in full; a booking refunded before it travelled is CANCELLED with it ' +
        '(seats released, tickets and credentials revoked), one refunded after travel keeps its status',
    }),
    passenger_name: z.string(),
    passenger_phone: z.string(),
    seats_count: z.int(),
    seat_numbers: z.array(z.string()).meta({ description: 'seat labels of the bus layout' }),
    subtotal: z.number().meta({ description: 'price of the seats before the voucher discount' }),
    discount: z.number().meta({ description: 'voucher discount granted' }),
    total_price: z.number().meta({ description: 'subtotal - discount: what is paid (in cash)' }),
    currency: z.string(),
    channel: z.string(),
    created_at: Instant,
    updated_at: Instant,
    trip: z.object({
      id: IdText,
      status: z
        .string()
        .meta({ description: 'DELAYED once the company announced a delay (see delay_minutes)' }),
      departure_at: Instant.meta({ description: "the trip's planned departure from its first stop" }),
      arrival_at: Instant,
      delay_minutes: DelayMinutesText,
      expected_departure_at: Instant.meta({
        description:
          "the departure the company announced from the booking's boarding stop: that stop's planned departure plus " +
          'delay_minutes (or how late the bus actually left its first stop, when more); the planned time when on time. ' +
          'The cancel cut-off and the 6-hour modification rule count from it',
      }),
      origin_city: NamedRef,
      destination_city: NamedRef,
      company: NamedRef,
      pickupLocation: PickupLocationSchema,
    }),
    confirmation: z.object({
      status: z
        .enum(['DRAFT', 'HELD', 'REQUESTED', 'CONFIRMED', 'CANCELLED', 'RELEASED', 'EXPIRED'])
        .nullable()
        .meta({ description: "the journey's confirmation status (CONFIRMED or REQUESTED while live)" }),
      deadline: Instant.nullable().meta({
        description: 'while REQUESTED: when the company must have decided',
      }),
    }),
    failure_reason: z
      .enum(FAILURE_REASONS)
      .nullable()
      .meta({
        description:
          'why a CANCELLED booking ended, as the projection of its journey (journey_id) names it: the company ' +
          'rejected the request, its decision deadline passed, a company was suspended while it waited, or the company ' +
          "cancelled the trip; null while the booking lives and when the traveller's own cancel or a refund ended it",
      }),
    boarding_authorized: z.boolean().meta({
      description:
        'true when the booking has tickets and every one of them authorizes boarding (its boarding_authorized); ' +
        'the only flag a client may show a QR code or request a ticket PDF by (never booking.status alone)',
    }),
    tickets: z.array(BookingTicket).meta({
      description: 'current tickets, one per traveller; tickets re-issued by a modification are not listed',
    }),
  })
  .meta({ id: 'CustomerBooking' });

export const BookingResponse = successWith(CustomerBooking);

const BookingList = successWith(
  z.object({
    items: z.array(CustomerBooking),
    total: z.int().meta({ description: "all of the traveller's bookings" }),
    limit: z.int(),
    offset: z.int(),
  }),
);

export const ListQuery = z.object(Pagination).strict();

const OWN_RULE =
  "A traveller sees the bookings they made and those made for their passenger profile; another traveller's booking id " +
  'answers 404 BOOKING_NOT_FOUND, exactly like an id that does not exist. Private answers (Cache-Control: private, no-store).';

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Bookings'], {
  listBookings: {
    summary: "The traveller's bookings",
    description: `Newest first; limit (1 to 100, default 20) and offset; total counts them all. ${OWN_RULE}`,
    responses: answers(200, 'A page of bookings', BookingList, [400, 401]),
  },
  getBooking: {
    summary: 'One of the traveller’s bookings',
    description: `The booking with its trip (trip.pickupLocation, trip.delay_minutes and trip.expected_departure_at), amounts, confirmation, failure_reason and tickets. ${OWN_RULE}`,
    responses: answers(200, 'The booking', BookingResponse, [400, 401, 404]),
  },
});
