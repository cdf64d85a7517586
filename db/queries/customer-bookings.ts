import type { FailureReason, JourneyStatus } from '../../domain/journey-confirmation.js';
import type { Database } from '../orm.js';
import { BOOKING_ENDING, BOOKING_ENDING_REASON } from './booking-ending.js';
import { ownBookingSql } from './booking-ownership.js';
import type { NamedRef } from './catalogue.js';
import { expectedDepartureSql } from './leg-boarding.js';
import {
  COMPANY_COLUMNS,
  namedRefOf,
  ROUTE_CITIES_JOIN,
  ROUTE_CITY_COLUMNS,
  type NamedRefColumns,
} from './named-ref.js';
import {
  PICKUP_COLUMNS,
  pickupStopIdSql,
  toPickupLocation,
  type PickupLocation,
  type PickupRow,
} from './pickup-location.js';
import { iso } from '../row-fields.js';
import {
  credentialStateJoins,
  credentialStateSql,
  shownCredential,
  type CredentialState,
} from './shown-credential.js';

/**
 * A traveller's own bookings (GET /bookings, GET /bookings/{id}): the rows whose owner is the
 * signed-in user or whose passenger is the user's canonical passenger profile. Each carries its
 * trip (with pickupLocation, as trip results show it, and the delay the company announced with the
 * departure it announced from the booking's boarding stop, the time the traveller's cancel and
 * modify cut-offs count from) and the pieces of the journey confirmation projection a client needs
 * to show a ticket: confirmation status and deadline, failure_reason (why the booking ended, by the
 * rule of its cancellation confirmation: BOOKING_ENDING_REASON), boarding_authorized and the
 * current tickets (re-issued ones are left out; their QR codes no longer board). Each ticket shows
 * its credential as GET /tickets does (shownCredential); the booking authorizes boarding when it
 * has tickets and every one of them does.
 */

export interface BookingTicket {
  id: string;
  traveller_name: string;
  seat_number: string;
  status: string;
  payload: unknown;
  signature: string | null;
  key_id: string | null;
  boarding_authorized: boolean;
}

/** Columns of a bookings row that each answer about a booking passes on as they are read. */
export type BookingColumns = {
  id: string;
  booking_code: string;
  journey_id: string | null;
  status: string;
  payment_status: string;
  passenger_name: string;
  passenger_phone: string;
  seats_count: number;
  seat_numbers: string[];
  currency: string;
};

/**
 * A booking with its trip, the company and the route cities (NamedRefColumns) and the pickup
 * location, as the booking answers read it: bigint amounts and timestamptz arrive as text.
 */
export type BookingWithTripRow = BookingColumns &
  NamedRefColumns<'origin' | 'destination' | 'company'> &
  PickupRow & {
    subtotal: string;
    discount: string;
    total_price: string;
    created_at: string;
    trip_id: string;
    trip_status: string;
    departure_at: string;
    arrival_at: string;
    delay_minutes: number;
    expected_departure_at: string;
  };

/**
 * The delay columns of the booking answers (every traveller read of the trip's times carries them):
 * trip `t`'s announced delay, and its expected departure from the booking's boarding call `bc` (a
 * booking without a leg boards at the trip's start), the one the cancel and modify cut-offs read
 * (db/writes/booking-changes).
 */
export const TRIP_DELAY_COLUMNS = `t.delay_minutes,
  ${expectedDepartureSql('t', 'coalesce(bc.departure_at, t.departure_at)')} as expected_departure_at`;

type CustomerBookingColumns = BookingColumns & { channel: string };

export interface CustomerBooking extends CustomerBookingColumns {
  subtotal: number;
  discount: number;
  total_price: number;
  created_at: string;
  updated_at: string;
  trip: {
    id: string;
    status: string;
    departure_at: string;
    arrival_at: string;
    /** The delay the company announced (MARK_DELAYED), 0 when none. */
    delay_minutes: number;
    /** The departure from the booking's boarding stop: its plan plus how late the trip runs (expectedDepartureSql). */
    expected_departure_at: string;
    origin_city: NamedRef;
    destination_city: NamedRef;
    company: NamedRef;
    pickupLocation: PickupLocation;
  };
  confirmation: { status: JourneyStatus | null; deadline: string | null };
  /** Why a CANCELLED booking ended, when its company or the platform ended it; null otherwise. */
  failure_reason: FailureReason | null;
  boarding_authorized: boolean;
  tickets: BookingTicket[];
}

/** bookings `b` the user ($1) may see: owned, or made for the user's canonical passenger (ownBookingSql). */
export const OWN_BOOKING = ownBookingSql('$1');

/**
 * The pickup location is where a traveller boarding at the leg's boarding call is picked up
 * (pickupStopIdSql, the rule of trip results); the expected departure is the bus's from that call
 * (a booking without a leg boards at the trip's start), the one the cancel and modify cut-offs read
 * (db/writes/booking-changes). Only a CANCELLED booking has a failure_reason: a leg that travelled
 * keeps its record when another leg's trip is cancelled, and is not ended by it.
 */
const BOOKING_SELECT = `
  select b.id, b.booking_code, b.journey_id, b.status, b.payment_status, b.passenger_name, b.passenger_phone, b.seats_count,
         b.seat_numbers, b.subtotal, b.discount, b.total_price, b.currency, b.channel, b.created_at, b.updated_at,
         j.status as journey_status, j.confirmation_deadline,
         case when b.status = 'CANCELLED' then ${BOOKING_ENDING_REASON} end as failure_reason,
         t.id as trip_id, t.status as trip_status, t.departure_at, t.arrival_at, ${TRIP_DELAY_COLUMNS},
         ${ROUTE_CITY_COLUMNS},
         ${COMPANY_COLUMNS},
         ${PICKUP_COLUMNS}
  from bookings b
  join trips t on t.id = b.trip_id
  ${ROUTE_CITIES_JOIN}
  join companies c on c.id = b.company_id
  left join journeys j on j.id = b.journey_id
  left join journey_legs l on l.journey_id = b.journey_id and l.trip_id = b.trip_id
  left join trip_stop_calls bc on bc.id = l.board_stop_call_id
  join stops p on p.id = ${pickupStopIdSql('t', 'bc')}
  left join lateral (${BOOKING_ENDING}) ended on true`;

type BookingRow = BookingWithTripRow & {
  channel: string;
  updated_at: string;
  journey_status: JourneyStatus | null;
  confirmation_deadline: string | null;
  failure_reason: FailureReason | null;
};

function toBooking(row: BookingRow, tickets: BookingTicket[]): CustomerBooking {
  const journeyStatus = row.journey_status;
  return {
    id: row.id,
    booking_code: row.booking_code,
    journey_id: row.journey_id,
    status: row.status,
    payment_status: row.payment_status,
    passenger_name: row.passenger_name,
    passenger_phone: row.passenger_phone,
    seats_count: row.seats_count,
    seat_numbers: row.seat_numbers,
    subtotal: Number(row.subtotal),
    discount: Number(row.discount),
    total_price: Number(row.total_price),
    currency: row.currency,
    channel: row.channel,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    trip: {
      id: row.trip_id,
      status: row.trip_status,
      departure_at: iso(row.departure_at),
      arrival_at: iso(row.arrival_at),
      delay_minutes: row.delay_minutes,
      expected_departure_at: iso(row.expected_departure_at),
      origin_city: namedRefOf(row, 'origin'),
      destination_city: namedRefOf(row, 'destination'),
      company: namedRefOf(row, 'company'),
      pickupLocation: toPickupLocation(row),
    },
    confirmation: {
      status: journeyStatus,
      deadline:
        journeyStatus === 'REQUESTED' && row.confirmation_deadline !== null
          ? iso(row.confirmation_deadline)
          : null,
    },
    failure_reason: row.failure_reason,
    boarding_authorized: tickets.length > 0 && tickets.every((ticket) => ticket.boarding_authorized),
    tickets,
  };
}

/** jsonb arrives parsed. */
interface BookingTicketRow extends CredentialState {
  booking_id: string;
  id: string;
  traveller_name: string;
  seat_number: string;
}

const toBookingTicket = (row: BookingTicketRow): BookingTicket => ({
  id: row.id,
  traveller_name: row.traveller_name,
  seat_number: row.seat_number,
  status: row.status,
  ...shownCredential(row),
});

/** The current tickets of each booking (its journey's tickets on its trip), keyed by booking id. */
async function ticketsOf(db: Database, bookingIds: string[]): Promise<Map<string, BookingTicket[]>> {
  const rows = await db.query<BookingTicketRow>(
    `select b.id as booking_id, t.id, t.traveller_name, t.seat_number, t.status, t.payload, t.signature, t.key_id,
            t.boarding_authorized, ${credentialStateSql.revoked} as revoked, ${credentialStateSql.legBoards} as leg_boards
     from bookings b
     join journey_tickets t on t.journey_id = b.journey_id and t.trip_id = b.trip_id and t.company_id = b.company_id
     ${credentialStateJoins('t')}
     where b.id = any($1::uuid[]) and t.status <> 'REISSUED'
     order by t.leg_sequence, t.traveller_index`,
    [bookingIds],
  );
  const byBooking = new Map<string, BookingTicket[]>();
  for (const row of rows) {
    const list = byBooking.get(row.booking_id) ?? [];
    list.push(toBookingTicket(row));
    byBooking.set(row.booking_id, list);
  }
  return byBooking;
}

/** One page of the user's bookings, newest first, and how many there are in all. */
export async function listOwnBookings(
  db: Database,
  userId: string,
  page: { limit: number; offset: number },
): Promise<{ total: number; items: CustomerBooking[] }> {
  const [[counted], rows] = await Promise.all([
    db.query<{ total: number }>(`select count(*)::int as total from bookings b where ${OWN_BOOKING}`, [
      userId,
    ]),
    db.query<BookingRow>(
      `${BOOKING_SELECT} where ${OWN_BOOKING} order by b.created_at desc, b.id desc limit $2 offset $3`,
      [userId, page.limit, page.offset],
    ),
  ]);
  const tickets = await ticketsOf(
    db,
    rows.map((row) => row.id),
  );
  return {
    total: counted!.total,
    items: rows.map((row) => toBooking(row, tickets.get(row.id) ?? [])),
  };
}

/** The user's booking, or null when it does not exist or is someone else's. */
export async function findOwnBooking(
  db: Database,
  userId: string,
  bookingId: string,
): Promise<CustomerBooking | null> {
  const [row] = await db.query<BookingRow>(`${BOOKING_SELECT} where b.id = $2 and ${OWN_BOOKING}`, [
    userId,
    bookingId,
  ]);
  if (!row) return null;
  const tickets = await ticketsOf(db, [bookingId]);
  return toBooking(row, tickets.get(bookingId) ?? []);
}
