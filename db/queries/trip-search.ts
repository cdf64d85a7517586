import type { InventoryScope } from '../../domain/inventory-scope.js';
import { legFare } from '../../domain/pricing.js';
import { damascusDayEnd, damascusDayStart } from '../../domain/time.js';
import type { Database } from '../orm.js';
import { publicStopSql } from './catalogue.js';
import { BOOKABLE_TRIP_SQL, takenSeatsSql } from './inventory.js';
import { namedRefOf } from './named-ref.js';
import { PICKUP_COLUMNS, pickupStopIdSql, toPickupLocation, type PickupRow } from './pickup-location.js';
import { companyScopeSql } from './scope.js';
import {
  stopIdentityColumns,
  toStopIdentity,
  type StopIdentity,
  type StopIdentityRow,
} from './stop-identity.js';
import { busOf, money, tripColumns, type TripColumnsRow, type TripFields } from './trips.js';

/** The legacy trip search of the customer API (GET /trips). */

export interface TripSearch {
  scope: InventoryScope;
  originCityId: string;
  destinationCityId: string;
  /** Damascus calendar date of the boarding call's (the trip's first call's) departure. */
  date: string;
  passengers: number;
}

export interface TripSearchResult extends TripFields {
  trip_id: string;
  /** The stretch POST /seat-locks and POST /bookings sell: the trip's first call to its last. */
  board_stop_call_id: string;
  alight_stop_call_id: string;
  /**
   * Where the traveller gets on and off: the trip's first call (in the origin city) and its first
   * call in the destination city.
   */
  board: StopIdentity;
  alight: StopIdentity;
}

type TripSearchRow = TripColumnsRow &
  StopIdentityRow<'board'> &
  StopIdentityRow<'alight'> &
  PickupRow & {
    available_seats: number;
    first_call_id: string;
    first_fare_share_bp: number;
    last_call_id: string;
    last_fare_share_bp: number;
  };

function toTripSearchResult(row: TripSearchRow): TripSearchResult {
  const board = toStopIdentity(row, 'board');
  const alight = toStopIdentity(row, 'alight');
  // Priced as lineOf (db/writes/bookings/line.ts) charges a seat lock: first call to last.
  const fare = (full: number) => legFare(full, row.first_fare_share_bp, row.last_fare_share_bp);
  const priceVip = money(row.price_vip);
  return {
    id: row.id,
    trip_id: row.id,
    company_id: row.company_id,
    company: namedRefOf(row, 'company'),
    route_id: row.route_id,
    status: row.status,
    departure_time: board.departure_at,
    arrival_time: alight.arrival_at,
    price: fare(Number(row.price_base)),
    price_vip: priceVip === null ? null : fare(priceVip),
    currency: row.currency,
    available_seats: row.available_seats,
    total_seats: row.seats_total,
    board_stop_call_id: row.first_call_id,
    alight_stop_call_id: row.last_call_id,
    board,
    alight,
    bus: busOf(row),
    pickupLocation: toPickupLocation(row),
  };
}

/** The trip's last call, and whether a traveller may see its stop. */
const LAST_CALL_SQL = `select e.id, e.sequence, e.fare_share_bp, ${publicStopSql('es')} as public
   from trip_stop_calls e join stops es on es.id = e.stop_id
   where e.trip_id = t.id order by e.sequence desc limit 1`;

/**
 * Legacy trip search: direct trips of companies in scope that start in the origin city on the
 * given Damascus date (boarding at their first call, public and still in the future) and call
 * later in the destination city (alighting at the first public call there with a higher fare
 * share: a segment priced at nothing is not sold). POST /bookings sells a seat lock's whole trip
 * and boards the traveller at its first call (pickup, ticket, cut-offs), so a trip is listed only
 * when that is where the traveller boards: one passing through the origin city is left out
 * (journey search sells the stretch from there). A result is priced, counted (at least
 * `passengers` seats free) and handed out as board/alight stop call ids over the whole trip, which
 * the seat map then prices alike; a trip whose last call a traveller may not see (the seat map
 * refuses that id) is left out.
 * The pickup location is where a traveller boarding at the first call is picked up
 * (pickupStopIdSql), as GET /trips/{id} and the booking answer it.
 */
export async function searchTrips(db: Database, search: TripSearch): Promise<TripSearchResult[]> {
  const dayStart = damascusDayStart(search.date);
  const params: unknown[] = [
    search.originCityId,
    search.destinationCityId,
    dayStart,
    damascusDayEnd(search.date),
    search.passengers,
  ];
  const rows = await db.query<TripSearchRow>(
    `with boarding as (
       select sc.trip_id, sc.id, sc.sequence, sc.fare_share_bp
       from trip_stop_calls sc
       join stops s on s.id = sc.stop_id
       where sc.city_id = $1 and sc.departure_at >= $3 and sc.departure_at < $4 and sc.departure_at > now()
         and ${publicStopSql('s')}
         and not exists (select 1 from trip_stop_calls e where e.trip_id = sc.trip_id and e.sequence < sc.sequence)
     )
     select * from (
       select ${tripColumns},
              t.seats_total - ${takenSeatsSql('t.id', 'b.sequence', 'lc.sequence')} as available_seats,
              b.id as first_call_id, b.fare_share_bp as first_fare_share_bp,
              lc.id as last_call_id, lc.fare_share_bp as last_fare_share_bp,
              ${stopIdentityColumns('board', 'bsc', 'bs', 'bci')},
              ${stopIdentityColumns('alight', 'alc', 'als', 'alci')},
              ${PICKUP_COLUMNS}
       from boarding b
       join trips t on t.id = b.trip_id
       join companies c on c.id = t.company_id
       join lateral (
         select sc.id from trip_stop_calls sc join stops s on s.id = sc.stop_id
         where sc.trip_id = b.trip_id and sc.city_id = $2 and sc.sequence > b.sequence
           and sc.fare_share_bp > b.fare_share_bp and ${publicStopSql('s')}
         order by sc.sequence limit 1
       ) alighting on true
       join lateral (${LAST_CALL_SQL}) lc on true
       join trip_stop_calls bsc on bsc.id = b.id
       join stops bs on bs.id = bsc.stop_id
       join cities bci on bci.id = bsc.city_id
       join trip_stop_calls alc on alc.id = alighting.id
       join stops als on als.id = alc.stop_id
       join cities alci on alci.id = alc.city_id
       join stops p on p.id = ${pickupStopIdSql('t', 'bsc')}
       join buses bu on bu.id = t.bus_id
       where ${companyScopeSql(search.scope, params, 'c')} and ${BOOKABLE_TRIP_SQL}
         and lc.public and lc.fare_share_bp > b.fare_share_bp
     ) found
     where found.available_seats >= $5
     order by found.board_departure_at, found.id`,
    params,
  );
  return rows.map(toTripSearchResult);
}
