import { z } from 'zod';
import {
  findCompanyBooking,
  listCompanyBookings,
  type DashboardBookingRow,
} from '../../db/queries/dashboard-bookings.js';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { CalendarDate, errorResponses, IdParams, Pagination, Uuid } from '../http/schemas.js';
import { authorize } from './guards.js';
import { BOOKING_STATUSES } from '../../domain/booking-rules.js';

const BookingStatus = z.enum(BOOKING_STATUSES);
const RequestStatus = z.enum(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED']);
const DateTime = z.string().meta({ format: 'date-time' });

const BookingsQuery = z
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

const Booking = z.object({
  id: z.string().meta({ format: 'uuid' }),
  booking_code: z.string(),
  journey_id: z.string().nullable().meta({ format: 'uuid' }),
  trip_id: z.string().meta({ format: 'uuid' }),
  trip: z.object({ departure_at: DateTime, operating_date: z.string().meta({ format: 'date' }) }),
  boarding: StopVisit.meta({ description: 'where and when the traveller boards (departure from that stop)' }),
  alighting: StopVisit.meta({ description: 'where and when the traveller alights (arrival at that stop)' }),
  passenger_name: z.string(),
  passenger_phone: z.string(),
  seats_count: z.int(),
  seat_numbers: z.array(z.string()),
  status: BookingStatus,
  payment_status: z.enum(['UNPAID', 'PAID', 'REFUNDED']),
  total_price: z.number(),
  discount: z.number(),
  currency: z.string(),
  channel: z.string(),
  confirmation: z
    .object({
      request_id: z.string().meta({ format: 'uuid' }),
      status: RequestStatus,
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

const ListResponse = z.object({
  success: z.literal(true),
  data: z.array(Booking),
  pagination: z.object({ limit: z.int(), offset: z.int(), total: z.int() }),
});
const DetailResponse = z.object({ success: z.literal(true), data: Booking });

const iso = (instant: string) => new Date(instant).toISOString();

function visit(name_en: string | null, name_ar: string | null, at: string | null) {
  return name_en !== null && name_ar !== null && at !== null
    ? { stop_name_en: name_en, stop_name_ar: name_ar, at: iso(at) }
    : null;
}

function booking(row: DashboardBookingRow): z.infer<typeof Booking> {
  return {
    id: row.id,
    booking_code: row.booking_code,
    journey_id: row.journey_id,
    trip_id: row.trip_id,
    trip: { departure_at: iso(row.trip_departure_at), operating_date: row.trip_operating_date },
    boarding: visit(row.board_stop_name_en, row.board_stop_name_ar, row.board_departure_at),
    alighting: visit(row.alight_stop_name_en, row.alight_stop_name_ar, row.alight_arrival_at),
    passenger_name: row.passenger_name,
    passenger_phone: row.passenger_phone,
    seats_count: row.seats_count,
    seat_numbers: row.seat_numbers,
    status: row.status,
    payment_status: row.payment_status,
    total_price: Number(row.total_price),
    discount: Number(row.discount),
    currency: row.currency,
    channel: row.channel,
    confirmation:
      row.request_id && row.request_status && row.request_deadline
        ? {
            request_id: row.request_id,
            status: row.request_status,
            deadline: iso(row.request_deadline),
            decided_at: row.request_decided_at === null ? null : iso(row.request_decided_at),
            reason: row.request_reason,
          }
        : null,
    failure_reason: row.journey_failure_reason,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

const TAGS = ['Dashboard: bookings'];

export function registerBookingRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/bookings',
    operationId: 'listCompanyBookings',
    summary: "Bookings of the signed-in user's company",
    description:
      "The compatibility booking rows of the session's company only (one per journey and trip of the company), newest " +
      "first, each with the company's confirmation request (status and deadline) when the journey needed a decision. " +
      "Filters: status (booking status), trip_id, date (the trip's operating date, Damascus time), confirmation_status " +
      '(PENDING lists the requests awaiting a decision). limit (default 20, at most 100) and offset; pagination.total ' +
      'counts every matching booking. Any dashboard role may read them.',
    tags: TAGS,
    security: 'companyStaff',
    query: BookingsQuery,
    responses: {
      200: { description: 'A page of bookings', schema: ListResponse },
      ...errorResponses(400, 401),
    },
    handler: async (ctx, { query }) => {
      const staff = authorize(ctx);
      const { bookings, total } = await listCompanyBookings(
        db,
        staff.companyId,
        {
          status: query.status,
          tripId: query.trip_id,
          date: query.date,
          confirmationStatus: query.confirmation_status,
        },
        { limit: query.limit, offset: query.offset },
      );
      ctx.body = {
        success: true,
        data: bookings.map(booking),
        pagination: { limit: query.limit, offset: query.offset, total },
      };
    },
  });

  surface.route({
    method: 'get',
    path: '/bookings/{id}',
    operationId: 'getCompanyBooking',
    summary: 'One booking of the company',
    description:
      "A booking of the session's company with its confirmation request. Another company's booking answers 404 " +
      'BOOKING_NOT_FOUND, the same as an id that does not exist. Any dashboard role may read it.',
    tags: TAGS,
    security: 'companyStaff',
    params: IdParams,
    responses: {
      200: { description: 'The booking', schema: DetailResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { params }) => {
      const staff = authorize(ctx);
      const row = await findCompanyBooking(db, staff.companyId, params.id);
      if (!row) throw new Refusal(404, 'BOOKING_NOT_FOUND', 'No such booking');
      ctx.body = { success: true, data: booking(row) };
    },
  });
}
