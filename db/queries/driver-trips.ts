import type { TripStatus } from '../../domain/trip-dispatch.js';
import type { Database } from '../orm.js';
import type { TripTimesRow } from './trip-times.js';
import { iso } from '../row-fields.js';
import { countedPage } from './filtered-lists.js';
import { companyRecordById } from './company-records.js';
import { legacyAttendanceSql, legacyTravellerSql, ticketTravellerSql } from './trip-manifest.js';

/**
 * The driver app's trip reads: the trips a driver works and one trip's header for its manifest.
 * Instants arrive as text.
 */
export interface DriverTrip {
  id: string;
  status: TripStatus;
  operatingDate: string;
  departureAt: string;
  arrivalAt: string;
  delayMinutes: number;
  route: { nameAr: string; nameEn: string };
  plateNumber: string;
  driverId: string | null;
  travellers: number;
  checkedIn: number;
}

interface DriverTripRow extends TripTimesRow {
  route_name_ar: string;
  route_name_en: string;
  plate_number: string;
  driver_id: string | null;
  travellers: number;
  checked_in: number;
}

const toDriverTrip = (row: DriverTripRow): DriverTrip => ({
  id: row.id,
  status: row.status,
  operatingDate: row.operating_date,
  departureAt: iso(row.departure_at),
  arrivalAt: iso(row.arrival_at),
  delayMinutes: row.delay_minutes,
  route: { nameAr: row.route_name_ar, nameEn: row.route_name_en },
  plateNumber: row.plate_number,
  driverId: row.driver_id,
  travellers: row.travellers,
  checkedIn: row.checked_in,
});

/** SQL integer: how many of trip `t`'s manifest travellers (tickets, then legacy bookings) meet `ticket` and `legacy`. */
const travellersWhere = (ticket: string, legacy: string) =>
  `((select count(*)::int from journey_tickets k where k.trip_id = t.id and ${ticketTravellerSql('k')} and ${ticket})
    + (select count(*)::int from bookings lb where lb.trip_id = t.id and ${legacyTravellerSql('lb')} and ${legacy}))`;

/** The manifest's travellers and its checked-in counter (api/use-cases/trip-dispatch.ts countersView). */
const COLUMNS = `t.id, t.status, t.operating_date::text, t.departure_at, t.arrival_at, t.delay_minutes,
  r.name_ar as route_name_ar, r.name_en as route_name_en, b.plate_number, t.driver_id,
  ${travellersWhere('true', 'true')} as travellers,
  ${travellersWhere("k.attendance = 'CHECKED_IN'", `${legacyAttendanceSql('lb')} = 'CHECKED_IN'`)} as checked_in`;

const DRIVER_TRIP_SELECT = `select ${COLUMNS} from trips t join routes r on r.id = t.route_id join buses b on b.id = t.bus_id`;

/**
 * The trips the driver works: assigned to `driverId` (every trip of the company when null). With a
 * date, that operating date (Damascus); without, the trips not over: under way, or scheduled to
 * leave from 12 hours ago on. Earliest departure first.
 */
export async function listDriverTrips(
  db: Database,
  filter: { companyId: string; driverId: string | null; date: string | null },
  page: { limit: number; offset: number },
): Promise<{ trips: DriverTrip[]; total: number }> {
  const where = `t.company_id = $1 and ($2::uuid is null or t.driver_id = $2)
    and (case when $3::date is not null then t.operating_date = $3::date
              else t.status in ('BOARDING', 'DELAYED', 'DEPARTED', 'ARRIVED')
                   or (t.status = 'SCHEDULED' and t.departure_at >= now() - interval '12 hours') end)`;
  const params = [filter.companyId, filter.driverId, filter.date];
  const listing = {
    select: DRIVER_TRIP_SELECT,
    from: 'trips t',
    where,
    orderBy: 't.departure_at, t.id',
  };
  const { items, total } = await countedPage<DriverTripRow>(db.pool, listing, params, page);
  return { trips: items.map(toDriverTrip), total };
}

/** One trip of the company, as the driver app's manifest header shows it. */
export const findDriverTrip = companyRecordById(DRIVER_TRIP_SELECT, 't', toDriverTrip);
