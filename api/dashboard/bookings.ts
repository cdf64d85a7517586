import type { z } from 'zod';
import {
  findCompanyBooking,
  listCompanyBookings,
  type DashboardBookingRow,
} from '../../db/queries/dashboard-bookings.js';
import { toPickupLocation } from '../../db/queries/pickup-location.js';
import { releaseOverdueScopesOf } from '../../db/writes/journeys/index.js';
import { bookingNotFound } from '../../domain/booking-rules.js';
import type { AppContext } from '../app.js';
import { page } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { Booking, BookingsQuery, docs } from './bookings.openapi.js';
import { authorize } from './guards.js';
import { companyRecordRoute, staffRoute } from './staff-route.js';
import { iso, isoOrNull } from '../../db/row-fields.js';

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
    trip: {
      departure_at: iso(row.trip_departure_at),
      operating_date: row.trip_operating_date,
      pickupLocation: toPickupLocation(row),
    },
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
            decided_at: isoOrNull(row.request_decided_at),
            reason: row.request_reason,
          }
        : null,
    failure_reason: row.journey_failure_reason,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function registerBookingRoutes(surface: Surface, { db }: AppContext): void {
  staffRoute(surface, authorize, {
    ...docs.listCompanyBookings,
    method: 'get',
    path: '/bookings',
    query: BookingsQuery,
    handler: async (ctx, staff, { query }) => {
      // Requests past their decision deadline are released first, as the journey's projection shows them.
      await releaseOverdueScopesOf(db, { kind: 'COMPANY', id: staff.companyId });
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
      page(ctx, bookings.map(booking), query, total);
    },
  });

  const bookingRead = { ...docs.getCompanyBooking, path: '/bookings/{id}' };
  companyRecordRoute(surface, authorize, bookingRead, async (companyId, bookingId) => {
    await releaseOverdueScopesOf(db, { kind: 'BOOKING', id: bookingId });
    const row = await findCompanyBooking(db, companyId, bookingId);
    if (!row) throw bookingNotFound();
    return booking(row);
  });
}
