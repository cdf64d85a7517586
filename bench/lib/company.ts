import { randomUUID } from 'node:crypto';
import { createStaffSession } from '../../api/auth/staff-session.js';
import type { Database } from '../../db/orm.js';
import { insertTrip, saveBusLayout } from '../../db/writes/catalogue.js';
import { coachLayout } from '../../domain/layout-templates.js';
import { addMinutes } from '../../domain/time.js';

/** A benchmark company with one route between two new cities, one station in each. */
export interface BenchCompany {
  companyId: string;
  routeId: string;
  /** The stations at the route's two ends, in travel order. */
  stops: { id: string; city_id: string }[];
}

/** A trip of a benchmark company: its stop calls and the labels of its seats. */
export interface BenchTrip {
  id: string;
  board: string;
  alight: string;
  seatNumbers: string[];
}

/** Minutes between two departures of a company's trips. */
const DEPARTURE_SPACING_MINUTES = 10;

/**
 * A verified, published company confirming bookings as `mode` (a 15-minute decision window when
 * it decides manually), with its route, written straight to the database.
 */
export async function createBenchCompany(
  db: Database,
  name: string,
  mode: 'AUTO_CONFIRM' | 'MANUAL_CONFIRM',
): Promise<BenchCompany> {
  const [origin, destination] = await db.query<{ id: string }>(
    `insert into cities (name_ar, name_en, latitude, longitude)
     values ($1 || ' أ', $1 || ' A', 33.5, 36.3), ($1 || ' ب', $1 || ' B', 34.7, 36.7) returning id`,
    [`${name} ${randomUUID().slice(0, 6)}`],
  );
  const stops = await db.query<{ id: string; city_id: string }>(
    `insert into stops (city_id, kind, name_ar, name_en, address_ar, address_en, directions_ar, directions_en, latitude, longitude)
     values ($1, 'BUS_STATION', 'موقف', 'Station', 'عنوان', 'Address', 'اتجاهات', 'Directions', 33.5, 36.3),
            ($2, 'BUS_STATION', 'موقف', 'Station', 'عنوان', 'Address', 'اتجاهات', 'Directions', 34.7, 36.7)
     returning id, city_id`,
    [origin!.id, destination!.id],
  );
  const [company] = await db.query<{ id: string }>(
    `insert into companies (name_ar, name_en, slug, status, verified, published, is_internal, is_demo)
     values ($1, $1, $2, 'ACTIVE', true, true, false, false) returning id`,
    [name, `${name.toLowerCase()}-${randomUUID().slice(0, 8)}`],
  );
  const companyId = company!.id;
  await db.query(
    `insert into company_booking_settings (company_id, mode, decision_window_minutes) values ($1, $2, 15)`,
    [companyId, mode],
  );
  const [route] = await db.query<{ id: string }>(
    `insert into routes (company_id, origin_city_id, destination_city_id, name_ar, name_en) values ($1, $2, $3, 'خط', 'Route') returning id`,
    [companyId, origin!.id, destination!.id],
  );
  return { companyId, routeId: route!.id, stops };
}

/**
 * `count` three-hour trips on one new coach of `rows` rows of 2+2 seats, one every 10 minutes
 * from 06:00 Damascus time two days ahead, starting at departure slot `firstSlot` (so trips of
 * another call can follow without sharing a departure).
 */
export async function createBenchTrips(
  db: Database,
  company: BenchCompany,
  options: { rows: number; count: number; firstSlot?: number },
): Promise<BenchTrip[]> {
  const { companyId, routeId, stops } = company;
  const firstDeparture = new Date(Date.now() + 2 * 86_400_000);
  firstDeparture.setUTCHours(3, 0, 0, 0);
  return db.transaction(async (client) => {
    const { rows: buses } = await client.query<{ id: string }>(
      `insert into buses (company_id, plate_number, model) values ($1, $2, 'Bench coach') returning id`,
      [companyId, `BENCH-${randomUUID().slice(0, 8)}`],
    );
    const busId = buses[0]!.id;
    await saveBusLayout(client, {
      busId,
      document: coachLayout({ rows: options.rows, pattern: '2+2' }),
      saveMode: 'active',
    });
    const seatNumbers = Array.from({ length: options.rows * 4 }, (_, seat) => String(seat + 1));
    const trips: BenchTrip[] = [];
    for (let index = 0; index < options.count; index++) {
      const slot = (options.firstSlot ?? 0) + index;
      const departAt = addMinutes(firstDeparture, slot * DEPARTURE_SPACING_MINUTES);
      const { tripId, stopCallIds } = await insertTrip(client, {
        companyId,
        routeId,
        busId,
        pickupStopId: stops[0]!.id,
        priceBase: 25_000,
        calls: [0, 180].map((minutes, call) => ({
          stopId: stops[call]!.id,
          cityId: stops[call]!.city_id,
          arrivalAt: addMinutes(departAt, minutes),
          departureAt: addMinutes(departAt, minutes),
          fareShareBp: call * 10_000,
        })),
      });
      trips.push({ id: tripId, board: stopCallIds[0]!, alight: stopCallIds[1]!, seatNumbers });
    }
    return trips;
  });
}

/** A signed-in OWNER of the company (never signs in with a password): its session and CSRF tokens. */
export async function benchOwnerSession(
  db: Database,
  companyId: string,
): Promise<{ token: string; csrfToken: string }> {
  const [user] = await db.query<{ id: string }>(
    `insert into staff_users (email, name, password_hash) values ($1, 'Bench owner', 'x') returning id`,
    [`owner-${randomUUID().slice(0, 8)}@bench.test`],
  );
  const [membership] = await db.query<{ id: string }>(
    `insert into company_memberships (company_id, staff_user_id, role) values ($1, $2, 'OWNER') returning id`,
    [companyId, user!.id],
  );
  return createStaffSession(
    { db, config: { STAFF_SESSION_TTL_HOURS: 12, COOKIE_SECURE: true } },
    { staffUserId: user!.id, membershipId: membership!.id },
  );
}
