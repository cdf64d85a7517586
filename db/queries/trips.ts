import type { InventoryScope } from '../../domain/inventory-scope.js';
import { legFare, seatFare } from '../../domain/pricing.js';
import {
  customerLayoutView,
  layoutSeats,
  type LayoutDocument,
  type SeatClass,
} from '../../domain/seat-layout.js';
import type { Database } from '../orm.js';
import { publicStopSql, type CityRef, type CompanyRef } from './catalogue.js';
import {
  BOOKABLE_TRIP_SQL,
  isBookableStatus,
  LIVE_ALLOCATION,
  offeredVipFareSql,
  takenSeatsSql,
} from './inventory.js';
import { namedRefOf, ROUTE_CITIES_JOIN, ROUTE_CITY_COLUMNS, type NamedRefColumns } from './named-ref.js';
import {
  PICKUP_COLUMNS,
  pickupStopIdSql,
  toPickupLocation,
  type PickupLocation,
  type PickupRow,
} from './pickup-location.js';
import { expectedDepartureSql } from './leg-boarding.js';
import { companyScopeSql } from './scope.js';
import {
  stopIdentityColumns,
  toStopIdentity,
  type StopIdentity,
  type StopIdentityRow,
} from './stop-identity.js';
import { iso } from '../row-fields.js';

/**
 * Trip reads of the customer API. Every read joins the trip's company through the caller's
 * inventory scope, so a trip outside it looks exactly like a trip that does not exist.
 */

export interface TripBus {
  id: string;
  model: string;
  amenities: string[];
}

/** What a trip search result (trip-search.ts) and a trip's detail both say about the trip. */
export interface TripFields {
  id: string;
  company_id: string;
  company: CompanyRef;
  route_id: string;
  status: string;
  departure_time: string;
  arrival_time: string;
  price: number;
  price_vip: number | null;
  currency: string;
  available_seats: number;
  total_seats: number;
  bus: TripBus;
  pickupLocation: PickupLocation;
}

/** bigint amounts arrive as PostgreSQL text from the pool; answers carry numbers. */
export const money = (amount: string | null) => (amount === null ? null : Number(amount));

export const tripColumns = `t.id, t.company_id, c.name_ar as company_name_ar, c.name_en as company_name_en, t.route_id, t.status,
  t.price_base::text as price_base, (${offeredVipFareSql('t.id', 't.price_vip')})::text as price_vip, t.currency, t.seats_total,
  bu.id as bus_id, bu.model as bus_model, bu.amenities as bus_amenities`;

/** The columns of tripColumns, as pg returns them (prices as text: bigint). */
export type TripColumnsRow = NamedRefColumns<'company'> & {
  id: string;
  route_id: string;
  status: string;
  price_base: string;
  price_vip: string | null;
  currency: string;
  seats_total: number;
  bus_id: string;
  bus_model: string;
  bus_amenities: string[];
};

export const busOf = (row: TripColumnsRow): TripBus => ({
  id: row.bus_id,
  model: row.bus_model,
  amenities: row.bus_amenities,
});

export interface TripDetail extends TripFields {
  /** The delay the company announced (MARK_DELAYED), 0 when none. */
  delay_minutes: number;
  /** The departure from the trip's first call: its plan plus how late the trip runs (expectedDepartureSql). */
  expected_departure_at: string;
  route: { id: string; origin_city: CityRef; destination_city: CityRef };
  stop_calls: StopIdentity[];
}

type TripDetailRow = TripColumnsRow &
  NamedRefColumns<'origin' | 'destination'> &
  PickupRow & {
    departure_at: string;
    arrival_at: string;
    delay_minutes: number;
    expected_departure_at: string;
    available_seats: number;
  };

function toTripDetail(row: TripDetailRow, calls: StopIdentityRow<'call'>[]): TripDetail {
  return {
    id: row.id,
    company_id: row.company_id,
    company: namedRefOf(row, 'company'),
    route_id: row.route_id,
    route: {
      id: row.route_id,
      origin_city: namedRefOf(row, 'origin'),
      destination_city: namedRefOf(row, 'destination'),
    },
    status: row.status,
    departure_time: iso(row.departure_at),
    arrival_time: iso(row.arrival_at),
    delay_minutes: row.delay_minutes,
    expected_departure_at: iso(row.expected_departure_at),
    price: Number(row.price_base),
    price_vip: money(row.price_vip),
    currency: row.currency,
    total_seats: row.seats_total,
    available_seats: row.available_seats,
    bus: busOf(row),
    pickupLocation: toPickupLocation(row),
    stop_calls: calls.map((call) => toStopIdentity(call, 'call')),
  };
}

/**
 * One trip with its public stop calls, or null when it does not exist or lies outside the scope.
 * Its free seats are those over the whole trip, none once it can no longer be booked (the seat
 * lock's test: a bookable status and a first call still ahead). Its pickup location is that of a
 * traveller of the whole trip, who boards at its first call (as POST /bookings books it), and so is
 * its expected departure: the first call's plan plus the delay the company announced (or how late
 * the bus actually left, when more), the time a booking of the whole trip's cut-offs count from.
 */
export async function findTripDetail(
  db: Database,
  scope: InventoryScope,
  tripId: string,
): Promise<TripDetail | null> {
  const params: unknown[] = [tripId];
  const [row] = await db.query<TripDetailRow>(
    `select ${tripColumns}, t.departure_at, t.arrival_at, t.delay_minutes,
            ${expectedDepartureSql('t', 'coalesce(fc.departure_at, t.departure_at)')} as expected_departure_at,
            case when ${BOOKABLE_TRIP_SQL}
                  and (select f.departure_at from trip_stop_calls f where f.trip_id = t.id order by f.sequence limit 1) > now()
                 then t.seats_total - ${takenSeatsSql('t.id', '0', '(select max(x.sequence) from trip_stop_calls x where x.trip_id = t.id)')}
                 else 0 end as available_seats,
            ${ROUTE_CITY_COLUMNS},
            ${PICKUP_COLUMNS}
     from trips t
     join companies c on c.id = t.company_id
     ${ROUTE_CITIES_JOIN}
     join buses bu on bu.id = t.bus_id
     left join lateral (
       select f.id, f.stop_id, f.city_id, f.sequence, f.departure_at from trip_stop_calls f where f.trip_id = t.id order by f.sequence limit 1
     ) fc on true
     join stops p on p.id = ${pickupStopIdSql('t', 'fc')}
     where t.id = $1 and ${companyScopeSql(scope, params, 'c')}`,
    params,
  );
  if (!row) return null;
  const calls = await db.query<StopIdentityRow<'call'>>(
    `select ${stopIdentityColumns('call')}
     from trip_stop_calls sc
     join stops s on s.id = sc.stop_id
     join cities ci on ci.id = sc.city_id
     where sc.trip_id = $1 and ${publicStopSql('s')}
     order by sc.sequence`,
    [tripId],
  );
  return toTripDetail(row, calls);
}

export interface SeatMapSeat {
  seat_id: string;
  seat_number: string;
  deck: number;
  seat_class: SeatClass;
  price: number;
  available: boolean;
}

export interface SeatMap {
  trip_id: string;
  board_stop_call_id: string;
  alight_stop_call_id: string;
  currency: string;
  layout: LayoutDocument;
  seats: SeatMapSeat[];
  summary: { total: number; available: number };
}

export type SeatMapResult =
  | { outcome: 'TRIP_NOT_FOUND' }
  | { outcome: 'INVALID_SEGMENT'; reason: string }
  | { outcome: 'LAYOUT_NOT_AVAILABLE' }
  | { outcome: 'OK'; seatMap: SeatMap };

interface SeatMapTrip {
  id: string;
  bus_id: string;
  status: string;
  price_base: string;
  price_vip: string | null;
  currency: string;
}

interface SeatMapCall {
  id: string;
  sequence: number;
  fare_share_bp: number;
  public: boolean;
  /** Departs after now: boarding here can still be booked. */
  upcoming: boolean;
}

/**
 * The seat map of a trip for the segment from one stop call to a later one with a higher fare
 * share (default: the whole trip), drawn from the bus's active valid layout. A seat is available
 * when no live allocation overlaps the segment and the trip can still be booked from the boarding
 * call: a bookable status and a boarding call that departs after now, as a seat lock or a quote
 * requires.
 */
export async function tripSeatMap(
  db: Database,
  scope: InventoryScope,
  tripId: string,
  segment: { boardStopCallId?: string; alightStopCallId?: string },
): Promise<SeatMapResult> {
  const params: unknown[] = [tripId];
  const [trip] = await db.query<SeatMapTrip>(
    `select t.id, t.bus_id, t.status, t.price_base::text as price_base, t.price_vip::text as price_vip, t.currency
     from trips t join companies c on c.id = t.company_id
     where t.id = $1 and ${companyScopeSql(scope, params, 'c')}`,
    params,
  );
  if (!trip) return { outcome: 'TRIP_NOT_FOUND' };

  const calls = await db.query<SeatMapCall>(
    `select sc.id, sc.sequence, sc.fare_share_bp, ${publicStopSql('s')} as public, sc.departure_at > now() as upcoming
     from trip_stop_calls sc join stops s on s.id = sc.stop_id
     where sc.trip_id = $1 order by sc.sequence`,
    [tripId],
  );
  const chosen = chooseSegment(calls, segment);
  if ('reason' in chosen) return { outcome: 'INVALID_SEGMENT', reason: chosen.reason };
  const { board, alight } = chosen;

  const [layout] = await db.query<{ document: LayoutDocument }>(
    `select document from bus_layouts where bus_id = $1 and status = 'active' and validation_status = 'valid'`,
    [trip.bus_id],
  );
  if (!layout) return { outcome: 'LAYOUT_NOT_AVAILABLE' };

  const taken = await db.query<{ seat_id: string }>(
    `select distinct a.seat_id from seat_allocations a
     where a.trip_id = $1 and ${LIVE_ALLOCATION} and a.board_sequence < $3 and a.alight_sequence > $2`,
    [tripId, board.sequence, alight.sequence],
  );
  const takenIds = new Set(taken.map((row) => row.seat_id));
  const bookable = isBookableStatus(trip.status) && board.upcoming;
  const fares = { priceBase: Number(trip.price_base), priceVip: money(trip.price_vip) };
  const seats = layoutSeats(layout.document).map((seat) => ({
    seat_id: seat.seatId,
    seat_number: seat.seatNumber,
    deck: seat.deck,
    seat_class: seat.seatClass,
    price: legFare(seatFare(fares, seat.seatClass), board.fare_share_bp, alight.fare_share_bp),
    available: bookable && !takenIds.has(seat.seatId),
  }));
  return {
    outcome: 'OK',
    seatMap: {
      trip_id: trip.id,
      board_stop_call_id: board.id,
      alight_stop_call_id: alight.id,
      currency: trip.currency,
      layout: customerLayoutView(layout.document),
      seats,
      summary: { total: seats.length, available: seats.filter((seat) => seat.available).length },
    },
  };
}

/**
 * Board and alight calls of a segment: both must be public calls of the trip, board first, with a
 * fare between them (calls priced alike, stored before routes refused them, sell nothing).
 */
function chooseSegment(
  calls: SeatMapCall[],
  segment: { boardStopCallId?: string; alightStopCallId?: string },
): { board: SeatMapCall; alight: SeatMapCall } | { reason: string } {
  const pick = (id: string | undefined, fallback: SeatMapCall | undefined) =>
    id === undefined ? fallback : calls.find((call) => call.id === id && call.public);
  const board = pick(segment.boardStopCallId, calls[0]);
  const alight = pick(segment.alightStopCallId, calls[calls.length - 1]);
  if (!board) return { reason: 'board_stop_call_id is not a stop call of this trip' };
  if (!alight) return { reason: 'alight_stop_call_id is not a stop call of this trip' };
  if (alight.sequence <= board.sequence)
    return { reason: 'alight_stop_call_id must come after board_stop_call_id' };
  if (alight.fare_share_bp <= board.fare_share_bp)
    return { reason: 'this trip sells no fare between these stop calls' };
  return { board, alight };
}
