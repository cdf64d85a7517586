import { PUBLIC_SCOPE, type InventoryScope } from '../../domain/inventory-scope.js';
import type { Database } from '../orm.js';
import { BOOKABLE_TRIP_SQL, takenSeatsSql } from './inventory.js';
import { namedRefOf, type NamedRefColumns } from './named-ref.js';
import { companyScopeSql } from './scope.js';

/**
 * Catalogue reads of the customer API: the public location directory, cities, and route
 * statistics. Statistics always filter companies by scope BEFORE aggregating, so no count, price
 * or ranking can reveal a trip the caller may not see.
 */

/** A stop a traveller may see: enabled and of a public kind (never a DEPOT). Alias `s` by default. */
export function publicStopSql(alias = 's'): string {
  return `(${alias}.enabled and ${alias}.kind in ('BUS_STATION', 'PARKING_POINT', 'AIRPORT', 'BOARDING_POINT'))`;
}

/** A city or company as nested in other records: id and both names. */
export interface NamedRef {
  id: string;
  name_ar: string;
  name_en: string;
}
export type CityRef = NamedRef;
export type CompanyRef = NamedRef;

export interface City extends CityRef {
  latitude: number;
  longitude: number;
}

export interface DirectoryCity extends City {
  key: string;
}

export interface DirectoryLocation {
  key: string;
  id: string;
  city_id: string;
  city_key: string;
  kind: string;
  name_ar: string;
  name_en: string;
  address_ar: string;
  address_en: string;
  latitude: number;
  longitude: number;
}

export interface LocationDirectory {
  cities: DirectoryCity[];
  locations: DirectoryLocation[];
}

export const cityKey = (id: string) => `CITY:${id}`;
export const stopKey = (id: string) => `STOP:${id}`;

/** A listed stop with its city: the location's own columns, then the city's under city_. */
type DirectoryRow = Omit<DirectoryLocation, 'key' | 'city_key'> & {
  city_name_ar: string;
  city_name_en: string;
  city_latitude: number;
  city_longitude: number;
};

/**
 * The public location directory: enabled stops of public kinds, where a company-owned stop is
 * listed only while its company is a real production company; and the cities that have at least
 * one such stop. The answer is the same for every caller.
 */
export async function listJourneyLocations(db: Database): Promise<LocationDirectory> {
  const params: unknown[] = [];
  const rows = await db.query<DirectoryRow>(
    `select s.id, s.city_id, s.kind, s.name_ar, s.name_en, s.address_ar, s.address_en, s.latitude, s.longitude,
            ci.name_ar as city_name_ar, ci.name_en as city_name_en, ci.latitude as city_latitude, ci.longitude as city_longitude
     from stops s
     join cities ci on ci.id = s.city_id
     left join companies c on c.id = s.company_id
     where ${publicStopSql('s')}
       and (s.company_id is null or ${companyScopeSql(PUBLIC_SCOPE, params, 'c')})
     order by ci.name_en, ci.id, s.name_en, s.id`,
    params,
  );
  const cities = new Map<string, DirectoryCity>();
  const locations = rows.map((row) => {
    if (!cities.has(row.city_id)) {
      cities.set(row.city_id, {
        key: cityKey(row.city_id),
        id: row.city_id,
        name_ar: row.city_name_ar,
        name_en: row.city_name_en,
        latitude: row.city_latitude,
        longitude: row.city_longitude,
      });
    }
    return {
      key: stopKey(row.id),
      id: row.id,
      city_id: row.city_id,
      city_key: cityKey(row.city_id),
      kind: row.kind,
      name_ar: row.name_ar,
      name_en: row.name_en,
      address_ar: row.address_ar,
      address_en: row.address_en,
      latitude: row.latitude,
      longitude: row.longitude,
    };
  });
  return { cities: [...cities.values()], locations };
}

export async function listCities(db: Database): Promise<City[]> {
  return db.query<City>(`select id, name_ar, name_en, latitude, longitude from cities order by name_en, id`);
}

export interface PopularRoute {
  origin_city: CityRef;
  destination_city: CityRef;
  departures: number;
  companies: number;
  min_price: number;
  currency: string;
}

export interface LandingRoute {
  origin_city: CityRef;
  destination_city: CityRef;
  min_price: number;
  currency: string;
  departures_per_day: number;
  companies: CompanyRef[];
}

/**
 * Upcoming bookable departures of the companies in scope, with their route's city pair: a bookable
 * trip leaving within the horizon with a seat still free from its first call to its last (the
 * stretch of the route's city pair), counted by the free-seat rule search and GET /trips use
 * (takenSeatsSql: confirmed seats and live holds; an expired hold is free). A sold-out departure
 * neither lists its pair nor sets its lowest fare.
 */
function scopedDeparturesCte(scope: InventoryScope, params: unknown[], horizonDays: number): string {
  return `scoped_departures as (
    select t.id, t.company_id, t.price_base, t.currency, t.departure_at, r.origin_city_id, r.destination_city_id
    from trips t
    join companies c on c.id = t.company_id
    join routes r on r.id = t.route_id
    cross join lateral (select min(e.sequence) as first_sequence, max(e.sequence) as last_sequence
                        from trip_stop_calls e where e.trip_id = t.id) ends
    where ${companyScopeSql(scope, params, 'c')}
      and ${BOOKABLE_TRIP_SQL}
      and t.departure_at > now()
      and t.departure_at <= now() + interval '${horizonDays} days'
      and t.seats_total > ${takenSeatsSql('t.id', 'ends.first_sequence', 'ends.last_sequence')}
  )`;
}

const POPULAR_HORIZON_DAYS = 30;
const POPULAR_LIMIT = 10;

/** A city pair of the statistics with its lowest fare (bigint, as text). */
type RouteStatsRow = NamedRefColumns<'origin' | 'destination'> & { currency: string; min_price: string };

/**
 * Statistics per city pair of the upcoming bookable departures in scope: the pair, its lowest
 * fare, and the aggregates `select` adds, ranked by `order`.
 */
async function cityPairStats<Aggregates>(
  db: Database,
  scope: InventoryScope,
  select: { aggregates: string; order: string; limit: number },
): Promise<(RouteStatsRow & Aggregates)[]> {
  const params: unknown[] = [];
  return db.query<RouteStatsRow & Aggregates>(
    `with ${scopedDeparturesCte(scope, params, POPULAR_HORIZON_DAYS)}
     select d.origin_city_id as origin_id, oc.name_ar as origin_name_ar, oc.name_en as origin_name_en,
            d.destination_city_id as destination_id, dc.name_ar as destination_name_ar, dc.name_en as destination_name_en,
            d.currency, min(d.price_base)::text as min_price, ${select.aggregates}
     from scoped_departures d join cities oc on oc.id = d.origin_city_id join cities dc on dc.id = d.destination_city_id
     group by d.origin_city_id, oc.name_ar, oc.name_en, d.destination_city_id, dc.name_ar, dc.name_en, d.currency
     order by ${select.order}
     limit ${select.limit}`,
    params,
  );
}

const citiesOf = (row: RouteStatsRow) => ({
  origin_city: namedRefOf(row, 'origin'),
  destination_city: namedRefOf(row, 'destination'),
});

const lowestFareOf = (row: RouteStatsRow) => ({ min_price: Number(row.min_price), currency: row.currency });

/** City pairs ranked by bookable departures in the next 30 days, within the caller's scope. */
export async function popularRoutes(db: Database, scope: InventoryScope): Promise<PopularRoute[]> {
  const rows = await cityPairStats<{ departures: number; companies: number }>(db, scope, {
    aggregates: 'count(*)::int as departures, count(distinct d.company_id)::int as companies',
    order: 'departures desc, companies desc, min(d.price_base), oc.name_en, dc.name_en',
    limit: POPULAR_LIMIT,
  });
  return rows.map((row) => ({
    ...citiesOf(row),
    departures: row.departures,
    companies: row.companies,
    ...lowestFareOf(row),
  }));
}

const LANDING_LIMIT = 12;

/**
 * Marketing data for the landing page: always production companies only, whoever asks. A city
 * pair is listed while it has bookable departures in the next 30 days; departures_per_day is the
 * average over the next 7 days.
 */
export async function landingRoutes(db: Database): Promise<LandingRoute[]> {
  const rows = await cityPairStats<{ departures_per_day: number; companies: CompanyRef[] }>(
    db,
    PUBLIC_SCOPE,
    {
      aggregates: `round(count(*) filter (where d.departure_at <= now() + interval '7 days') / 7.0, 2)::float8 as departures_per_day,
            (select json_agg(json_build_object('id', co.id, 'name_ar', co.name_ar, 'name_en', co.name_en) order by co.name_en, co.id)
             from companies co where co.id = any(array_agg(distinct d.company_id))) as companies`,
      order: 'count(*) desc, min(d.price_base), oc.name_en, dc.name_en',
      limit: LANDING_LIMIT,
    },
  );
  return rows.map((row) => ({
    ...citiesOf(row),
    ...lowestFareOf(row),
    departures_per_day: row.departures_per_day,
    companies: row.companies,
  }));
}
