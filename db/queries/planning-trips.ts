import { TripStatus } from '../entities/trip.js';
import type { Database } from '../orm.js';
import { companyRecordById } from './company-records.js';
import type { NamedRef } from './catalogue.js';
import { LIVE_ALLOCATION } from './inventory.js';
import { PICKUP_COLUMNS, toPickupLocation, type PickupLocation, type PickupRow } from './pickup-location.js';
import type { TripActualTimesRow } from './trip-times.js';
import { DRIVER_ACTIVE } from './trip-dispatch.js';
import { clauses, type Statement } from './statements.js';
import { iso, isoOrNull } from '../row-fields.js';

/**
 * GET /dashboard/api/trips: the company's trips, a page at a time, with a count of every trip
 * status over the whole selection (not only the page). With `date` (a Damascus operating date)
 * that day in departure order; without it the whole history, latest departure first.
 */
export interface TripFilter {
  date?: string;
  status?: TripStatus;
  routeId?: string;
  busId?: string;
}

/** A trip as the planning board shows it: the row's own names, instants as ISO strings. */
export interface PlanningTrip extends TripActualTimesRow {
  route: { id: string; name_ar: string; name_en: string; origin_city: NamedRef; destination_city: NamedRef };
  bus: { id: string; plate_number: string; model: string };
  /** `active`: false while the driver's membership or account is not active (DRIVER_INACTIVE). */
  driver: { id: string; name: string; email: string; active: boolean } | null;
  pickupLocation: PickupLocation;
  seats_total: number;
  seats_taken: number;
  price_base: number;
  price_vip: number | null;
  currency: string;
  schedule_id: string | null;
}

type TripRow = PickupRow &
  TripActualTimesRow & {
    route_id: string;
    route_name_ar: string;
    route_name_en: string;
    origin: NamedRef;
    destination: NamedRef;
    bus_id: string;
    plate_number: string;
    model: string;
    driver_id: string | null;
    driver_name: string | null;
    driver_email: string | null;
    driver_active: boolean;
    seats_total: number;
    seats_taken: number;
    price_base: string;
    price_vip: string | null;
    currency: string;
    schedule_id: string | null;
  };

function toTrip(row: TripRow): PlanningTrip {
  return {
    id: row.id,
    status: row.status,
    operating_date: row.operating_date,
    departure_at: iso(row.departure_at),
    arrival_at: iso(row.arrival_at),
    delay_minutes: row.delay_minutes,
    actual_departure_at: isoOrNull(row.actual_departure_at),
    actual_arrival_at: isoOrNull(row.actual_arrival_at),
    route: {
      id: row.route_id,
      name_ar: row.route_name_ar,
      name_en: row.route_name_en,
      origin_city: row.origin,
      destination_city: row.destination,
    },
    bus: { id: row.bus_id, plate_number: row.plate_number, model: row.model },
    driver:
      row.driver_id === null
        ? null
        : {
            id: row.driver_id,
            name: row.driver_name ?? '',
            email: row.driver_email ?? '',
            active: row.driver_active,
          },
    pickupLocation: toPickupLocation(row),
    seats_total: row.seats_total,
    seats_taken: row.seats_taken,
    price_base: Number(row.price_base),
    price_vip: row.price_vip === null ? null : Number(row.price_vip),
    currency: row.currency,
    schedule_id: row.schedule_id,
  };
}

/** The board's columns of trips `t`; its subqueries cost a lookup each, so a list computes them for its page only. */
const TRIP_COLUMNS = `t.id, t.status, to_char(t.operating_date, 'YYYY-MM-DD') as operating_date, t.departure_at, t.arrival_at,
            t.delay_minutes, t.actual_departure_at, t.actual_arrival_at, t.route_id, r.name_ar as route_name_ar,
            r.name_en as route_name_en, json_build_object('id', o.id, 'name_ar', o.name_ar, 'name_en', o.name_en) as origin,
            json_build_object('id', d.id, 'name_ar', d.name_ar, 'name_en', d.name_en) as destination,
            t.bus_id, b.plate_number, b.model, t.driver_id, u.name as driver_name, u.email as driver_email,
            ${DRIVER_ACTIVE} as driver_active,
            t.seats_total, (select count(distinct a.seat_id)::int from seat_allocations a
                            where a.trip_id = t.id and ${LIVE_ALLOCATION}) as seats_taken,
            t.price_base, t.price_vip, t.currency, t.schedule_id, ${PICKUP_COLUMNS}`;

const TRIP_JOINS = `join routes r on r.id = t.route_id
     join cities o on o.id = r.origin_city_id
     join cities d on d.id = r.destination_city_id
     join buses b on b.id = t.bus_id
     join stops p on p.id = t.pickup_stop_id
     left join staff_users u on u.id = t.driver_id`;

const TRIP_SELECT = `select ${TRIP_COLUMNS} from trips t ${TRIP_JOINS}`;

/** The filter as SQL over trips `t` ($1 is the company); the status filter applies to the page only. */
function filterSql(filter: TripFilter, params: unknown[]): string {
  const filters = clauses(params);
  filters.where.push('t.company_id = $1');
  if (filter.date) filters.add((slot) => `t.operating_date = ${slot}::date`, filter.date);
  if (filter.routeId) filters.add((slot) => `t.route_id = ${slot}`, filter.routeId);
  if (filter.busId) filters.add((slot) => `t.bus_id = ${slot}`, filter.busId);
  return filters.where.join(' and ');
}

/**
 * The two statements behind GET /trips: the status counters of the whole selection and the page.
 * The page picks its ids first (for the history an index-only scan of trips_company_departure_idx
 * in list order) and reads the columns, with their subqueries, for those rows only: a page costs
 * the same after a year of trips as after a week. The benchmark (bench/ledger.ts) runs exactly these
 * as its bare-SQL baseline.
 */
export function tripListStatements(
  companyId: string,
  filter: TripFilter,
  page: { limit: number; offset: number },
): { counters: Statement; page: Statement } {
  const values: unknown[] = [companyId];
  const where = filterSql(filter, values);
  const n = values.length;
  const order = `t.departure_at ${filter.date ? 'asc' : 'desc'}, t.id`;
  return {
    counters: {
      text: `select t.status, count(*)::int as count from trips t where ${where} group by t.status`,
      values,
    },
    page: {
      text: `select ${TRIP_COLUMNS}
               from (select t.id from trips t
                      where ${where} and ($${n + 1}::text is null or t.status = $${n + 1})
                      order by ${order} limit $${n + 2} offset $${n + 3}) page
               join trips t on t.id = page.id
               ${TRIP_JOINS}
              order by ${order}`,
      values: [...values, filter.status ?? null, page.limit, page.offset],
    },
  };
}

export async function listPlanningTrips(
  db: Database,
  companyId: string,
  filter: TripFilter,
  page: { limit: number; offset: number },
): Promise<{ trips: PlanningTrip[]; counters: Record<TripStatus, number>; total: number }> {
  const statements = tripListStatements(companyId, filter, page);
  const counted = await db.query<{ status: TripStatus; count: number }>(
    statements.counters.text,
    statements.counters.values,
  );
  const counters = Object.fromEntries(TripStatus.map((status) => [status, 0])) as Record<TripStatus, number>;
  for (const row of counted) counters[row.status] = row.count;
  const rows = await db.query<TripRow>(statements.page.text, statements.page.values);
  const total = filter.status ? counters[filter.status] : Object.values(counters).reduce((a, b) => a + b, 0);
  return { trips: rows.map(toTrip), counters, total };
}

/** One trip of the company, or undefined (another company's trip is the same as none). */
export const findPlanningTrip = companyRecordById(TRIP_SELECT, 't', toTrip);
