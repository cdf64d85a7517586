import type { Database } from '../orm.js';
import { companyListing, companyRecordById } from './company-records.js';
import { publicStopSql, type NamedRef } from './catalogue.js';
import { PICKUP_COLUMNS, toPickupLocation, type PickupLocation, type PickupRow } from './pickup-location.js';

/** Reads of the network a company plans on: cities, its routes with their stops, pickup points. */
export interface CityRecord extends NamedRef {
  latitude: number;
  longitude: number;
}

export async function listCities(db: Database): Promise<CityRecord[]> {
  return db.query<CityRecord>(
    'select id, name_ar, name_en, latitude, longitude from cities order by name_en, id',
  );
}

export interface RouteStopRecord {
  sequence: number;
  stop_id: string;
  city_id: string;
  name_ar: string;
  name_en: string;
  running_minutes: number;
  dwell_minutes: number;
  fare_share_bp: number;
}

export interface RouteRecord {
  id: string;
  name_ar: string;
  name_en: string;
  origin_city: NamedRef;
  destination_city: NamedRef;
  distance_km: number | null;
  active: boolean;
  /** Minutes from the first stop's departure to the last stop's arrival (running and dwell times). */
  duration_minutes: number;
  stops: RouteStopRecord[];
  created_at: string;
}

type RouteRow = Omit<RouteRecord, 'origin_city' | 'destination_city' | 'stops' | 'duration_minutes'> & {
  origin_id: string;
  origin_name_ar: string;
  origin_name_en: string;
  destination_id: string;
  destination_name_ar: string;
  destination_name_en: string;
  stops: RouteStopRecord[] | null;
  total: number;
};

function toRoute(row: RouteRow): RouteRecord {
  const stops = row.stops ?? [];
  return {
    id: row.id,
    name_ar: row.name_ar,
    name_en: row.name_en,
    origin_city: { id: row.origin_id, name_ar: row.origin_name_ar, name_en: row.origin_name_en },
    destination_city: {
      id: row.destination_id,
      name_ar: row.destination_name_ar,
      name_en: row.destination_name_en,
    },
    distance_km: row.distance_km,
    active: row.active,
    duration_minutes: stops.reduce((total, stop) => total + stop.running_minutes + stop.dwell_minutes, 0),
    stops,
    created_at: new Date(row.created_at).toISOString(),
  };
}

const ROUTE_SELECT = `
  select r.id, r.name_ar, r.name_en, r.distance_km, r.active, r.created_at,
         o.id as origin_id, o.name_ar as origin_name_ar, o.name_en as origin_name_en,
         d.id as destination_id, d.name_ar as destination_name_ar, d.name_en as destination_name_en,
         (select json_agg(json_build_object('sequence', rs.sequence, 'stop_id', rs.stop_id, 'city_id', rs.city_id,
                   'name_ar', s.name_ar, 'name_en', s.name_en, 'running_minutes', rs.running_minutes,
                   'dwell_minutes', rs.dwell_minutes, 'fare_share_bp', rs.fare_share_bp) order by rs.sequence)
          from route_stops rs join stops s on s.id = rs.stop_id where rs.route_id = r.id) as stops,
         count(*) over ()::int as total
  from routes r
  join cities o on o.id = r.origin_city_id
  join cities d on d.id = r.destination_city_id`;

export const listRoutes = companyListing('routes', {
  select: `${ROUTE_SELECT} where r.company_id = $1`,
  orderBy: 'r.name_en, r.id',
  map: toRoute,
});

/** One route of the company by id, with its stops. */
export const findRoute = companyRecordById(ROUTE_SELECT, 'r', toRoute);

export interface PickupPointRecord extends PickupLocation {
  city_id: string;
  kind: string;
  /** PUBLIC: a shared station every company may use; COMPANY: one of the company's own points. */
  scope: 'PUBLIC' | 'COMPANY';
}

/**
 * SPEC GET /pickup-locations?city_id=: the public and the company's own enabled points of a city;
 * the company's default pickup point (PATCH /settings) first, as trip planning offers it, then the
 * public stations and the company's own points by English name.
 */
export async function listPickupPoints(
  db: Database,
  companyId: string,
  cityId: string,
): Promise<PickupPointRecord[]> {
  const rows = await db.query<PickupRow & { city_id: string; kind: string; company_id: string | null }>(
    `select ${PICKUP_COLUMNS}, p.city_id, p.kind, p.company_id
     from stops p
     where p.city_id = $1 and ${publicStopSql('p')} and (p.company_id is null or p.company_id = $2)
     order by p.id = (select pl.stop_id from company_settings cs
                      join pickup_locations pl on pl.id = cs.default_pickup_location_id and pl.enabled
                      where cs.company_id = $2) is true desc,
              p.company_id nulls first, p.name_en, p.id`,
    [cityId, companyId],
  );
  return rows.map((row) => ({
    ...toPickupLocation(row),
    city_id: row.city_id,
    kind: row.kind,
    scope: row.company_id === null ? 'PUBLIC' : 'COMPANY',
  }));
}

export async function findPickupPoint(
  db: Database,
  companyId: string,
  stopId: string,
): Promise<PickupPointRecord | undefined> {
  const rows = await db.query<PickupRow & { city_id: string; kind: string; company_id: string | null }>(
    `select ${PICKUP_COLUMNS}, p.city_id, p.kind, p.company_id from stops p where p.id = $1 and p.company_id = $2`,
    [stopId, companyId],
  );
  return rows.map((row) => ({
    ...toPickupLocation(row),
    city_id: row.city_id,
    kind: row.kind,
    scope: 'COMPANY' as const,
  }))[0];
}
