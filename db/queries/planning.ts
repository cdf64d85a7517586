import type { PoolClient } from 'pg';
import type { RouteStopPlan } from '../../domain/route-plan.js';
import {
  findConflicts,
  MAX_LATENESS_MINUTES,
  type BusyWindow,
  type Conflict,
  type PlannedWindow,
} from '../../domain/trip-conflicts.js';
import type { PlanningBus, PlanningStop } from '../../domain/trip-planning.js';
import { expandTimetable, pendingDepartures } from '../../domain/trip-schedules.js';
import { LIVE_ALLOCATION } from './inventory.js';
import { overdueRequestRowSql } from './journeys.js';

/**
 * What planning a trip reads: the bus and its seats, the driver, the route with its stops, the
 * pickup stop, and the windows in which the bus, the driver or the route's departures are taken.
 * Preview reads these from the pool; the writes read them again inside their transaction, after
 * locking the bus and the driver, so the answer they act on cannot change under them.
 */
type Queryable = Pick<PoolClient, 'query'>;

export interface PlanningBusRow extends PlanningBus {
  id: string;
  company_id: string;
  plate_number: string;
}

export async function busForPlanning(q: Queryable, busId: string): Promise<PlanningBusRow | undefined> {
  const { rows } = await q.query<PlanningBusRow>(
    `select b.id, b.company_id, b.plate_number, b.status, b.legacy_seat_map, b.capacity,
            l.seat_count as active_seat_count
     from buses b
     left join bus_layouts l on l.bus_id = b.id and l.status = 'active' and l.validation_status = 'valid'
     where b.id = $1`,
    [busId],
  );
  return rows[0];
}

export interface DriverRow {
  id: string;
  name: string;
  email: string;
}

/** The staff user when it is an active DRIVER of the company, with an active account. */
export async function activeDriver(
  q: Queryable,
  companyId: string,
  driverId: string,
): Promise<DriverRow | undefined> {
  const { rows } = await q.query<DriverRow>(
    `select u.id, u.name, u.email
     from staff_users u
     join company_memberships m on m.staff_user_id = u.id and m.company_id = $1 and m.role = 'DRIVER' and m.active
     where u.id = $2 and u.status = 'ACTIVE'`,
    [companyId, driverId],
  );
  return rows[0];
}

export interface PlanningRoute {
  id: string;
  company_id: string;
  origin_city_id: string;
  destination_city_id: string;
  active: boolean;
  stops: RouteStopPlan[];
}

export async function routeForPlanning(q: Queryable, routeId: string): Promise<PlanningRoute | undefined> {
  const { rows } = await q.query<Omit<PlanningRoute, 'stops'> & { stops: RouteStopPlan[] | null }>(
    `select r.id, r.company_id, r.origin_city_id, r.destination_city_id, r.active,
            (select json_agg(json_build_object('stopId', s.stop_id, 'cityId', s.city_id,
                      'runningMinutes', s.running_minutes, 'dwellMinutes', s.dwell_minutes,
                      'fareShareBp', s.fare_share_bp) order by s.sequence)
             from route_stops s where s.route_id = r.id) as stops
     from routes r where r.id = $1`,
    [routeId],
  );
  const row = rows[0];
  return row && { ...row, stops: row.stops ?? [] };
}

export async function stopForPlanning(q: Queryable, stopId: string): Promise<PlanningStop | undefined> {
  const { rows } = await q.query<PlanningStop>(
    'select id, city_id, company_id, kind, enabled from stops where id = $1',
    [stopId],
  );
  return rows[0];
}

/** Whose windows a plan must respect, and which of its own records to leave out. */
export interface PlanningScope {
  busId: string;
  driverId: string | null;
  routeId: string;
  /** A trip being re-planned does not conflict with itself. */
  excludeTripId?: string;
  /** The schedule being committed: its own trips and claim are not conflicts. */
  excludeScheduleId?: string;
  /**
   * Claims of schedules still committing that count: every one (undefined), or only those
   * claimed before this claim order (a schedule yields only to earlier claims).
   */
  claimedBefore?: number;
}

interface BusyRow {
  kind: BusyWindow['kind'];
  trip_id: string;
  departure_ms: number;
  arrival_ms: number;
}

/**
 * SQL: the window in which trip `t` takes its bus and driver. A trip not yet arrived keeps them
 * until its expected arrival, the latest of the planned arrival, the planned arrival plus the
 * announced delay, and the actual departure plus the planned duration; an arrived trip until its
 * actual arrival, early or late: a bus back early is free then (as dispatch readiness, which only
 * counts trips BOARDING or DEPARTED, already lets it board). It takes them from its actual
 * departure when it left early. The end lies at most MAX_LATENESS_MINUTES past the planned arrival,
 * so a range on arrival_at widened by that much (trips_bus_busy_idx, trips_driver_busy_idx) finds
 * every window; an early arrival only ends one sooner.
 */
function busyWindowSql(t: string) {
  const from = `least(${t}.departure_at, coalesce(${t}.actual_departure_at, ${t}.departure_at))`;
  const until = `least(${t}.arrival_at + interval '${MAX_LATENESS_MINUTES} minutes',
    case when ${t}.actual_arrival_at is not null then ${t}.actual_arrival_at
         else greatest(${t}.arrival_at, ${t}.arrival_at + ${t}.delay_minutes * interval '1 minute',
                       ${t}.actual_departure_at + (${t}.arrival_at - ${t}.departure_at)) end)`;
  return {
    from,
    until,
    /** Whether the window overlaps [start, end) (timestamptz parameters), the index range first. */
    overlaps: (start: string, end: string) =>
      `${t}.arrival_at > ${start}::timestamptz - interval '${MAX_LATENESS_MINUTES} minutes'
       and ${until} > ${start} and ${from} < ${end}`,
  };
}

const BUSY = busyWindowSql('t');

/** The window trip `tripId` holds its bus and driver (busyWindowSql), in epoch milliseconds. */
export async function tripBusyWindow(q: Queryable, tripId: string): Promise<PlannedWindow> {
  const { rows } = await q.query<{ from_ms: number; until_ms: number }>(
    `select extract(epoch from ${BUSY.from})::float8 * 1000 as from_ms,
            extract(epoch from ${BUSY.until})::float8 * 1000 as until_ms
     from trips t where t.id = $1`,
    [tripId],
  );
  const row = rows[0];
  if (!row) throw new Error(`trip ${tripId} vanished while locked`);
  return { departureAt: row.from_ms, arrivalAt: row.until_ms };
}

async function tripWindows(q: Queryable, scope: PlanningScope, from: number, until: number) {
  const { rows } = await q.query<BusyRow>(
    `select kind, id as trip_id, extract(epoch from busy_from)::float8 * 1000 as departure_ms,
            extract(epoch from busy_until)::float8 * 1000 as arrival_ms
     from (
       select 'BUS_BUSY' as kind, t.id, t.schedule_id, ${BUSY.from} as busy_from, ${BUSY.until} as busy_until
       from trips t where t.bus_id = $1 and t.status <> 'CANCELLED' and ${BUSY.overlaps('$4', '$5')}
       union all
       select 'DRIVER_BUSY', t.id, t.schedule_id, ${BUSY.from}, ${BUSY.until}
       from trips t where t.driver_id = $2 and t.status <> 'CANCELLED' and ${BUSY.overlaps('$4', '$5')}
       union all
       select 'DEPARTURE_TAKEN', t.id, t.schedule_id, t.departure_at, t.arrival_at
       from trips t where t.route_id = $3 and t.status <> 'CANCELLED' and t.departure_at >= $4 and t.departure_at < $5
     ) busy
     where ($6::uuid is null or id <> $6) and ($7::uuid is null or schedule_id is distinct from $7)`,
    [
      scope.busId,
      scope.driverId,
      scope.routeId,
      new Date(from),
      new Date(until),
      scope.excludeTripId ?? null,
      scope.excludeScheduleId ?? null,
    ],
  );
  return rows.map((row): BusyWindow => ({
    kind: row.kind,
    departureAt: row.departure_ms,
    arrivalAt: row.arrival_ms,
    tripId: row.trip_id,
    scheduleId: null,
  }));
}

interface ClaimRow {
  id: string;
  bus_id: string;
  driver_id: string | null;
  route_id: string;
  start_date: string;
  end_date: string;
  departure_times: string[];
  days_of_week: number[];
  duration_minutes: number;
  plan_from_ms: number;
  batch_size: number;
  batches_done: number;
  /** Departures the claim skipped (epoch ms): never created, so they hold nothing. */
  skipped_ms: number[];
}

/**
 * The trips schedules still committing have claimed and not yet created, as busy windows: the
 * departures of their batches not yet done, less those their claim skipped for good.
 */
async function claimedWindows(q: Queryable, scope: PlanningScope, from: number, until: number) {
  const { rows } = await q.query<ClaimRow>(
    `select id, bus_id, driver_id, route_id, to_char(start_date, 'YYYY-MM-DD') as start_date,
            to_char(end_date, 'YYYY-MM-DD') as end_date, departure_times, days_of_week, duration_minutes,
            extract(epoch from plan_from)::float8 * 1000 as plan_from_ms, batch_size, batches_done,
            array(select round(extract(epoch from d) * 1000)::float8 from unnest(skipped_departures) d) as skipped_ms
     from trip_schedules
     where status = 'COMMITTING' and (bus_id = $1 or driver_id = $2 or route_id = $3)
       and id is distinct from $4 and ($5::bigint is null or claim_order < $5)
       and start_date <= ($7::timestamptz at time zone 'Asia/Damascus')::date
       and end_date >= ($6::timestamptz at time zone 'Asia/Damascus')::date - 1`,
    [
      scope.busId,
      scope.driverId,
      scope.routeId,
      scope.excludeScheduleId ?? null,
      scope.claimedBefore ?? null,
      new Date(from),
      new Date(until),
    ],
  );
  return rows.flatMap((claim) => {
    const departures = expandTimetable({
      startDate: claim.start_date,
      endDate: claim.end_date,
      departureTimes: claim.departure_times,
      daysOfWeek: claim.days_of_week,
      durationMinutes: claim.duration_minutes,
      notBefore: claim.plan_from_ms,
    });
    const kinds: BusyWindow['kind'][] = [
      ...(claim.bus_id === scope.busId ? (['BUS_BUSY'] as const) : []),
      ...(scope.driverId !== null && claim.driver_id === scope.driverId ? (['DRIVER_BUSY'] as const) : []),
      ...(claim.route_id === scope.routeId ? (['DEPARTURE_TAKEN'] as const) : []),
    ];
    const skipped = new Set(claim.skipped_ms);
    const pending = pendingDepartures(departures, claim.batches_done, claim.batch_size).filter(
      (departure) => !skipped.has(departure.departureAt),
    );
    return pending.flatMap((departure) =>
      kinds.map((kind): BusyWindow => ({
        kind,
        departureAt: departure.departureAt,
        arrivalAt: departure.arrivalAt,
        tripId: null,
        scheduleId: claim.id,
      })),
    );
  });
}

/**
 * Every conflict of the planned trips with existing trips (bus or driver busy in an overlapping
 * window, a trip of the route already at that departure) and with the trips of schedules still
 * committing. Empty for no planned trips.
 */
export async function planningConflicts(
  q: Queryable,
  scope: PlanningScope,
  planned: readonly PlannedWindow[],
): Promise<Conflict[]> {
  if (planned.length === 0) return [];
  const from = Math.min(...planned.map((window) => window.departureAt));
  const until = Math.max(...planned.map((window) => window.arrivalAt));
  const busy = [
    ...(await tripWindows(q, scope, from, until)),
    ...(await claimedWindows(q, scope, from, until)),
  ];
  return findConflicts(planned, busy);
}

/**
 * SQL: whether the trip `trip` has bookings — a live seat allocation (a held or sold seat) or a
 * booking that still travels (a request past its decision deadline does not: ./journeys.ts
 * overdueRequestRowSql). Such a trip keeps its bus, its pickup stop and its bus's layout.
 */
export const tripHasBookingsSql = (trip: string) =>
  `(exists (select 1 from seat_allocations a where a.trip_id = ${trip} and ${LIVE_ALLOCATION})
    or exists (select 1 from bookings bk where bk.trip_id = ${trip}
               and bk.status in ('HELD', 'PENDING_CONFIRMATION', 'CONFIRMED', 'CHECKED_IN')
               and not ${overdueRequestRowSql('bk')}))`;
