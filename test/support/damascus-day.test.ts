import { describe, expect, it } from 'vitest';
import { dayWithRoom, dayWithRoomTimeout } from './damascus-day.js';

/** A clock that only moves when slept on, recording each sleep. */
function fakeClock(start: string) {
  let now = new Date(start).getTime();
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => new Date(now),
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    at: () => new Date(now).toISOString(),
  };
}

describe('dayWithRoom: a test file runs inside one Damascus day (UTC+3, the day turns at 21:00 UTC)', () => {
  it('far from midnight: no wait, and the day is the Damascus date', async () => {
    const clock = fakeClock('2026-12-06T03:35:00.000Z');
    expect(await dayWithRoom(3, clock)).toBe('2026-12-06');
    expect(clock.sleeps).toEqual([]);
  });

  it('with exactly the minutes asked for left: no wait', async () => {
    const clock = fakeClock('2026-12-06T20:57:00.000Z');
    expect(await dayWithRoom(3, clock)).toBe('2026-12-06');
    expect(clock.sleeps).toEqual([]);
  });

  it('2 minutes before 21:00 UTC with 3 asked for: waits until just after 21:00, and gives the new day', async () => {
    const clock = fakeClock('2026-12-06T20:58:00.000Z');
    expect(await dayWithRoom(3, clock)).toBe('2026-12-07');
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.at() > '2026-12-06T21:00:00.000Z').toBe(true);
    expect(clock.at() < '2026-12-06T21:00:05.000Z').toBe(true);
  });

  it('1 ms before midnight in Damascus: waits past it', async () => {
    const clock = fakeClock('2026-12-06T20:59:59.999Z');
    expect(await dayWithRoom(3, clock)).toBe('2026-12-07');
    expect(clock.at() > '2026-12-06T21:00:00.000Z').toBe(true);
  });

  it.each(['2026-12-06T21:00:00.000Z', '2026-12-06T21:00:30.000Z'])(
    'at or just after 21:00 UTC (%s): no wait, a whole new day ahead',
    async (start) => {
      const clock = fakeClock(start);
      expect(await dayWithRoom(3, clock)).toBe('2026-12-07');
      expect(clock.sleeps).toEqual([]);
    },
  );

  it.each([
    ['2026-12-06T21:00:30.000Z', '2026-12-06T21:06:00.000Z'],
    ['2026-12-06T20:58:00.000Z', '2026-12-06T21:06:00.000Z'],
  ])('asked for 6 minutes of the day gone, at %s: waits until just after %s', async (start, until) => {
    const clock = fakeClock(start);
    expect(await dayWithRoom(3, clock, 6)).toBe('2026-12-07');
    expect(clock.at() > until).toBe(true);
    expect(clock.at() < until.replace(':00.000Z', ':05.000Z')).toBe(true);
  });

  it('with 6 minutes of the day gone already: no wait', async () => {
    const clock = fakeClock('2026-12-06T21:06:00.000Z');
    expect(await dayWithRoom(3, clock, 6)).toBe('2026-12-07');
    expect(clock.sleeps).toEqual([]);
  });

  it('gives a hook that waits a timeout above the longest wait', () => {
    expect(dayWithRoomTimeout(3)).toBeGreaterThan(3 * 60_000 + 1_000);
    expect(dayWithRoomTimeout(3, 6)).toBeGreaterThan(9 * 60_000 + 2_000);
  });
});
