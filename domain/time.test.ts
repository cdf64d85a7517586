import { describe, expect, it } from 'vitest';
import { damascusDate, damascusDayEnd, damascusDayStart, damascusWallTime } from './time.js';

const iso = (date: Date) => date.toISOString();

describe('Damascus calendar days', () => {
  it('start at local midnight: UTC+3 since late 2022, UTC+2 on winter days before, as the tz database says', () => {
    expect(iso(damascusDayStart('2026-12-04'))).toBe('2026-12-03T21:00:00.000Z');
    expect(iso(damascusDayStart('2021-07-15'))).toBe('2021-07-14T21:00:00.000Z');
    expect(iso(damascusDayStart('2021-01-16'))).toBe('2021-01-15T22:00:00.000Z');
  });

  it('a day whose midnight the clocks skipped starts at the change, and lasts 23 hours', () => {
    // 2021-03-26: at 00:00 (UTC+2) the clocks went to 01:00 (UTC+3).
    expect(iso(damascusDayStart('2021-03-26'))).toBe('2021-03-25T22:00:00.000Z');
    expect(iso(damascusDayEnd('2021-03-26'))).toBe('2021-03-26T21:00:00.000Z');
  });

  it('the day before clocks went back lasts 25 hours', () => {
    // 2021-10-29: at 00:00 (UTC+3) the clocks went back to 23:00 (UTC+2) on the 28th.
    expect(iso(damascusDayStart('2021-10-28'))).toBe('2021-10-27T21:00:00.000Z');
    expect(iso(damascusDayEnd('2021-10-28'))).toBe('2021-10-28T22:00:00.000Z');
  });

  it('every instant of a day, and no other, has that Damascus date', () => {
    for (const date of [
      '1900-06-30',
      '2020-01-01',
      '2021-03-26',
      '2021-10-28',
      '2022-10-28',
      '2026-12-04',
      '9999-12-31',
    ]) {
      const start = damascusDayStart(date).getTime();
      const end = damascusDayEnd(date).getTime();
      expect([date, damascusDate(new Date(start)), damascusDate(new Date(end - 1))]).toEqual([
        date,
        date,
        date,
      ]);
      expect(damascusDate(new Date(start - 1))).not.toBe(date);
      expect(damascusDate(new Date(end))).not.toBe(date);
    }
  });

  it('a wall-clock time is read on the wall clock of that day, not counted from its start', () => {
    expect(iso(damascusWallTime('2026-12-04', 8 * 60))).toBe('2026-12-04T05:00:00.000Z');
    // 2021-03-26 started at 01:00 (the clocks skipped midnight): 08:00 is seven hours after the start.
    expect(iso(damascusWallTime('2021-03-26', 8 * 60))).toBe('2021-03-26T05:00:00.000Z');
    // A time the clocks skipped lands as far after the change (00:30 is 01:30); a repeated one is its first pass.
    expect(iso(damascusWallTime('2021-03-26', 30))).toBe(iso(damascusWallTime('2021-03-26', 90)));
    expect(iso(damascusWallTime('2021-10-28', 23 * 60 + 30))).toBe('2021-10-28T20:30:00.000Z');
  });
});
