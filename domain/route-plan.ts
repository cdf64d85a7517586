import { MAX_TRIP_MINUTES } from './trip-planning.js';

/**
 * A route's ordered stops and the stop calls of a trip that runs it. Each stop has its running
 * time from the previous stop's departure, its dwell (the ends have none) and its fare share: the
 * share of the full fare accumulated up to it, in basis points (the first 0, the last 10000, each
 * above the one before), exactly as trip_stop_calls stores it, so a leg costs the difference of its
 * two shares.
 */
export interface RouteStopPlan {
  stopId: string;
  cityId: string;
  /** Minutes from the previous stop's departure to arriving here; 0 for the first stop. */
  runningMinutes: number;
  /** Minutes the coach waits here; 0 at both ends. */
  dwellMinutes: number;
  fareShareBp: number;
}

export interface RouteStopIssue {
  /** The offending stop's place in the request, e.g. stops.2.fare_share_bp. */
  path: string;
  code: string;
  message: string;
}

export const MAX_ROUTE_STOPS = 30;

function stopIssues(stops: readonly Omit<RouteStopPlan, 'cityId'>[], index: number): RouteStopIssue[] {
  const stop = stops[index]!;
  const first = index === 0;
  const last = index === stops.length - 1;
  const at = (field: string) => `stops.${index}.${field}`;
  const issues: RouteStopIssue[] = [];
  const issue = (field: string, code: string, message: string) =>
    issues.push({ path: at(field), code, message });
  if (first && stop.runningMinutes !== 0)
    issue('running_minutes', 'FIRST_STOP_RUNNING_TIME', 'the first stop has no running time');
  if (!first && stop.runningMinutes < 1)
    issue(
      'running_minutes',
      'RUNNING_TIME_INVALID',
      'a later stop needs at least one minute of running time',
    );
  if ((first || last) && stop.dwellMinutes !== 0)
    issue('dwell_minutes', 'END_STOP_DWELL', 'the first and the last stop have no dwell time');
  if (first && stop.fareShareBp !== 0)
    issue('fare_share_bp', 'FARE_SHARE_INVALID', 'the first stop has a fare share of 0');
  if (last && stop.fareShareBp !== 10_000)
    issue('fare_share_bp', 'FARE_SHARE_INVALID', 'the last stop has a fare share of 10000');
  const previousShare = first ? undefined : stops[index - 1]!.fareShareBp;
  if (previousShare !== undefined && stop.fareShareBp < previousShare)
    issue('fare_share_bp', 'FARE_SHARE_DECREASES', 'fare shares never decrease along the route');
  // An equal share would make the leg from the stop before free: no fare to sell it at.
  if (previousShare !== undefined && stop.fareShareBp === previousShare)
    issue('fare_share_bp', 'FARE_SHARE_INVALID', 'fare shares rise at every stop');
  if (stops.findIndex((other) => other.stopId === stop.stopId) < index)
    issue('stop_id', 'STOP_REPEATED', 'a route calls at each stop once');
  return issues;
}

/** Every problem of an ordered stop list, each with the path of the offending field. */
export function routeStopIssues(stops: readonly Omit<RouteStopPlan, 'cityId'>[]): RouteStopIssue[] {
  if (stops.length < 2 || stops.length > MAX_ROUTE_STOPS) {
    return [{ path: 'stops', code: 'STOP_COUNT', message: `a route has 2 to ${MAX_ROUTE_STOPS} stops` }];
  }
  const issues = stops.flatMap((_, index) => stopIssues(stops, index));
  if (routeMinutes(stops) > MAX_TRIP_MINUTES) {
    issues.push({
      path: 'stops',
      code: 'ROUTE_TOO_LONG',
      message: `running and dwell times add up to more than ${MAX_TRIP_MINUTES} minutes`,
    });
  }
  return issues;
}

/** Minutes from departing the first stop to arriving at the last. */
export function routeMinutes(
  stops: readonly Pick<RouteStopPlan, 'runningMinutes' | 'dwellMinutes'>[],
): number {
  return stops.reduce((total, stop) => total + stop.runningMinutes + stop.dwellMinutes, 0);
}

/** The shortest duration a trip on these stops may be given: every dwell kept, a minute per leg. */
export function shortestDuration(stops: readonly Pick<RouteStopPlan, 'dwellMinutes'>[]): number {
  return stops.reduce((total, stop) => total + stop.dwellMinutes, 0) + stops.length - 1;
}

/** A stop call of a trip, in minutes from its departure. */
export interface CallOffsets {
  stopId: string;
  cityId: string;
  arrivalMinute: number;
  departureMinute: number;
  fareShareBp: number;
}

/**
 * The route's stop calls for a trip of `durationMinutes` (the route's own running times when
 * omitted): running times are scaled so the coach reaches the last stop exactly then, dwell times
 * are kept, and every call stays at least a minute after the previous one.
 */
export function callOffsets(stops: readonly RouteStopPlan[], durationMinutes?: number): CallOffsets[] {
  const running = stops.reduce((total, stop) => total + stop.runningMinutes, 0);
  const dwell = stops.reduce((total, stop) => total + stop.dwellMinutes, 0);
  const duration = durationMinutes ?? running + dwell;
  if (duration < shortestDuration(stops)) throw new RangeError('duration shorter than the stops allow');
  const factor = (duration - dwell) / running;
  let elapsedRunning = 0;
  let elapsedDwell = 0;
  let previousDeparture = 0;
  // The latest a stop may be reached and still leave a minute for each later leg and every later dwell.
  let dwellFromHere = dwell;
  return stops.map((stop, index) => {
    elapsedRunning += stop.runningMinutes;
    const scaled = Math.round(elapsedRunning * factor) + elapsedDwell;
    const last = index === stops.length - 1;
    const latest = duration - dwellFromHere - (stops.length - 1 - index);
    dwellFromHere -= stop.dwellMinutes;
    const arrivalMinute =
      index === 0 ? 0 : last ? duration : Math.min(latest, Math.max(previousDeparture + 1, scaled));
    elapsedDwell += stop.dwellMinutes;
    previousDeparture = arrivalMinute + stop.dwellMinutes;
    return {
      stopId: stop.stopId,
      cityId: stop.cityId,
      arrivalMinute,
      departureMinute: previousDeparture,
      fareShareBp: stop.fareShareBp,
    };
  });
}

/** A trip's stop calls as instants, for a departure (epoch ms) and a duration in minutes. */
export function tripStopCalls(stops: readonly RouteStopPlan[], departureAt: number, durationMinutes: number) {
  return callOffsets(stops, durationMinutes).map((call) => ({
    stopId: call.stopId,
    cityId: call.cityId,
    arrivalAt: new Date(departureAt + call.arrivalMinute * 60_000),
    departureAt: new Date(departureAt + call.departureMinute * 60_000),
    fareShareBp: call.fareShareBp,
  }));
}
