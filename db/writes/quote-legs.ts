/**
 * The legs of a quote (db/writes/quote.ts), inside its transaction: the requested legs as the
 * database knows them, each leg's checks and the legs' chaining, and a leg's free seats. Reads
 * only; the quote's transaction stores the offer.
 */
import type { PoolClient } from 'pg';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import { connectionChange } from '../../domain/journey-search.js';
import type { SeatClass } from '../../domain/seat-layout.js';
import { isBookableStatus, LIVE_ALLOCATION, takenSeatsSql } from '../queries/inventory.js';
import { companyScopeSql } from '../queries/scope.js';
import {
  hasStopIdentity,
  stopIdentityColumns,
  toStopIdentity,
  type OptionalStopIdentityRow,
  type StopIdentity,
} from '../queries/stop-identity.js';
import type { QuoteLegRequest, QuoteOutcome, QuoteRefusal, QuoteSettings } from './quote.js';

/** A refused quote's outcome. */
export const refused = (
  status: QuoteRefusal['status'],
  errorCode: string,
  message: string,
  details?: Record<string, unknown>,
): QuoteOutcome => ({
  refusal: { status, errorCode, message, ...(details ? { details } : {}) },
});

/** A requested leg once its checks pass: its trip is in the caller's scope and both calls are on it. */
export interface ResolvedLeg {
  sequence: number;
  tripId: string;
  companyId: string;
  priceBase: number;
  priceVip: number | null;
  boardBp: number;
  alightBp: number;
  /** The trip's announced delay (trips.delay_minutes): the leg reaches its alighting call this late. */
  delayMinutes: number;
  board: StopIdentity;
  alight: StopIdentity;
}

/** The trip of a leg, or nulls when it is unknown or outside the caller's scope (bigint prices as text). */
type LegTripColumns =
  | {
      trip_id: string;
      company_id: string;
      status: string;
      price_base: string;
      price_vip: string | null;
      delay_minutes: number;
    }
  | { trip_id: null; company_id: null; status: null; price_base: null; price_vip: null; delay_minutes: null };

/** A stop call of a leg, or nulls when the id names no stop call. */
type LegCallColumns<P extends 'board' | 'alight'> =
  | (Record<`${P}_trip_id`, string> & Record<`${P}_bp`, number> & Record<`${P}_public`, boolean>)
  | Record<`${P}_trip_id` | `${P}_bp` | `${P}_public`, null>;

/** A requested leg as the database knows it. */
type QuoteLegRow = LegTripColumns &
  LegCallColumns<'board'> &
  LegCallColumns<'alight'> &
  OptionalStopIdentityRow<'board'> &
  OptionalStopIdentityRow<'alight'> & {
    sequence: number;
    board_is_stop: boolean;
    alight_is_stop: boolean;
  };

/** One statement for all legs: the trip in the caller's scope, both stop calls, and whether an id is a stop. */
export async function loadQuoteLegs(
  client: PoolClient,
  scope: InventoryScope,
  legs: QuoteLegRequest[],
): Promise<QuoteLegRow[]> {
  const params: unknown[] = [
    legs.map((leg) => leg.trip_id),
    legs.map((leg) => leg.board_stop_call_id),
    legs.map((leg) => leg.alight_stop_call_id),
  ];
  const inScope = companyScopeSql(scope, params, 'c');
  const { rows } = await client.query<QuoteLegRow>(
    `select l.sequence::int as sequence,
            exists (select 1 from stops s where s.id = l.board_id) as board_is_stop,
            exists (select 1 from stops s where s.id = l.alight_id) as alight_is_stop,
            t.id as trip_id, t.company_id, t.status, t.price_base, t.price_vip, t.delay_minutes,
            bc.trip_id as board_trip_id, bc.fare_share_bp as board_bp, (bs.enabled and bs.kind <> 'DEPOT') as board_public,
            ac.trip_id as alight_trip_id, ac.fare_share_bp as alight_bp, (als.enabled and als.kind <> 'DEPOT') as alight_public,
            ${stopIdentityColumns('board', 'bc', 'bs', 'bci')}, ${stopIdentityColumns('alight', 'ac', 'als', 'aci')}
     from unnest($1::uuid[], $2::uuid[], $3::uuid[]) with ordinality as l(trip_id, board_id, alight_id, sequence)
     left join lateral (select t.* from trips t join companies c on c.id = t.company_id and ${inScope} where t.id = l.trip_id) t on true
     left join trip_stop_calls bc on bc.id = l.board_id
     left join stops bs on bs.id = bc.stop_id
     left join cities bci on bci.id = bs.city_id
     left join trip_stop_calls ac on ac.id = l.alight_id
     left join stops als on als.id = ac.stop_id
     left join cities aci on aci.id = als.city_id
     order by l.sequence`,
    params,
  );
  return rows;
}

/**
 * The legs once each passed its checks, or the first reason one cannot be quoted: leg by leg
 * (stop ids, trip, calls on the trip, direction, public stops, a fare between them, bookable
 * trip), then their chaining, then a journey that ends in the city it starts from.
 */
export function resolveLegs(
  rows: QuoteLegRow[],
  settings: QuoteSettings,
): { legs: ResolvedLeg[] } | QuoteOutcome {
  const legs: ResolvedLeg[] = [];
  for (const row of rows) {
    const details = { leg_sequence: row.sequence };
    if ((!row.board_trip_id && row.board_is_stop) || (!row.alight_trip_id && row.alight_is_stop)) {
      return refused(
        400,
        'STOP_ID_NOT_ACCEPTED',
        'Send the stop_call_id from search results, not a stop_id',
        details,
      );
    }
    if (!row.trip_id) return refused(404, 'TRIP_NOT_FOUND', 'No such trip', details);
    if (
      row.board_trip_id === null ||
      row.alight_trip_id === null ||
      row.board_trip_id !== row.trip_id ||
      row.alight_trip_id !== row.trip_id ||
      !hasStopIdentity(row, 'board') ||
      !hasStopIdentity(row, 'alight')
    ) {
      return refused(400, 'STOP_CALL_NOT_ON_TRIP', 'A stop call does not belong to this trip', details);
    }
    const board = toStopIdentity(row, 'board');
    const alight = toStopIdentity(row, 'alight');
    if (board.sequence >= alight.sequence) {
      return refused(
        400,
        'INVALID_LEG_DIRECTION',
        'The boarding stop must come before the alighting stop',
        details,
      );
    }
    if (!row.board_public || !row.alight_public) {
      return refused(
        400,
        'STOP_CALL_NOT_BOOKABLE',
        'Travellers cannot board or alight at this stop',
        details,
      );
    }
    // Calls priced alike (stored before routes refused equal fare shares) sell nothing between them.
    if (row.alight_bp <= row.board_bp) {
      return refused(
        400,
        'STOP_CALL_NOT_BOOKABLE',
        'This trip sells no fare between these stop calls',
        details,
      );
    }
    if (!isBookableStatus(row.status) || new Date(board.departure_at).getTime() <= settings.now.getTime()) {
      return refused(409, 'TRIP_NOT_BOOKABLE', 'This trip can no longer be booked', details);
    }
    legs.push({
      sequence: row.sequence,
      tripId: row.trip_id,
      companyId: row.company_id,
      priceBase: Number(row.price_base),
      priceVip: row.price_vip === null ? null : Number(row.price_vip),
      boardBp: row.board_bp,
      alightBp: row.alight_bp,
      delayMinutes: row.delay_minutes,
      board,
      alight,
    });
  }
  if (!connected(legs, settings)) return notConnected();
  // Journey search never offers a route from a city to itself (nor does GET /trips), so none is sold.
  if (legs[0]!.board.city_id === legs.at(-1)!.alight.city_id) return sameCity();
  return { legs };
}

const notConnected = () =>
  refused(
    400,
    'LEGS_NOT_CONNECTED',
    'The second leg must board where the first alights (same stop or city) after the change time',
  );

const sameCity = () =>
  refused(400, 'SAME_ORIGIN_AND_DESTINATION', 'The journey ends in the city where it starts');

/**
 * Two legs chain when the second boards where the first alights after the change time, measured
 * from the first leg's expected arrival (its planned arrival plus its announced delay): domain
 * connectionChange, as search measures it and the hold and the confirm measure it again.
 */
function connected([first, second]: ResolvedLeg[], settings: QuoteSettings): boolean {
  if (!first || !second) return true;
  return !!connectionChange(
    {
      tripId: first.tripId,
      stopId: first.alight.stop_id,
      cityId: first.alight.city_id,
      plannedArrivalMs: Date.parse(first.alight.arrival_at),
      delayMinutes: first.delayMinutes,
    },
    {
      tripId: second.tripId,
      stopId: second.board.stop_id,
      cityId: second.board.city_id,
      departureAt: new Date(second.board.departure_at),
    },
    settings.transfer,
  );
}

interface AvailabilityRow {
  free_seats: number;
  vip_seats: number;
  free_vip_seats: number;
  /** json: the assigned labels found in the active layout. */
  seats: { label: string; seat_class: SeatClass; taken: boolean }[];
}

/** Free seats on the leg's interval, VIP-class counts, and the assigned labels in the active layout. */
export async function loadLegAvailability(client: PoolClient, leg: ResolvedLeg, labels: string[]) {
  const taken = (
    seatId: string,
  ) => `exists (select 1 from seat_allocations a where a.trip_id = t.id and a.seat_id = ${seatId}
      and ${LIVE_ALLOCATION} and a.board_sequence < $3 and a.alight_sequence > $2)`;
  const {
    rows: [row],
  } = await client.query<AvailabilityRow>(
    `select t.seats_total - ${takenSeatsSql('t.id', '$2', '$3')} as free_seats,
            (select count(*)::int from layout_seats ls where ls.layout_id = l.id and ls.seat_class = 'VIP') as vip_seats,
            (select count(*)::int from layout_seats ls where ls.layout_id = l.id and ls.seat_class = 'VIP'
               and not ${taken('ls.seat_id')}) as free_vip_seats,
            coalesce((select json_agg(json_build_object('label', ls.seat_number, 'seat_class', ls.seat_class, 'taken', ${taken('ls.seat_id')}))
                      from layout_seats ls where ls.layout_id = l.id and ls.seat_number = any ($4::text[])), '[]') as seats
     from trips t
     left join bus_layouts l on l.bus_id = t.bus_id and l.status = 'active'
     where t.id = $1`,
    [leg.tripId, leg.board.sequence, leg.alight.sequence, labels],
  );
  return {
    freeSeats: row!.free_seats,
    vipSeats: row!.vip_seats,
    freeVipSeats: row!.free_vip_seats,
    seats: new Map(row!.seats.map((seat) => [seat.label, { seatClass: seat.seat_class, taken: seat.taken }])),
  };
}
