import type { Database } from '../orm.js';
import { allSalesStats } from './analytics.js';
import { companyRecordById } from './company-records.js';
import { journeyScopeSql } from './journeys.js';
import { PICKUP_COLUMNS, pickupStopIdSql, type PickupRow } from './pickup-location.js';
import { clauses, type Statement } from './statements.js';
import type { BookingStatus } from '../../domain/booking-rules.js';

/**
 * The company dashboard's view of bookings: the compatibility rows (one per journey, company and
 * trip) of the session's company, each with the company's confirmation request for that journey
 * (or for the order it was confirmed in), when there is one, and where the traveller boards and
 * alights, and the trip's pickup location for that traveller (PickupRow). Never another company's
 * rows. Instants arrive as PostgreSQL timestamptz text.
 */
export type { BookingStatus };
export type ConfirmationRequestStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';

export interface DashboardBookingRow extends PickupRow {
  id: string;
  company_id: string;
  booking_code: string;
  journey_id: string | null;
  trip_id: string;
  passenger_name: string;
  passenger_phone: string;
  seats_count: number;
  seat_numbers: string[];
  status: BookingStatus;
  payment_status: 'UNPAID' | 'PAID' | 'REFUNDED';
  total_price: string;
  discount: string;
  currency: string;
  channel: string;
  created_at: string;
  updated_at: string;
  trip_departure_at: string;
  trip_operating_date: string;
  board_stop_name_en: string | null;
  board_stop_name_ar: string | null;
  board_departure_at: string | null;
  alight_stop_name_en: string | null;
  alight_stop_name_ar: string | null;
  alight_arrival_at: string | null;
  request_id: string | null;
  request_status: ConfirmationRequestStatus | null;
  request_deadline: string | null;
  request_decided_at: string | null;
  request_reason: string | null;
  journey_failure_reason: string | null;
}

export interface BookingFilters {
  status?: BookingStatus | undefined;
  tripId?: string | undefined;
  /** Operating date of the trip (Damascus), YYYY-MM-DD. */
  date?: string | undefined;
  confirmationStatus?: ConfirmationRequestStatus | undefined;
}

const COLUMNS = `
  b.id, b.company_id, b.booking_code, b.journey_id, b.trip_id, b.passenger_name, b.passenger_phone,
  b.seats_count, b.seat_numbers, b.status, b.payment_status, b.total_price, b.discount, b.currency,
  b.channel, b.created_at, b.updated_at,
  t.departure_at as trip_departure_at, to_char(t.operating_date, 'YYYY-MM-DD') as trip_operating_date,
  leg.board_stop_name_en, leg.board_stop_name_ar, leg.board_departure_at,
  leg.alight_stop_name_en, leg.alight_stop_name_ar, leg.alight_arrival_at,
  ${PICKUP_COLUMNS},
  cr.id as request_id, cr.status as request_status, cr.deadline as request_deadline,
  cr.decided_at as request_decided_at, cr.reason as request_reason,
  j.failure_reason as journey_failure_reason`;

/** A journey confirmed inside an order has its company's request on the order. */
const REQUEST_JOINS = `
  left join journeys j on j.id = b.journey_id
  left join confirmation_requests cr
    on cr.company_id = b.company_id
   and cr.scope_kind = ${journeyScopeSql('j').kind}
   and cr.scope_id = ${journeyScopeSql('j').id}`;

const FROM = `
  from bookings b
  join trips t on t.id = b.trip_id ${REQUEST_JOINS}`;

/**
 * The booking's leg on its trip, and where the traveller boarding at the leg's boarding call is
 * picked up (pickupStopIdSql, the rule of trip results and the customer's bookings); a booking
 * without a leg has the trip's pickup stop. Never drops a row: the stop is always there.
 */
const LEG = `
  left join lateral (
    select l.board_stop_call_id,
           bs.name_en as board_stop_name_en, bs.name_ar as board_stop_name_ar, bc.departure_at as board_departure_at,
           als.name_en as alight_stop_name_en, als.name_ar as alight_stop_name_ar, ac.arrival_at as alight_arrival_at
    from journey_legs l
    join trip_stop_calls bc on bc.id = l.board_stop_call_id
    join stops bs on bs.id = bc.stop_id
    join trip_stop_calls ac on ac.id = l.alight_stop_call_id
    join stops als on als.id = ac.stop_id
    where l.journey_id = b.journey_id and l.trip_id = b.trip_id
    order by l.sequence
    limit 1
  ) leg on true
  left join trip_stop_calls board on board.id = leg.board_stop_call_id
  join stops p on p.id = ${pickupStopIdSql('t', 'board')}`;

/**
 * The filter as SQL over bookings `b` ($1 is the company), with the joins it needs and nothing
 * more: the trip for a date, the journey and its request for a confirmation status.
 */
function selectionSql(companyId: string, filters: BookingFilters): { from: string; values: unknown[] } {
  const values: unknown[] = [companyId];
  const selected = clauses(values);
  selected.where.push('b.company_id = $1');
  if (filters.status) selected.add((slot) => `b.status = ${slot}::text`, filters.status);
  if (filters.tripId) selected.add((slot) => `b.trip_id = ${slot}::uuid`, filters.tripId);
  if (filters.date) selected.add((slot) => `t.operating_date = ${slot}::date`, filters.date);
  if (filters.confirmationStatus)
    selected.add((slot) => `cr.status = ${slot}::text`, filters.confirmationStatus);
  const joins = `${filters.date ? 'join trips t on t.id = b.trip_id' : ''} ${filters.confirmationStatus ? REQUEST_JOINS : ''}`;
  return { from: `from bookings b ${joins} where ${selected.where.join(' and ')}`, values };
}

/** How many bookings the company ($1) has, from the booking statistics (always equal to a recount). */
const ALL_BOOKINGS_COUNT = `select coalesce(sum(s.bookings), 0)::int as total from ${allSalesStats('$1')}`;

/**
 * The two statements behind GET /dashboard/api/bookings: the count of the whole selection (of
 * every booking from the statistics) and the page, newest first. The page picks its ids first
 * (bookings_company_idx holds (company_id, created_at desc); equal times are sorted by id, a few
 * rows) and reads the columns, with the leg and the request, for those rows only: a page costs the
 * same after a year of bookings as after a week. The page and the total are two statements, so a
 * booking made between them can make them differ by one, as in the other lists.
 */
function bookingListStatements(
  companyId: string,
  filters: BookingFilters,
  page: { limit: number; offset: number },
): { count: Statement; page: Statement } {
  const { from, values } = selectionSql(companyId, filters);
  const n = values.length;
  return {
    count:
      n === 1
        ? { text: ALL_BOOKINGS_COUNT, values }
        : { text: `select count(*)::int as total ${from}`, values },
    page: {
      text: `select ${COLUMNS}
               from (select b.id ${from} order by b.created_at desc, b.id limit $${n + 1} offset $${n + 2}) page
               join bookings b on b.id = page.id
               join trips t on t.id = b.trip_id ${REQUEST_JOINS} ${LEG}
              order by b.created_at desc, b.id`,
      values: [...values, page.limit, page.offset],
    },
  };
}

export async function listCompanyBookings(
  db: Database,
  companyId: string,
  filters: BookingFilters,
  page: { limit: number; offset: number },
): Promise<{ bookings: DashboardBookingRow[]; total: number }> {
  const statements = bookingListStatements(companyId, filters, page);
  const [bookings, [count]] = await Promise.all([
    db.query<DashboardBookingRow>(statements.page.text, statements.page.values),
    db.query<{ total: number }>(statements.count.text, statements.count.values),
  ]);
  return { bookings, total: count!.total };
}

/** One booking of the company; undefined when it does not exist or belongs to another company. */
export const findCompanyBooking = companyRecordById(
  `select ${COLUMNS} ${FROM} ${LEG}`,
  'b',
  (row: DashboardBookingRow) => row,
);
