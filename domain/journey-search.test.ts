import { describe, expect, it } from 'vitest';
import {
  MAX_JOURNEYS,
  compareJourneys,
  composeJourneys,
  isPastOperatingDate,
  journeyKey,
  searchWindow,
  transferBetween,
  type RankedJourney,
  type TransferSettings,
} from './journey-search.js';

const settings: TransferSettings = { minSameStopMinutes: 20, minSameCityMinutes: 60, maxWaitMinutes: 360 };
const at = (time: string) => new Date(`2026-12-01T${time}:00Z`);
const arrival = { stopId: 'stop-a', cityId: 'city-x', arrivalAt: at('10:00') };
/** A second leg leaving the arrival's own stop at `time`. */
const fromSameStop = (time: string) => ({ stopId: 'stop-a', cityId: 'city-x', departureAt: at(time) });

describe('transferBetween', () => {
  it('accepts a change at the same stop after the same-stop minimum and reports the wait', () => {
    expect(transferBetween(arrival, fromSameStop('10:20'), settings)).toEqual({
      kind: 'SAME_STOP',
      city_id: 'city-x',
      wait_minutes: 20,
    });
  });

  it('refuses a change at the same stop sooner than the minimum', () => {
    expect(transferBetween(arrival, fromSameStop('10:19'), settings)).toBeNull();
  });

  it('needs the longer same-city minimum when the second leg boards at another stop of the city', () => {
    const otherStop = (time: string) => ({ stopId: 'stop-b', cityId: 'city-x', departureAt: at(time) });
    expect(transferBetween(arrival, otherStop('10:30'), settings)).toBeNull();
    expect(transferBetween(arrival, otherStop('11:00'), settings)).toEqual({
      kind: 'SAME_CITY',
      city_id: 'city-x',
      wait_minutes: 60,
    });
  });

  it('refuses a wait longer than the maximum, and a second leg in another city', () => {
    expect(transferBetween(arrival, fromSameStop('16:00'), settings)).not.toBeNull();
    expect(transferBetween(arrival, fromSameStop('16:01'), settings)).toBeNull();
    expect(
      transferBetween(arrival, { stopId: 'stop-c', cityId: 'city-y', departureAt: at('12:00') }, settings),
    ).toBeNull();
  });

  it('accepts a second leg that leaves after midnight', () => {
    const late = { stopId: 'stop-a', cityId: 'city-x', arrivalAt: new Date('2026-12-01T23:30:00Z') };
    expect(
      transferBetween(
        late,
        { stopId: 'stop-a', cityId: 'city-x', departureAt: new Date('2026-12-02T01:00:00Z') },
        settings,
      ),
    ).toEqual({
      kind: 'SAME_STOP',
      city_id: 'city-x',
      wait_minutes: 90,
    });
  });
});

describe('journeyKey', () => {
  it('is built from the trips and stop calls of the legs, in order', () => {
    const leg = (trip: string, board: string, alight: string) => ({
      trip_id: trip,
      board: { stop_call_id: board },
      alight: { stop_call_id: alight },
    });
    expect(journeyKey([leg('t1', 'b1', 'a1')])).toBe('t1:b1:a1');
    expect(journeyKey([leg('t1', 'b1', 'a1'), leg('t2', 'b2', 'a2')])).toBe('t1:b1:a1+t2:b2:a2');
  });
});

const journey = (
  key: string,
  departure: string,
  duration: number,
  price: number,
  trips: string[] = [key],
): RankedJourney => ({
  journey_key: key,
  departure_at: at(departure).toISOString(),
  duration_minutes: duration,
  total_price: price,
  legs: trips.map((trip_id) => ({ trip_id })),
});

describe('ordering and de-duplication', () => {
  it('orders by departure, then duration, then price', () => {
    const list = [
      journey('late', '09:00', 100, 1000),
      journey('long', '08:00', 200, 1000),
      journey('dear', '08:00', 100, 2000),
      journey('best', '08:00', 100, 1000),
    ];
    expect([...list].sort(compareJourneys).map((j) => j.journey_key)).toEqual([
      'best',
      'dear',
      'long',
      'late',
    ]);
  });

  it('keeps one journey per sequence of trips: the best in search order', () => {
    const result = composeJourneys([
      journey('trip1 from the second stop', '08:20', 160, 9000, ['trip1']),
      journey('trip1 from the first stop', '08:00', 180, 10000, ['trip1']),
      journey('trip1 then trip2', '08:00', 400, 15000, ['trip1', 'trip2']),
      journey('trip3', '07:00', 200, 8000, ['trip3']),
    ]);
    expect(result.map((j) => j.journey_key)).toEqual([
      'trip3',
      'trip1 from the first stop',
      'trip1 then trip2',
    ]);
  });

  it(`returns at most ${MAX_JOURNEYS} journeys`, () => {
    const many = Array.from({ length: 70 }, (_, i) => journey(`t${i}`, '08:00', 100 + i, 1000));
    const result = composeJourneys(many);
    expect(result).toHaveLength(MAX_JOURNEYS);
    expect(result[0]!.journey_key).toBe('t0');
  });
});

describe('search day', () => {
  it('is the Damascus calendar day, starting no earlier than now', () => {
    const before = new Date('2026-11-30T12:00:00Z');
    expect(searchWindow('2026-12-01', before)).toEqual({
      from: new Date('2026-11-30T21:00:00Z'),
      to: new Date('2026-12-01T21:00:00Z'),
    });
    const during = new Date('2026-12-01T09:15:00Z');
    expect(searchWindow('2026-12-01', during).from).toEqual(during);
  });

  it('a date before today in Damascus is in the past; today is not', () => {
    const now = new Date('2026-11-30T22:30:00Z'); // already 1 December in Damascus
    expect(isPastOperatingDate('2026-11-30', now)).toBe(true);
    expect(isPastOperatingDate('2026-12-01', now)).toBe(false);
  });
});
