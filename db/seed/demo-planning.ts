import { argon2id, hash } from 'argon2';
import type { PoolClient } from 'pg';
import { tripStopCalls, type RouteStopPlan } from '../../domain/route-plan.js';
import { damascusDayStart } from '../../domain/time.js';
import { expandTimetable, type PlannedDeparture } from '../../domain/trip-schedules.js';
import type { Database } from '../orm.js';
import { planningConflicts } from '../queries/planning.js';
import { insertTrips } from '../writes/catalogue.js';
import { DEMO_COMPANIES, demoUuid, type DemoCompanyIdentity } from './demo-identities.js';
import { DEMO_DRIVERS } from './demo-operations.js';
import { DEMO_STAFF_PASSWORD } from './demo-staff.js';

/**
 * The planning side of the demo world, so the dashboard has something on first start:
 * - every demo route gets its ordered stops (running times, dwell, fare shares), read from the
 *   stop calls of its first seeded trip, so new trips and schedules can be planned on it;
 * - every company gets two drivers (`driver1@<slug>.demo`, `driver2@<slug>.demo`, the demo staff
 *   password) who sign in to the driver app;
 * - every active company gets a committed schedule: a daily service on one of its routes, by a
 *   bus that is free then (the planner's own conflict rule finds the slot), driven by its first
 *   driver, with its trips.
 * Idempotent like the rest of the seed: fixed ids, `on conflict do nothing`.
 */
export const DEMO_DRIVER_COUNT = 2;

const driverEmail = (company: DemoCompanyIdentity, index: number) =>
  `driver${index + 1}@${company.slug}.demo`;
const driverId = (company: DemoCompanyIdentity, index: number) =>
  demoUuid('staff-user', driverEmail(company, index));

/** Route stops for every demo route that has none, from the stop calls of its first trip. */
async function seedRouteStops(client: PoolClient): Promise<void> {
  await client.query(
    `insert into route_stops (route_id, sequence, stop_id, city_id, running_minutes, dwell_minutes, fare_share_bp)
     select first_trip.route_id, c.sequence, c.stop_id, c.city_id,
            coalesce(extract(epoch from c.arrival_at - lag(c.departure_at) over w)::int / 60, 0),
            extract(epoch from c.departure_at - c.arrival_at)::int / 60, c.fare_share_bp
     from (select distinct on (t.route_id) t.route_id, t.id from trips t
           where t.company_id = any($1::uuid[])
             and not exists (select 1 from route_stops rs where rs.route_id = t.route_id)
           order by t.route_id, t.departure_at, t.id) first_trip
     join trip_stop_calls c on c.trip_id = first_trip.id
     window w as (partition by c.trip_id order by c.sequence)
     on conflict do nothing`,
    [DEMO_COMPANIES.map((company) => company.id)],
  );
}

async function seedDrivers(client: PoolClient): Promise<void> {
  const drivers = DEMO_COMPANIES.flatMap((company) =>
    Array.from({ length: DEMO_DRIVER_COUNT }, (_, index) => ({
      id: driverId(company, index),
      membership_id: demoUuid('membership', company.id, driverEmail(company, index)),
      company_id: company.id,
      email: driverEmail(company, index),
      name: `Driver ${index + 1}, ${company.nameEn}`,
    })),
  );
  const { rows } = await client.query<{ email: string }>(
    'select lower(email) as email from staff_users where lower(email) = any($1::text[])',
    [drivers.map((driver) => driver.email)],
  );
  const existing = new Set(rows.map((row) => row.email));
  const missing = drivers.filter((driver) => !existing.has(driver.email));
  if (missing.length > 0) {
    await client.query(
      `insert into staff_users (id, email, name, password_hash)
       select id, email, name, $2 from jsonb_to_recordset($1::jsonb) as r(id uuid, email text, name text)
       on conflict do nothing`,
      [JSON.stringify(missing), await hash(DEMO_STAFF_PASSWORD, { type: argon2id })],
    );
  }
  await client.query(
    `insert into company_memberships (id, company_id, staff_user_id, role)
     select r.membership_id, r.company_id, u.id, 'DRIVER'
     from jsonb_to_recordset($1::jsonb) as r(membership_id uuid, company_id uuid, email text)
     join staff_users u on lower(u.email) = r.email
     on conflict do nothing`,
    [JSON.stringify(drivers)],
  );
}

interface DemoRoute {
  id: string;
  pickup_stop_id: string;
  stops: RouteStopPlan[];
}

/** The company's routes with stops, shortest first. */
async function companyRoutes(client: PoolClient, companyId: string): Promise<DemoRoute[]> {
  const { rows } = await client.query<DemoRoute>(
    `select r.id, (select rs.stop_id from route_stops rs where rs.route_id = r.id and rs.sequence = 0) as pickup_stop_id,
            (select json_agg(json_build_object('stopId', rs.stop_id, 'cityId', rs.city_id,
                      'runningMinutes', rs.running_minutes, 'dwellMinutes', rs.dwell_minutes,
                      'fareShareBp', rs.fare_share_bp) order by rs.sequence)
             from route_stops rs where rs.route_id = r.id) as stops
     from routes r where r.company_id = $1 and exists (select 1 from route_stops rs where rs.route_id = r.id)
     order by (select sum(running_minutes + dwell_minutes) from route_stops rs where rs.route_id = r.id), r.name_en, r.id`,
    [companyId],
  );
  return rows;
}

/** Departure times tried for the demo schedule, in order. */
const SCHEDULE_TIMES = ['05:15', '13:45', '21:15', '02:15'];

interface SchedulePick {
  route: DemoRoute;
  busId: string;
  time: string;
  durationMinutes: number;
  departures: PlannedDeparture[];
}

/**
 * A route, one of the company's buses and a daily time at which the schedule meets no conflict
 * (checked with the planner's own rule); undefined when the timetable leaves no such slot.
 */
async function freeSlot(client: PoolClient, company: DemoCompanyIdentity, dates: string[]) {
  const { rows: buses } = await client.query<{ id: string }>(
    'select id from buses where company_id = $1 order by id',
    [company.id],
  );
  for (const route of await companyRoutes(client, company.id)) {
    const durationMinutes = route.stops.reduce(
      (total, stop) => total + stop.runningMinutes + stop.dwellMinutes,
      0,
    );
    for (const time of SCHEDULE_TIMES) {
      const departures = expandTimetable({
        startDate: dates[0]!,
        endDate: dates[dates.length - 1]!,
        departureTimes: [time],
        daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
        durationMinutes,
        notBefore: damascusDayStart(dates[0]!).getTime(),
      });
      for (const bus of buses) {
        const scope = { busId: bus.id, driverId: driverId(company, 0), routeId: route.id };
        if ((await planningConflicts(client, scope, departures)).length === 0) {
          return { route, busId: bus.id, time, durationMinutes, departures } satisfies SchedulePick;
        }
      }
    }
  }
  return undefined;
}

async function seedSchedule(
  client: PoolClient,
  company: DemoCompanyIdentity,
  dates: string[],
): Promise<void> {
  const scheduleId = demoUuid('trip-schedule', company.id);
  const exists = await client.query('select 1 from trip_schedules where id = $1', [scheduleId]);
  if (exists.rowCount) return;
  const pick = await freeSlot(client, company, dates);
  if (!pick) return;
  const { route, busId, departures } = pick;
  await client.query(
    `insert into trip_schedules (id, company_id, route_id, pickup_stop_id, bus_id, driver_id, start_date, end_date,
        departure_times, days_of_week, duration_minutes, price_base, notes, skip_conflicts, plan_from, status,
        batch_size, batches_total, batches_done, trips_planned, trips_created, created_by, completed_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, '{0,1,2,3,4,5,6}', $10, 30000, 'Demo: a daily service of the first driver',
             false, $11, 'COMPLETED', $12, 1, 1, $12, $12, $13, now())`,
    [
      scheduleId,
      company.id,
      route.id,
      route.pickup_stop_id,
      busId,
      driverId(company, 0),
      dates[0],
      dates[dates.length - 1],
      [pick.time],
      pick.durationMinutes,
      damascusDayStart(dates[0]!),
      departures.length,
      demoUuid('staff-user', `owner@${company.slug}.demo`),
    ],
  );
  await insertTrips(
    client,
    departures.map((departure) => ({
      id: demoUuid('schedule-trip', scheduleId, departure.operatingDate),
      companyId: company.id,
      routeId: route.id,
      busId,
      driverId: driverId(company, 0),
      scheduleId,
      pickupStopId: route.pickup_stop_id,
      priceBase: 30_000,
      calls: tripStopCalls(route.stops, departure.departureAt, pick.durationMinutes),
    })),
  );
}

export async function seedDemoPlanning(client: PoolClient, dates: string[]): Promise<void> {
  await seedRouteStops(client);
  await seedDrivers(client);
  for (const company of DEMO_COMPANIES.filter((candidate) => candidate.status === 'ACTIVE')) {
    await seedSchedule(client, company, dates);
  }
}

export interface DemoDriverAccount {
  email: string;
  password: string;
  role: 'DRIVER';
  companyId: string;
}

/**
 * The demo drivers that really exist (active user and membership), for `demo:accounts`: the planning
 * drivers (driver1@, driver2@) and the driver-app account of each full-team company (driver@,
 * demo-operations.ts DEMO_DRIVERS, which README names for the driver app).
 */
export async function demoDriverAccounts(db: Pick<Database, 'query'>): Promise<DemoDriverAccount[]> {
  return db.query<DemoDriverAccount>(
    `select lower(u.email) as email, $2::text as password, 'DRIVER' as role, m.company_id as "companyId"
     from staff_users u join company_memberships m on m.staff_user_id = u.id and m.role = 'DRIVER'
     where lower(u.email) = any($1::text[]) and u.status = 'ACTIVE' and m.active
     order by m.company_id, lower(u.email)`,
    [
      [
        ...DEMO_COMPANIES.flatMap((company) =>
          Array.from({ length: DEMO_DRIVER_COUNT }, (_, index) => driverEmail(company, index)),
        ),
        ...DEMO_DRIVERS.map((driver) => driver.email),
      ],
      DEMO_STAFF_PASSWORD,
    ],
  );
}
