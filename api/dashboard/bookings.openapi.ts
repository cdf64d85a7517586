import { z } from 'zod';
import { BOOKING_STATUSES } from '../../domain/booking-rules.js';
import { CalendarDate, Pagination, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText as DateTime, IdText, pageWith, successWith } from '../http/answer-schemas.js';
import { PickupLocationSchema } from '../customer/trips.openapi.js';

/** OpenAPI of the dashboard's booking reads (bookings.ts): schemas and the rules they document. */

const TAGS = ['Dashboard: bookings'];

const BookingStatus = z.enum(BOOKING_STATUSES);
const RequestStatus = z.enum(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED']);

/** How a request ended undecided (db/writes/journeys/decide.ts END_PENDING_REQUESTS). */
const ENDED_UNDECIDED =
  'EXPIRED: its own deadline passed undecided; CANCELLED: the journey ended while the company still had time ' +
  "(another company's rejection or missed deadline, a suspension, a cancelled trip)";

export const BookingsQuery = z
  .object({
    status: BookingStatus.optional(),
    trip_id: Uuid.optional(),
    date: CalendarDate.optional().meta({
      description: "operating date of the booking's trip (Damascus), YYYY-MM-DD",
    }),
    confirmation_status: RequestStatus.optional().meta({
      description: "status of the company's confirmation request",
    }),
    ...Pagination,
  })
  .strict();

const StopVisit = z.object({ stop_name_en: z.string(), stop_name_ar: z.string(), at: DateTime }).nullable();

export const Booking = z.object({
  id: IdText,
  booking_code: z.string(),
  journey_id: z.string().nullable().meta({ format: 'uuid' }),
  trip_id: IdText,
  trip: z.object({
    departure_at: DateTime,
    operating_date: z.string().meta({ format: 'date' }),
    pickupLocation: PickupLocationSchema,
  }),
  boarding: StopVisit.meta({ description: 'where and when the traveller boards (departure from that stop)' }),
  alighting: StopVisit.meta({ description: 'where and when the traveller alights (arrival at that stop)' }),
  passenger_name: z.string(),
  passenger_phone: z.string(),
  seats_count: z.int(),
  seat_numbers: z.array(z.string()),
  status: BookingStatus,
  payment_status: z.enum(['UNPAID', 'PAID', 'REFUNDED']).meta({
    description:
      'REFUNDED: refunded in full (POST /payments/{id}/refund); a booking refunded before it travelled is CANCELLED ' +
      'with it (seats released, tickets and credentials revoked), one refunded after travel keeps its status',
  }),
  total_price: z.number(),
  discount: z.number(),
  currency: z.string(),
  channel: z.string(),
  confirmation: z
    .object({
      request_id: IdText,
      status: RequestStatus.meta({ description: ENDED_UNDECIDED }),
      deadline: DateTime,
      decided_at: DateTime.nullable(),
      reason: z.string().nullable(),
    })
    .nullable()
    .meta({
      description:
        "the company's confirmation request for this journey (or the order it was confirmed in); null when the company " +
        'confirmed automatically. PATCH /bookings/{id}/status decides a PENDING one before its deadline.',
    }),
  failure_reason: z.string().nullable().meta({ description: 'why the journey was cancelled, when it was' }),
  created_at: DateTime,
  updated_at: DateTime,
});

const ListResponse = pageWith(Booking);
const DetailResponse = successWith(Booking);

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(TAGS, {
  listCompanyBookings: {
    summary: "Bookings of the signed-in user's company",
    description:
      "The compatibility booking rows of the session's company only (one per journey and trip of the company), newest " +
      "first, each with the company's confirmation request (status and deadline) when the journey needed a decision " +
      "and trip.pickupLocation (where this booking's traveller is picked up, as in the customer's booking). " +
      "Filters: status (booking status), trip_id, date (the trip's operating date, Damascus time), confirmation_status " +
      '(PENDING lists the requests awaiting a decision). limit (default 20, at most 100) and offset; pagination.total ' +
      'counts every matching booking. Any dashboard role may read them.',
    responses: answers(200, 'A page of bookings', ListResponse, [400, 401]),
  },
  getCompanyBooking: {
    summary: 'One booking of the company',
    description:
      "A booking of the session's company with its confirmation request and trip.pickupLocation: where this traveller " +
      'is picked up by the rule of PickupLocation (a traveller boarding mid-route has their boarding stop; a booking ' +
      "without a journey leg has the trip's pickup stop). Another company's booking answers 404 BOOKING_NOT_FOUND, " +
      'the same as an id that does not exist. Any dashboard role may read it.',
    responses: answers(200, 'The booking', DetailResponse, [400, 401, 404]),
  },
});
