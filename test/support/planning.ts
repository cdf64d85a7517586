import { expect } from 'vitest';
import type { Database } from '../../db/orm.js';
import { createBus, createCity, createCompany, createStop, futureDay } from './factories.js';
import type { TestApp, TestResponse } from './harness.js';
import { staffSession } from './journey-rows.js';
import { createStaffMember } from './staff.js';

/**
 * A company ready to plan with: its planners signed in, two cities with stops, a bus with an
 * active 2+2 layout, an active driver and a route of three stops. Everything is made directly
 * in the database; the tests then plan through the API.
 */
export type Session = Awaited<ReturnType<typeof staffSession>>;
export type PlanningRole = 'OWNER' | 'ADMIN' | 'DISPATCHER' | 'STAFF' | 'ACCOUNTANT';

export interface PlanningWorld {
  companyId: string;
  sessions: Record<PlanningRole, Session>;
  origin: { id: string };
  destination: { id: string };
  originStop: { id: string; cityId: string; nameEn: string };
  originStop2: { id: string; cityId: string };
  middleStop: { id: string; cityId: string };
  destinationStop: { id: string; cityId: string };
  bus: { id: string; seatCount: number };
  driverId: string;
  routeId: string;
}

/** A route of the company with its stops: [stop, running minutes, dwell minutes, fare share]. */
export async function createPlannedRoute(
  db: Database,
  companyId: string,
  stops: [{ id: string; cityId: string }, number, number, number][],
): Promise<string> {
  const [route] = await db.query<{ id: string }>(
    `insert into routes (company_id, origin_city_id, destination_city_id, name_ar, name_en)
     values ($1, $2, $3, 'خط', 'Planned route') returning id`,
    [companyId, stops[0]![0].cityId, stops[stops.length - 1]![0].cityId],
  );
  for (const [sequence, [stop, running, dwell, share]] of stops.entries()) {
    await db.query(
      `insert into route_stops (route_id, sequence, stop_id, city_id, running_minutes, dwell_minutes, fare_share_bp)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [route!.id, sequence, stop.id, stop.cityId, running, dwell, share],
    );
  }
  return route!.id;
}

export async function planningWorld(
  app: TestApp,
  options: { status?: 'ACTIVE' | 'SUSPENDED'; scope?: 'PRODUCTION' | 'DEMO' } = {},
): Promise<PlanningWorld> {
  const db = app.db;
  const company = await createCompany(db, { status: options.status, scope: options.scope });
  const sessions = {} as Record<PlanningRole, Session>;
  for (const role of ['OWNER', 'ADMIN', 'DISPATCHER', 'STAFF', 'ACCOUNTANT'] as const) {
    sessions[role] = await staffSession(db, app.config, company.id, role);
  }
  const origin = await createCity(db);
  const middle = await createCity(db);
  const destination = await createCity(db);
  const originStop = await createStop(db, origin.id);
  const originStop2 = await createStop(db, origin.id, { kind: 'PARKING_POINT' });
  const middleStop = await createStop(db, middle.id);
  const destinationStop = await createStop(db, destination.id);
  const bus = await createBus(db, company.id);
  const driver = await createStaffMember(db, company.id, 'DRIVER');
  const routeId = await createPlannedRoute(db, company.id, [
    [originStop, 0, 0, 0],
    [middleStop, 90, 10, 4000],
    [destinationStop, 110, 0, 10_000],
  ]);
  return {
    companyId: company.id,
    sessions,
    origin,
    destination,
    originStop,
    originStop2,
    middleStop,
    destinationStop,
    bus: { id: bus.id, seatCount: bus.seatCount },
    driverId: driver.userId,
    routeId,
  };
}

/** A dashboard call with a session's cookies (and CSRF header on writes). */
export function dashboard(
  app: TestApp,
  session: Session,
  method: string,
  path: string,
  json?: unknown,
  headers: Record<string, string> = method === 'GET' ? { Cookie: session.cookie } : session.writeHeaders,
): Promise<TestResponse> {
  return app.request(`/dashboard/api${path}`, { method, headers, ...(json === undefined ? {} : { json }) });
}

/** A day ahead in Damascus and a departure on it. */
export const planningDay = (daysAhead = 5) => futureDay(daysAhead);

/**
 * Every planning row of a company, in a stable order: what a refused request must leave exactly
 * as it was.
 */
export async function planningSnapshot(db: Database, companyId: string) {
  const read = (sql: string) => db.query(sql, [companyId]);
  return {
    buses: await read('select * from buses where company_id = $1 order by id'),
    layouts: await read(
      `select l.id, l.version, l.status, l.seat_count from bus_layouts l join buses b on b.id = l.bus_id
       where b.company_id = $1 order by l.id`,
    ),
    layoutSeats: await read(
      `select count(*)::int as n from layout_seats s join bus_layouts l on l.id = s.layout_id
       join buses b on b.id = l.bus_id where b.company_id = $1`,
    ),
    routes: await read('select * from routes where company_id = $1 order by id'),
    routeStops: await read(
      'select rs.* from route_stops rs join routes r on r.id = rs.route_id where r.company_id = $1 order by 1, 2',
    ),
    stops: await read('select * from stops where company_id = $1 order by id'),
    pickups: await read('select * from pickup_locations where company_id = $1 order by id'),
    trips: await read('select * from trips where company_id = $1 order by id'),
    stopCalls: await read(
      'select count(*)::int as n from trip_stop_calls c join trips t on t.id = c.trip_id where t.company_id = $1',
    ),
    schedules: await read('select * from trip_schedules where company_id = $1 order by id'),
    members: await read('select * from company_memberships where company_id = $1 order by id'),
  };
}

/** The trips of a schedule with their stop call count, by departure. */
export async function scheduleTrips(db: Database, scheduleId: string) {
  return db.query<{
    id: string;
    departure_at: string;
    operating_date: string;
    calls: number;
    driver_id: string | null;
  }>(
    `select t.id, t.departure_at, to_char(t.operating_date, 'YYYY-MM-DD') as operating_date, t.driver_id,
            (select count(*)::int from trip_stop_calls c where c.trip_id = t.id) as calls
     from trips t where t.schedule_id = $1 order by t.departure_at`,
    [scheduleId],
  );
}

/** No two live trips of the bus overlap in time. */
export async function expectNoDoubleBookedBus(db: Database, busId: string): Promise<void> {
  const overlaps = await db.query(
    `select a.id, b.id from trips a join trips b on a.bus_id = b.bus_id and a.id < b.id
     where a.bus_id = $1 and a.status <> 'CANCELLED' and b.status <> 'CANCELLED'
       and a.departure_at < b.arrival_at and b.departure_at < a.arrival_at`,
    [busId],
  );
  expect(overlaps).toEqual([]);
}
