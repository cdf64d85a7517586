import { describe, expect, it } from 'vitest';
import {
  callOffsets,
  routeMinutes,
  routeStopIssues,
  shortestDuration,
  type RouteStopPlan,
} from './route-plan.js';

const stop = (id: string, running: number, dwell: number, share: number): RouteStopPlan => ({
  stopId: id,
  cityId: `city-${id}`,
  runningMinutes: running,
  dwellMinutes: dwell,
  fareShareBp: share,
});
const route = [stop('a', 0, 0, 0), stop('b', 60, 10, 4000), stop('c', 90, 5, 7000), stop('d', 30, 0, 10_000)];

describe('routeStopIssues', () => {
  it('accepts ordered stops with running times, dwell between the ends and growing fare shares', () => {
    expect(routeStopIssues(route)).toEqual([]);
    expect(routeMinutes(route)).toBe(195);
  });

  it.each([
    [
      'a running time at the first stop',
      0,
      { runningMinutes: 5 },
      'FIRST_STOP_RUNNING_TIME',
      'stops.0.running_minutes',
    ],
    [
      'no running time to a later stop',
      2,
      { runningMinutes: 0 },
      'RUNNING_TIME_INVALID',
      'stops.2.running_minutes',
    ],
    ['dwell at the last stop', 3, { dwellMinutes: 5 }, 'END_STOP_DWELL', 'stops.3.dwell_minutes'],
    ['a first fare share above 0', 0, { fareShareBp: 10 }, 'FARE_SHARE_INVALID', 'stops.0.fare_share_bp'],
    [
      'a last fare share below 10000',
      3,
      { fareShareBp: 9000 },
      'FARE_SHARE_INVALID',
      'stops.3.fare_share_bp',
    ],
    [
      'a fare share that decreases',
      2,
      { fareShareBp: 3000 },
      'FARE_SHARE_DECREASES',
      'stops.2.fare_share_bp',
    ],
    [
      'a fare share equal to the one before',
      2,
      { fareShareBp: 4000 },
      'FARE_SHARE_INVALID',
      'stops.2.fare_share_bp',
    ],
    [
      'a last fare share equal to the one before',
      2,
      { fareShareBp: 10_000 },
      'FARE_SHARE_INVALID',
      'stops.3.fare_share_bp',
    ],
    ['a stop called twice', 2, { stopId: 'a' }, 'STOP_REPEATED', 'stops.2.stop_id'],
  ])('refuses %s, naming the stop', (_case, index, change, code, path) => {
    const stops = route.map((candidate, at) => (at === index ? { ...candidate, ...change } : candidate));
    expect(routeStopIssues(stops)).toContainEqual(expect.objectContaining({ code, path }));
  });

  it('refuses a stop priced like the one before it: the leg between them would cost nothing', () => {
    const stops = [
      stop('a', 0, 0, 0),
      stop('b', 60, 5, 5000),
      stop('c', 40, 5, 5000),
      stop('d', 60, 0, 10_000),
    ];
    expect(routeStopIssues(stops)).toEqual([
      {
        path: 'stops.2.fare_share_bp',
        code: 'FARE_SHARE_INVALID',
        message: 'fare shares rise at every stop',
      },
    ]);
  });

  it('refuses one stop, and a route longer than a day', () => {
    expect(routeStopIssues([route[0]!])).toEqual([expect.objectContaining({ code: 'STOP_COUNT' })]);
    const long = [stop('a', 0, 0, 0), stop('b', 1441, 0, 10_000)];
    expect(routeStopIssues(long)).toContainEqual(expect.objectContaining({ code: 'ROUTE_TOO_LONG' }));
  });
});

describe('callOffsets', () => {
  it("uses the route's own times by default", () => {
    expect(
      callOffsets(route).map((call) => [call.arrivalMinute, call.departureMinute, call.fareShareBp]),
    ).toEqual([
      [0, 0, 0],
      [60, 70, 4000],
      [160, 165, 7000],
      [195, 195, 10_000],
    ]);
  });

  it('scales running times to another duration, keeping dwell and arriving exactly then', () => {
    const calls = callOffsets(route, 375);
    expect(calls.at(-1)!.arrivalMinute).toBe(375);
    expect(calls[1]!.departureMinute - calls[1]!.arrivalMinute).toBe(10);
    expect(calls[1]!.arrivalMinute).toBe(120);
  });

  it('keeps every call after the previous one even at the shortest duration', () => {
    const shortest = shortestDuration(route);
    expect(shortest).toBe(18);
    const calls = callOffsets(route, shortest);
    for (let index = 1; index < calls.length; index++) {
      expect(calls[index]!.arrivalMinute).toBeGreaterThan(calls[index - 1]!.departureMinute);
    }
    expect(() => callOffsets(route, shortest - 1)).toThrow(RangeError);
  });

  it('gives strictly increasing calls that end at the duration for any route and any allowed duration', () => {
    let seed = 7;
    const next = (limit: number) => (seed = (seed * 48271) % 2147483647) % limit;
    for (let run = 0; run < 500; run++) {
      const count = 2 + next(8);
      const stops = Array.from({ length: count }, (_, index) =>
        stop(
          `s${index}`,
          index === 0 ? 0 : 1 + next(120),
          index === 0 || index === count - 1 ? 0 : next(20),
          0,
        ),
      );
      const duration = shortestDuration(stops) + next(400);
      const calls = callOffsets(stops, duration);
      expect(calls.at(-1)!.arrivalMinute).toBe(duration);
      for (let index = 1; index < calls.length; index++) {
        expect(calls[index]!.arrivalMinute).toBeGreaterThan(calls[index - 1]!.departureMinute);
      }
    }
  });
});
