import { routeStopIssues, type RouteStopPlan } from '../../../domain/route-plan.js';
import {
  distanceKm,
  nameKey,
  notFound,
  PICKUP_MAX_KM_FROM_CITY,
  PlanningRefusal,
  usableStop,
  type PlanningStop,
} from '../../../domain/trip-planning.js';
import type { Database, TransactionClient } from '../../orm.js';
import { companyTransaction } from '../active-company.js';
import { auditAct, type StaffAct } from './act.js';

/** The company's network writes: cities (shared by everyone), routes with their stops, pickup points. */
/** Serializes city additions, so two companies adding "Tartous" and "tartous" at once get one city. */
const CITY_LOCK_KEY = 0x0c17;

export interface CityInput {
  nameAr: string;
  nameEn: string;
  latitude: number;
  longitude: number;
}

export interface CityRecord {
  id: string;
  name_ar: string;
  name_en: string;
  latitude: number;
  longitude: number;
}

/**
 * The city with this name, added when new. A name matches an existing city's name in either
 * language ignoring case and diacritics, or (English) as the unique index compares it,
 * lower(name_en), whose case rules may differ from JavaScript's (Greek final sigma); then that
 * city is returned and nothing is written.
 */
export async function saveCity(
  db: Database,
  act: StaffAct,
  city: CityInput,
): Promise<{ city: CityRecord; created: boolean }> {
  return companyTransaction(db, act, 'share', async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [CITY_LOCK_KEY]);
    const { rows } = await client.query<CityRecord>(
      'select id, name_ar, name_en, latitude, longitude from cities',
    );
    const wanted = new Set([nameKey(city.nameAr), nameKey(city.nameEn)]);
    const existing =
      rows.find((row) => wanted.has(nameKey(row.name_ar)) || wanted.has(nameKey(row.name_en))) ??
      (await cityWithIndexedName(client, city.nameEn));
    if (existing) return { city: existing, created: false };
    const { rows: inserted } = await client.query<CityRecord>(
      `insert into cities (name_ar, name_en, latitude, longitude) values ($1, $2, $3, $4)
       returning id, name_ar, name_en, latitude, longitude`,
      [city.nameAr, city.nameEn, city.latitude, city.longitude],
    );
    await auditAct(client, act, 'catalogue.city.create', ['city', inserted[0]!.id], { nameEn: city.nameEn });
    return { city: inserted[0]!, created: true };
  });
}

/** The city whose English name the unique index cities_name_en_key takes for this one. */
async function cityWithIndexedName(
  client: TransactionClient,
  nameEn: string,
): Promise<CityRecord | undefined> {
  const { rows } = await client.query<CityRecord>(
    'select id, name_ar, name_en, latitude, longitude from cities where lower(name_en) = lower($1)',
    [nameEn],
  );
  return rows[0];
}

export interface RouteInput {
  nameAr?: string;
  nameEn?: string;
  distanceKm?: number | null;
  stops: Omit<RouteStopPlan, 'cityId'>[];
}

async function routeStops(
  client: TransactionClient,
  companyId: string,
  stops: RouteInput['stops'],
): Promise<(PlanningStop & { name_ar: string; name_en: string })[]> {
  const { rows } = await client.query<PlanningStop & { city_name_ar: string; city_name_en: string }>(
    `select s.id, s.city_id, s.company_id, s.kind, s.enabled, c.name_ar as city_name_ar, c.name_en as city_name_en
     from stops s join cities c on c.id = s.city_id where s.id = any($1::uuid[])`,
    [stops.map((stop) => stop.stopId)],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const issues = stops.flatMap((stop, index) =>
    usableStop(byId.get(stop.stopId), companyId)
      ? []
      : [
          {
            path: `stops.${index}.stop_id`,
            code: 'ROUTE_STOP_NOT_ALLOWED',
            message: 'not an enabled public stop or one of the company',
          },
        ],
  );
  if (issues.length > 0) {
    throw new PlanningRefusal(
      400,
      'ROUTE_STOP_NOT_ALLOWED',
      "A route calls only at enabled public stops or the company's own",
      { issues },
    );
  }
  return stops.map((stop) => {
    const row = byId.get(stop.stopId)!;
    return { ...row, name_ar: row.city_name_ar, name_en: row.city_name_en };
  });
}

/** A new route of the company with its ordered stops; its cities are those of the first and last stop. */
export async function createRoute(
  db: Database,
  act: StaffAct,
  route: RouteInput,
): Promise<{ routeId: string }> {
  const issues = routeStopIssues(route.stops);
  if (issues.length > 0) {
    throw new PlanningRefusal(400, issues[0]!.code, 'The route stops are not valid', { issues });
  }
  return companyTransaction(db, act, 'share', async (client) => {
    const stops = await routeStops(client, act.companyId, route.stops);
    const origin = stops[0]!;
    const destination = stops[stops.length - 1]!;
    if (origin.city_id === destination.city_id) {
      throw new PlanningRefusal(
        400,
        'ROUTE_CITIES_MUST_DIFFER',
        'The first and the last stop must be in different cities',
      );
    }
    const { rows } = await client.query<{ id: string }>(
      `insert into routes (company_id, origin_city_id, destination_city_id, name_ar, name_en, distance_km)
       values ($1, $2, $3, $4, $5, $6) returning id`,
      [
        act.companyId,
        origin.city_id,
        destination.city_id,
        route.nameAr ?? `${origin.name_ar} – ${destination.name_ar}`,
        route.nameEn ?? `${origin.name_en} – ${destination.name_en}`,
        route.distanceKm ?? null,
      ],
    );
    const routeId = rows[0]!.id;
    await client.query(
      `insert into route_stops (route_id, sequence, stop_id, city_id, running_minutes, dwell_minutes, fare_share_bp)
       select $1, s.sequence, s.stop_id, s.city_id, s.running_minutes, s.dwell_minutes, s.fare_share_bp
       from jsonb_to_recordset($2::jsonb) as s(sequence int, stop_id uuid, city_id uuid, running_minutes int,
                                               dwell_minutes int, fare_share_bp int)`,
      [
        routeId,
        JSON.stringify(
          route.stops.map((stop, sequence) => ({
            sequence,
            stop_id: stop.stopId,
            city_id: stops[sequence]!.city_id,
            running_minutes: stop.runningMinutes,
            dwell_minutes: stop.dwellMinutes,
            fare_share_bp: stop.fareShareBp,
          })),
        ),
      ],
    );
    await auditAct(client, act, 'company.route.create', ['route', routeId], { stops: route.stops.length });
    return { routeId };
  });
}

export interface PickupInput {
  cityId: string;
  kind: 'BUS_STATION' | 'PARKING_POINT' | 'AIRPORT' | 'BOARDING_POINT';
  nameAr: string;
  nameEn: string;
  addressAr: string;
  addressEn: string;
  directionsAr: string;
  directionsEn: string;
  latitude: number;
  longitude: number;
}

/**
 * A new pickup point of the company: a stop of its own in the city (within
 * PICKUP_MAX_KM_FROM_CITY of its centre) and the company's pickup location row for it.
 */
export async function createPickupLocation(
  db: Database,
  act: StaffAct,
  point: PickupInput,
): Promise<{ stopId: string }> {
  return companyTransaction(db, act, 'share', async (client) => {
    const { rows: cities } = await client.query<{ latitude: number; longitude: number }>(
      'select latitude, longitude from cities where id = $1',
      [point.cityId],
    );
    if (!cities[0]) throw notFound('CITY');
    const away = distanceKm(cities[0], point);
    if (away > PICKUP_MAX_KM_FROM_CITY) {
      throw new PlanningRefusal(
        400,
        'PICKUP_TOO_FAR_FROM_CITY',
        `A pickup point lies within ${PICKUP_MAX_KM_FROM_CITY} km of its city`,
        {
          distanceKm: Math.round(away),
        },
      );
    }
    const { rows } = await client.query<{ id: string }>(
      `insert into stops (city_id, company_id, kind, name_ar, name_en, address_ar, address_en, directions_ar, directions_en,
                          latitude, longitude)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning id`,
      [
        point.cityId,
        act.companyId,
        point.kind,
        point.nameAr,
        point.nameEn,
        point.addressAr,
        point.addressEn,
        point.directionsAr,
        point.directionsEn,
        point.latitude,
        point.longitude,
      ],
    );
    const stopId = rows[0]!.id;
    await client.query(
      'insert into pickup_locations (company_id, city_id, stop_id, is_public) values ($1, $2, $3, true)',
      [act.companyId, point.cityId, stopId],
    );
    await auditAct(client, act, 'company.pickup_location.create', ['stop', stopId], { cityId: point.cityId });
    return { stopId };
  });
}
