import type { NamedRef } from '../../queries/catalogue.js';
import {
  TRIP_DELAY_COLUMNS,
  type BookingColumns,
  type BookingWithTripRow,
} from '../../queries/customer-bookings.js';
import {
  COMPANY_COLUMNS,
  namedRefOf,
  ROUTE_CITIES_JOIN,
  ROUTE_CITY_COLUMNS,
} from '../../queries/named-ref.js';
import {
  PICKUP_COLUMNS,
  pickupStopIdSql,
  toPickupLocation,
  type PickupLocation,
} from '../../queries/pickup-location.js';
import type { Queryable } from '../seat-locks.js';
import { iso } from '../../row-fields.js';

/** The booking as the create routes answer it. */

type RecordColumns = BookingColumns & {
  trip_id: string;
  seat_lock_session_id: string | null;
  order_id: string | null;
};

export interface BookingRecord extends RecordColumns {
  subtotal: number;
  discount: number;
  total_price: number;
  created_at: string;
  trip: {
    id: string;
    departure_at: string;
    arrival_at: string;
    status: string;
    /** As GET /bookings/{id} shows them: the announced delay, and the departure from the boarding stop. */
    delay_minutes: number;
    expected_departure_at: string;
    company: NamedRef;
    origin_city: NamedRef;
    destination_city: NamedRef;
    pickupLocation: PickupLocation;
  };
}

type BookingRecordRow = RecordColumns & BookingWithTripRow;

function toBookingRecord(row: BookingRecordRow): BookingRecord {
  return {
    id: row.id,
    booking_code: row.booking_code,
    status: row.status,
    trip_id: row.trip_id,
    seat_numbers: row.seat_numbers,
    seats_count: row.seats_count,
    passenger_name: row.passenger_name,
    passenger_phone: row.passenger_phone,
    subtotal: Number(row.subtotal),
    discount: Number(row.discount),
    total_price: Number(row.total_price),
    currency: row.currency,
    payment_status: row.payment_status,
    seat_lock_session_id: row.seat_lock_session_id,
    journey_id: row.journey_id,
    order_id: row.order_id,
    created_at: iso(row.created_at),
    trip: {
      id: row.trip_id,
      departure_at: iso(row.departure_at),
      arrival_at: iso(row.arrival_at),
      status: row.trip_status,
      delay_minutes: row.delay_minutes,
      expected_departure_at: iso(row.expected_departure_at),
      company: namedRefOf(row, 'company'),
      origin_city: namedRefOf(row, 'origin'),
      destination_city: namedRefOf(row, 'destination'),
      pickupLocation: toPickupLocation(row),
    },
  };
}

/**
 * The bookings with their trip (company, route cities, pickupLocation, delay), in no particular
 * order. The pickup location and the expected departure follow the booking's boarding call as GET
 * /bookings reads them (pickupStopIdSql, TRIP_DELAY_COLUMNS).
 */
export async function bookingRecords(q: Queryable, ids: string[]): Promise<BookingRecord[]> {
  const { rows } = await q.query<BookingRecordRow>(
    `select k.id, k.booking_code, k.status, k.trip_id, k.seat_numbers, k.seats_count, k.passenger_name, k.passenger_phone,
            k.subtotal, k.discount, k.total_price, k.currency, k.payment_status, k.seat_lock_session_id, k.journey_id,
            j.order_id, k.created_at, t.departure_at, t.arrival_at, t.status as trip_status,
            ${TRIP_DELAY_COLUMNS},
            ${COMPANY_COLUMNS},
            ${ROUTE_CITY_COLUMNS},
            ${PICKUP_COLUMNS}
     from bookings k
     left join journeys j on j.id = k.journey_id
     join trips t on t.id = k.trip_id
     join companies c on c.id = t.company_id
     ${ROUTE_CITIES_JOIN}
     left join journey_legs l on l.journey_id = k.journey_id and l.trip_id = k.trip_id
     left join trip_stop_calls bc on bc.id = l.board_stop_call_id
     join stops p on p.id = ${pickupStopIdSql('t', 'bc')}
     where k.id = any($1::uuid[])`,
    [ids],
  );
  return rows.map(toBookingRecord);
}

/** The booking a consumed lock made, for a retry by its owner. */
export async function bookingOfLock(q: Queryable, lockId: string): Promise<BookingRecord | undefined> {
  const { rows } = await q.query<{ id: string }>(`select id from bookings where seat_lock_session_id = $1`, [
    lockId,
  ]);
  return rows[0] ? (await bookingRecords(q, [rows[0].id]))[0] : undefined;
}
