import type { Database } from '../../db/orm.js';
import { findDriverTrip, listDriverTrips, type DriverTrip } from '../../db/queries/driver-trips.js';
import { readManifest } from '../../db/queries/trip-manifest.js';
import { iso } from '../../db/row-fields.js';
import type { RequestOrigin } from '../../db/writes/audit.js';
import { recordDriverCollection } from '../../db/writes/driver-collections.js';
import { recordPositions, scanAtDoor } from '../../db/writes/trip-operations/index.js';
import { refuseUnassigned, tripNotFound } from '../../domain/trip-dispatch.js';
import { DRIVER_APP_ROLES, type DriverPrincipal } from '../auth/driver-auth.js';
import { countersView, manifestItemView } from './trip-dispatch.js';

/** The driver app's trip work: its trips, a manifest, a scan and the cash taken at the door, position reports. */

const tripView = (trip: DriverTrip) => ({
  id: trip.id,
  status: trip.status,
  operating_date: trip.operatingDate,
  departure_at: trip.departureAt,
  arrival_at: trip.arrivalAt,
  delay_minutes: trip.delayMinutes,
  route: { name_ar: trip.route.nameAr, name_en: trip.route.nameEn },
  plate_number: trip.plateNumber,
  travellers: trip.travellers,
  checked_in: trip.checkedIn,
});

/** A DRIVER lists the trips assigned to them; the other roles of the driver app every trip of the company. */
export async function driverTrips(
  db: Database,
  driver: DriverPrincipal,
  query: { date?: string | undefined; limit: number; offset: number },
) {
  const filter = {
    companyId: driver.companyId,
    driverId: driver.role === 'DRIVER' ? driver.staffUserId : null,
    date: query.date ?? null,
  };
  const { trips, total } = await listDriverTrips(db, filter, query);
  return { trips: trips.map(tripView), total };
}

export async function driverManifest(db: Database, driver: DriverPrincipal, tripId: string) {
  const trip = await findDriverTrip(db, driver.companyId, tripId);
  if (!trip) throw tripNotFound();
  refuseUnassigned(driver, trip.driverId);
  const manifest = await readManifest(db, tripId);
  return { trip: tripView(trip), counters: countersView(manifest), manifest: manifest.map(manifestItemView) };
}

/** The driver app's user as its writes read them again (db/writes/acting-member.ts). */
const drivingMember = (driver: DriverPrincipal) => ({
  sessionId: driver.sessionId,
  membershipId: driver.membershipId,
  staffUserId: driver.staffUserId,
  allowedRoles: DRIVER_APP_ROLES,
});

export function scanCredential(
  db: Database,
  driver: DriverPrincipal,
  tripId: string,
  body: {
    client_scan_id: string;
    payload: Record<string, unknown>;
    signature: string;
    device_id?: string | undefined;
    scanned_at?: string | undefined;
  },
) {
  return scanAtDoor(db, {
    companyId: driver.companyId,
    tripId,
    actor: { ...drivingMember(driver), name: driver.name },
    clientScanId: body.client_scan_id,
    deviceId: body.device_id ?? null,
    // Its range (domain/trip-tracking.ts) is checked when the scan is recorded, never on a replay.
    scannedAt: body.scanned_at ? new Date(body.scanned_at) : null,
    payload: body.payload,
    signature: body.signature,
  });
}

export function reportPositions(
  db: Database,
  driver: DriverPrincipal,
  tripId: string,
  positions: {
    lat: number;
    lon: number;
    speed?: number | undefined;
    heading?: number | undefined;
    accuracy?: number | undefined;
    time: string;
  }[],
) {
  return recordPositions(db, {
    companyId: driver.companyId,
    tripId,
    actor: drivingMember(driver),
    positions: positions.map((position) => ({
      latitude: position.lat,
      longitude: position.lon,
      speedKmh: position.speed ?? null,
      heading: position.heading ?? null,
      accuracyM: position.accuracy ?? null,
      // Its range (domain/trip-tracking.ts) is checked when the position is new, never on a replayed one.
      recordedAt: new Date(position.time),
    })),
  });
}

/** The trip's driver records the cash they took for a booking (db/writes/driver-collections.ts). */
export async function recordCollectedCash(
  db: Database,
  driver: DriverPrincipal,
  input: { tripId: string; bookingId: string; origin: RequestOrigin },
) {
  const { line, created } = await recordDriverCollection(db, {
    ...input,
    companyId: driver.companyId,
    actor: drivingMember(driver),
  });
  return { created, line: { ...line, created_at: iso(line.created_at) } };
}
