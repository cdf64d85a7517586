import { compareManifestPlaces, type Attendance, type ManifestItemType } from '../../domain/trip-dispatch.js';
import type { Database } from '../orm.js';
import { iso, isoOrNull } from '../row-fields.js';
import { overdueRequestRowSql } from './journeys.js';
import { amountDueSql } from './payments.js';

/**
 * A trip's manifest: one item per traveller. Every modern traveller is a JOURNEY_TICKET item (its
 * ticket on this trip, pending confirmation (in a scope still open), valid or used); a BOOKING item stands for a legacy
 * booking row that has no ticket on the trip. Cancelled and re-issued tickets are not travellers.
 * Instants arrive as text.
 */
export interface ManifestItem {
  itemType: ManifestItemType;
  itemId: string;
  bookingId: string | null;
  bookingCode: string | null;
  journeyId: string | null;
  travellerName: string;
  phone: string | null;
  seatNumber: string;
  ticketStatus: string | null;
  bookingStatus: string | null;
  attendance: Attendance;
  attendanceAt: string | null;
  attendanceBy: { id: string; name: string } | null;
  attendanceSource: string | null;
  boarding: StopVisit;
  alighting: StopVisit;
  payment: {
    status: string;
    totalPrice: number;
    currency: string;
    pendingCash: boolean;
    cashToCollect: boolean;
  } | null;
  /** The traveller's booking still awaits the company's decision. */
  awaitingConfirmation: boolean;
}

export interface StopVisit {
  stopCallId: string;
  sequence: number;
  stopId: string;
  nameAr: string;
  nameEn: string;
  at: string;
}

interface ManifestRow {
  item_id: string;
  booking_id: string | null;
  booking_code: string | null;
  journey_id: string | null;
  traveller_name: string;
  phone: string | null;
  seat_number: string;
  /** The seat's deck on the bus's active layout (1 when the layout no longer has the seat). */
  seat_deck: number;
  ticket_status: string | null;
  booking_status: string | null;
  attendance: Attendance;
  attendance_at: string | null;
  attendance_by: string | null;
  attendance_by_name: string | null;
  attendance_source: string | null;
  payment_status: string | null;
  total_price: string | null;
  currency: string | null;
  pending_cash: boolean;
  cash_to_collect: boolean;
  board_call_id: string;
  board_sequence: number;
  board_stop_id: string;
  board_name_ar: string;
  board_name_en: string;
  board_at: string;
  alight_call_id: string;
  alight_sequence: number;
  alight_stop_id: string;
  alight_name_ar: string;
  alight_name_en: string;
  alight_at: string;
}

const visit = (prefix: 'board' | 'alight', row: ManifestRow): StopVisit => ({
  stopCallId: row[`${prefix}_call_id`],
  sequence: row[`${prefix}_sequence`],
  stopId: row[`${prefix}_stop_id`],
  nameAr: row[`${prefix}_name_ar`],
  nameEn: row[`${prefix}_name_en`],
  at: iso(row[`${prefix}_at`]),
});

function toItem(itemType: ManifestItemType, row: ManifestRow): ManifestItem {
  return {
    itemType,
    itemId: row.item_id,
    bookingId: row.booking_id,
    bookingCode: row.booking_code,
    journeyId: row.journey_id,
    travellerName: row.traveller_name,
    phone: row.phone,
    seatNumber: row.seat_number,
    ticketStatus: row.ticket_status,
    bookingStatus: row.booking_status,
    attendance: row.attendance,
    attendanceAt: isoOrNull(row.attendance_at),
    attendanceBy:
      row.attendance_by === null ? null : { id: row.attendance_by, name: row.attendance_by_name ?? '' },
    attendanceSource: row.attendance_source,
    boarding: visit('board', row),
    alighting: visit('alight', row),
    payment:
      row.payment_status === null
        ? null
        : {
            status: row.payment_status,
            totalPrice: Number(row.total_price),
            currency: row.currency ?? 'SYP',
            pendingCash: row.pending_cash,
            cashToCollect: row.cash_to_collect,
          },
    awaitingConfirmation:
      row.ticket_status === 'PENDING_CONFIRMATION' || row.booking_status === 'PENDING_CONFIRMATION',
  };
}

/**
 * SQL boolean: booking `b` has cash for its driver to take at the door (the driver app's "cash to
 * collect", and for a checked-in traveller the CASH_TO_COLLECT that holds DEPART): travelling
 * (CONFIRMED or CHECKED_IN), unpaid, of an amount above 0 (a booking that costs nothing, such as
 * one on a free-trip voucher, stays UNPAID with nothing to collect), and no PENDING driver line
 * records that its driver took it already (db/writes/driver-collections.ts).
 */
export const cashToCollectSql = (b: string) =>
  `(${b}.status in ('CONFIRMED', 'CHECKED_IN') and ${b}.payment_status = 'UNPAID' and ${amountDueSql(b)}
    and not exists (select 1 from payment_operations dl
                     where dl.booking_id = ${b}.id and dl.source = 'driver' and dl.status = 'PENDING'))`;

const PAYMENT_COLUMNS = `b.payment_status, b.total_price, b.currency,
  exists (select 1 from payment_operations po where po.booking_id = b.id and po.status = 'PENDING') as pending_cash,
  ${cashToCollectSql('b')} as cash_to_collect`;

const VISIT_COLUMNS = `bc.id as board_call_id, bc.sequence as board_sequence, bs.id as board_stop_id, bs.name_ar as board_name_ar,
  bs.name_en as board_name_en, bc.departure_at as board_at, ac.id as alight_call_id, ac.sequence as alight_sequence,
  xs.id as alight_stop_id, xs.name_ar as alight_name_ar, xs.name_en as alight_name_en, ac.arrival_at as alight_at`;

/**
 * Who the manifest lists, as SQL over a row alias, so every count of a trip's travellers (the driver
 * app's trip list and manifest header, db/queries/driver-trips.ts) counts what the manifest lists.
 */

/**
 * SQL boolean: journey ticket `k` is a traveller of its trip: valid or used, or pending confirmation
 * in a journey or order not closed at a decision deadline (./journeys.ts overdueRequestRowSql: its
 * seat is free from that deadline, perhaps sold again, though no worker has released the scope yet).
 */
export const ticketTravellerSql = (k: string) =>
  `(${k}.status in ('VALID', 'USED', 'PENDING_CONFIRMATION') and not ${overdueRequestRowSql(k)})`;

/** SQL boolean: bookings row `b` is a legacy traveller of its trip: live, and without a ticket on that trip. */
export const legacyTravellerSql = (b: string) =>
  `(${b}.status in ('PENDING_CONFIRMATION', 'CONFIRMED', 'CHECKED_IN', 'NO_SHOW', 'COMPLETED')
    and not exists (select 1 from journey_tickets lk where lk.journey_id = ${b}.journey_id and lk.trip_id = ${b}.trip_id))`;

/** SQL text: a legacy booking's attendance, from its status (COMPLETED travelled: checked in). */
export const legacyAttendanceSql = (b: string) =>
  `(case ${b}.status when 'CHECKED_IN' then 'CHECKED_IN' when 'COMPLETED' then 'CHECKED_IN'
                     when 'NO_SHOW' then 'NO_SHOW' else 'PENDING' end)`;

const TICKET_ITEMS = `
  select k.id as item_id, b.id as booking_id, b.booking_code, k.journey_id, k.traveller_name,
         coalesce(k.traveller_phone, b.passenger_phone) as phone, k.seat_number, coalesce(ls.deck, 1) as seat_deck,
         k.status as ticket_status,
         b.status as booking_status, k.attendance, k.attendance_at, k.attendance_by, su.name as attendance_by_name,
         k.attendance_source, ${PAYMENT_COLUMNS}, ${VISIT_COLUMNS}
  from journey_tickets k
  join journey_legs l on l.journey_id = k.journey_id and l.sequence = k.leg_sequence
  join trip_stop_calls bc on bc.id = l.board_stop_call_id join stops bs on bs.id = bc.stop_id
  join trip_stop_calls ac on ac.id = l.alight_stop_call_id join stops xs on xs.id = ac.stop_id
  left join bookings b on b.journey_id = k.journey_id and b.trip_id = k.trip_id and b.company_id = k.company_id
  left join staff_users su on su.id = k.attendance_by
  join trips t on t.id = k.trip_id
  left join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
  left join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = k.seat_id
  where k.trip_id = $1 and ${ticketTravellerSql('k')}`;

/** Legacy rows ride the whole trip: from its first call to its last. */
const LEGACY_ITEMS = `
  select b.id as item_id, b.id as booking_id, b.booking_code, b.journey_id, b.passenger_name as traveller_name,
         b.passenger_phone as phone, array_to_string(b.seat_numbers, ', ') as seat_number, 1 as seat_deck,
         null as ticket_status,
         b.status as booking_status,
         ${legacyAttendanceSql('b')} as attendance,
         null as attendance_at, null as attendance_by, null as attendance_by_name, null as attendance_source,
         ${PAYMENT_COLUMNS}, ${VISIT_COLUMNS}
  from bookings b
  join lateral (select * from trip_stop_calls c where c.trip_id = b.trip_id order by c.sequence limit 1) bc on true
  join stops bs on bs.id = bc.stop_id
  join lateral (select * from trip_stop_calls c where c.trip_id = b.trip_id order by c.sequence desc limit 1) ac on true
  join stops xs on xs.id = ac.stop_id
  where b.trip_id = $1 and ${legacyTravellerSql('b')}
  order by b.created_at, b.id`;

/** Where a ticket row sits in the manifest's order. */
const placeOf = (row: ManifestRow) => ({
  boardingSequence: row.board_sequence,
  deck: row.seat_deck,
  seatNumber: row.seat_number,
  itemId: row.item_id,
});

/**
 * Every traveller of the trip: ticket items by boarding stop, then in the bus's seat order (seat
 * 2 before seat 10: domain/trip-dispatch.ts compareManifestPlaces, a natural order SQL's text
 * order is not), then legacy bookings in the order they were made.
 */
export async function readManifest(db: Database, tripId: string): Promise<ManifestItem[]> {
  const [tickets, legacy] = await Promise.all([
    db.query<ManifestRow>(TICKET_ITEMS, [tripId]),
    db.query<ManifestRow>(LEGACY_ITEMS, [tripId]),
  ]);
  return [
    ...tickets
      .sort((a, b) => compareManifestPlaces(placeOf(a), placeOf(b)))
      .map((row) => toItem('JOURNEY_TICKET', row)),
    ...legacy.map((row) => toItem('BOOKING', row)),
  ];
}
