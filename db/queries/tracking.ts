import type { TripStatus } from '../../domain/trip-dispatch.js';
import type { Database } from '../orm.js';
import { iso } from '../row-fields.js';
import { countedPage, type CountedListing } from './filtered-lists.js';

/**
 * GET /dashboard/api/tracking/active-trips: the company's trips under way (boarding, delayed,
 * departed or arrived and not yet completed) with the last position the driver app reported.
 * Instants arrive as text.
 */
export const ACTIVE_STATUSES: readonly TripStatus[] = ['BOARDING', 'DELAYED', 'DEPARTED', 'ARRIVED'];
/** Written as the partial index trips_active_idx says it, so the planner uses the index. */
const ACTIVE = `t.status in ('BOARDING', 'DELAYED', 'DEPARTED', 'ARRIVED')`;

export interface ActiveTrip {
  id: string;
  status: TripStatus;
  departureAt: string;
  arrivalAt: string;
  delayMinutes: number;
  actualDepartureAt: string | null;
  route: { nameAr: string; nameEn: string };
  plateNumber: string;
  driver: { id: string; name: string } | null;
  lastPosition: {
    latitude: number;
    longitude: number;
    speedKmh: number | null;
    heading: number | null;
    /** When the position counts as reported (see ACTIVE_TRIPS); never later than the server received it. */
    reportedAt: string;
  } | null;
}

interface ActiveTripRow {
  id: string;
  status: TripStatus;
  departure_at: string;
  arrival_at: string;
  delay_minutes: number;
  actual_departure_at: string | null;
  route_name_ar: string;
  route_name_en: string;
  plate_number: string;
  driver_id: string | null;
  driver_name: string | null;
  latitude: number | null;
  longitude: number | null;
  speed_kmh: number | null;
  heading: number | null;
  reported_at: string | null;
}

function toActiveTrip(row: ActiveTripRow): ActiveTrip {
  return {
    id: row.id,
    status: row.status,
    departureAt: iso(row.departure_at),
    arrivalAt: iso(row.arrival_at),
    delayMinutes: row.delay_minutes,
    actualDepartureAt: row.actual_departure_at === null ? null : iso(row.actual_departure_at),
    route: { nameAr: row.route_name_ar, nameEn: row.route_name_en },
    plateNumber: row.plate_number,
    driver: row.driver_id === null ? null : { id: row.driver_id, name: row.driver_name ?? '' },
    lastPosition:
      row.reported_at === null
        ? null
        : {
            latitude: row.latitude!,
            longitude: row.longitude!,
            speedKmh: row.speed_kmh,
            heading: row.heading,
            reportedAt: iso(row.reported_at),
          },
  };
}

/**
 * The listing of listActiveTrips: each active trip with its last reported position.
 *
 * A position counts as reported at least(recorded_at, received_at): the phone's stamp, which may run
 * up to REPORT_MAX_AHEAD_SECONDS ahead of the server, capped by when the server received it, while a
 * batch queued offline keeps the older stamps it was taken at. The last position is the one latest by
 * that instant (ties, one batch of fast-stamped positions, by the stamp), so a stamp from a fast clock
 * neither shows an update that has not happened yet nor outranks the reports that arrive after it
 * (index trip_positions_last_report_idx).
 */
const ACTIVE_TRIPS: CountedListing = {
  select: `select t.id, t.status, t.departure_at, t.arrival_at, t.delay_minutes, t.actual_departure_at,
            r.name_ar as route_name_ar, r.name_en as route_name_en, b.plate_number, t.driver_id, du.name as driver_name,
            p.latitude, p.longitude, p.speed_kmh, p.heading, p.reported_at
     from trips t
     join routes r on r.id = t.route_id
     join buses b on b.id = t.bus_id
     left join staff_users du on du.id = t.driver_id
     left join lateral (select x.latitude, x.longitude, x.speed_kmh, x.heading,
                               least(x.recorded_at, x.received_at) as reported_at
                        from trip_positions x where x.trip_id = t.id
                        order by least(x.recorded_at, x.received_at) desc, x.recorded_at desc limit 1) p on true`,
  from: 'trips t',
  where: `t.company_id = $1 and ${ACTIVE}`,
  orderBy: 't.departure_at, t.id',
};

/** The company's active trips, earliest departure first, with their last reported position. */
export async function listActiveTrips(
  db: Database,
  companyId: string,
  page: { limit: number; offset: number },
): Promise<{ trips: ActiveTrip[]; total: number }> {
  const { items, total } = await countedPage<ActiveTripRow>(db.pool, ACTIVE_TRIPS, [companyId], page);
  return { trips: items.map(toActiveTrip), total };
}
