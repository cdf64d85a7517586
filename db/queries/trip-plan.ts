import type { PoolClient } from 'pg';
import { routeMinutes, shortestDuration } from '../../domain/route-plan.js';
import { selfOverlap, type Conflict } from '../../domain/trip-conflicts.js';
import {
  lastDateRefusal,
  notFound,
  pickupStopRefusal,
  PlanningRefusal,
  tripSeats,
  type PlanningBus,
} from '../../domain/trip-planning.js';
import {
  expandTimetable,
  type PlannedDeparture,
  type ScheduleRequest,
  type TripRefsRequest,
} from '../../domain/trip-schedules.js';
import {
  activeDriver,
  busForPlanning,
  planningConflicts,
  routeForPlanning,
  stopForPlanning,
  type PlanningRoute,
  type PlanningScope,
} from './planning.js';

/**
 * The checked ingredients of new trips, shared by POST /trips and trip schedules (preview and
 * commit alike): the company's route with its stops, its bus with the seats trips sell, its
 * active driver, an allowed pickup stop, and the trip duration. Each rule refuses with a
 * PlanningRefusal; another company's record is the same 404 as none.
 */
type Queryable = Pick<PoolClient, 'query'>;

export interface TripRefs {
  route: PlanningRoute;
  /** The bus as tripSeats judged it (a write that gives a legacy bus its layout reads this row). */
  bus: PlanningBus;
  seatsTotal: number;
  durationMinutes: number;
}

async function companyRoute(q: Queryable, companyId: string, routeId: string): Promise<PlanningRoute> {
  const route = await routeForPlanning(q, routeId);
  if (!route || route.company_id !== companyId) throw notFound('ROUTE');
  if (!route.active) throw new PlanningRefusal(409, 'ROUTE_INACTIVE', 'The route is no longer run');
  if (route.stops.length < 2) {
    throw new PlanningRefusal(
      409,
      'ROUTE_HAS_NO_STOPS',
      'The route has no stops yet; add them before planning trips',
    );
  }
  return route;
}

function durationOf(route: PlanningRoute, requested: number | undefined): number {
  if (requested === undefined) return routeMinutes(route.stops);
  const shortest = shortestDuration(route.stops);
  if (requested < shortest) {
    throw new PlanningRefusal(
      400,
      'DURATION_TOO_SHORT',
      `duration_minutes must leave a minute per leg besides the dwell times: at least ${shortest}`,
      { minimum: shortest },
    );
  }
  return requested;
}

export async function resolveTripRefs(
  q: Queryable,
  companyId: string,
  request: TripRefsRequest,
): Promise<TripRefs> {
  const route = await companyRoute(q, companyId, request.routeId);
  const bus = await busForPlanning(q, request.busId);
  if (!bus || bus.company_id !== companyId) throw notFound('BUS');
  const seatsTotal = tripSeats(bus);
  if (request.driverId !== null && !(await activeDriver(q, companyId, request.driverId))) {
    throw notFound('DRIVER');
  }
  const refused = pickupStopRefusal(await stopForPlanning(q, request.pickupStopId), {
    companyId,
    originCityId: route.origin_city_id,
  });
  if (refused) throw refused;
  return { route, bus, seatsTotal, durationMinutes: durationOf(route, request.durationMinutes) };
}

export interface SchedulePlan extends TripRefs {
  departures: PlannedDeparture[];
  conflicts: Conflict[];
}

/**
 * The trips a schedule would create (departures after `notBefore`, in time order) and every
 * conflict they meet. A timetable whose own trips overlap (the bus would run two at once) is
 * refused.
 */
export async function planSchedule(
  q: Queryable,
  companyId: string,
  request: ScheduleRequest,
  options: { notBefore: number } & Pick<PlanningScope, 'excludeScheduleId' | 'claimedBefore'>,
): Promise<SchedulePlan> {
  const refs = await resolveTripRefs(q, companyId, request);
  const departures = expandTimetable({
    ...request,
    durationMinutes: refs.durationMinutes,
    notBefore: options.notBefore,
  });
  const late = lastDateRefusal(departures);
  if (late) throw late;
  const overlap = selfOverlap(departures);
  if (overlap) {
    throw new PlanningRefusal(
      400,
      'SCHEDULE_OVERLAPS_ITSELF',
      'Two departures of the schedule overlap: the bus would run two trips at once',
      { departures: overlap.map((index) => new Date(departures[index]!.departureAt).toISOString()) },
    );
  }
  const conflicts = await planningConflicts(
    q,
    {
      busId: request.busId,
      driverId: request.driverId,
      routeId: request.routeId,
      excludeScheduleId: options.excludeScheduleId,
      claimedBefore: options.claimedBefore,
    },
    departures,
  );
  return { ...refs, departures, conflicts };
}
