import { describe, expect, it } from 'vitest';
import {
  addDays,
  bucketMeasures,
  comparedWindows,
  countInBuckets,
  datesIn,
  earliestAnalyticsDay,
  FREQUENCY_BUCKETS,
  indicator,
  indicatorWindows,
  measuresIn,
  monthOf,
  NO_MEASURES,
  periodHorizon,
  rankRoutes,
  seriesBuckets,
  weekStart,
  type DayMeasures,
} from './analytics.js';

const TODAY = '2026-03-04'; // a Wednesday

describe('analytics windows and buckets', () => {
  it('compares today with yesterday, the last 7 days with the 7 before, the last 30 with the 30 before', () => {
    expect(indicatorWindows('daily', TODAY)).toEqual({
      current: { from: TODAY, to: TODAY },
      previous: { from: '2026-03-03', to: '2026-03-03' },
    });
    expect(indicatorWindows('weekly', TODAY)).toEqual({
      current: { from: '2026-02-26', to: TODAY },
      previous: { from: '2026-02-19', to: '2026-02-25' },
    });
    expect(indicatorWindows('monthly', TODAY).current.from).toBe('2026-02-03');
    expect(comparedWindows(14, TODAY).previous).toEqual({ from: '2026-02-05', to: '2026-02-18' });
  });

  it('builds 30 days, 12 ISO weeks (Mondays) and 12 months, oldest first, ending now', () => {
    const { days, weeks, months } = seriesBuckets(TODAY);
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toBe(TODAY);
    expect(days[0]).toBe('2026-02-03');
    expect(weeks.at(-1)).toBe('2026-03-02');
    expect(weeks[0]).toBe('2025-12-15');
    expect(months).toEqual([
      '2025-04',
      '2025-05',
      '2025-06',
      '2025-07',
      '2025-08',
      '2025-09',
      '2025-10',
      '2025-11',
      '2025-12',
      '2026-01',
      '2026-02',
      '2026-03',
    ]);
    expect(weekStart('2026-03-08')).toBe('2026-03-02'); // a Sunday belongs to the week before
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(monthOf(TODAY)).toBe('2026-03');
  });

  it('gives each period the horizon of its series, and knows the earliest day any of them reads', () => {
    expect(periodHorizon('daily', TODAY)).toEqual({ from: '2026-02-03', to: TODAY });
    expect(periodHorizon('weekly', TODAY)).toEqual({ from: '2025-12-15', to: TODAY });
    expect(periodHorizon('monthly', TODAY)).toEqual({ from: '2025-04-01', to: TODAY });
    expect(earliestAnalyticsDay(TODAY)).toBe('2025-04-01');
  });

  it('sums day measures into windows and buckets, leaving days outside out', () => {
    const day = (bookings: number, revenue: number): DayMeasures => ({ ...NO_MEASURES, bookings, revenue });
    const byDay = new Map([
      ['2026-03-04', day(2, 200)],
      ['2026-03-02', day(1, 100)],
      ['2026-02-28', day(5, 500)],
      ['2025-01-01', day(9, 900)],
    ]);
    expect(measuresIn(byDay, { from: '2026-03-01', to: TODAY })).toMatchObject({ bookings: 3, revenue: 300 });
    const weekly = bucketMeasures(byDay, ['2026-02-23', '2026-03-02'], weekStart);
    expect(weekly.map((measures) => measures.bookings)).toEqual([5, 3]);
  });

  it('states a change in percent, or null against nothing', () => {
    expect(indicator(150, 100)).toEqual({ current: 150, previous: 100, changePercent: 50 });
    expect(indicator(1, 3).changePercent).toBe(-66.7);
    expect(indicator(5, 0).changePercent).toBeNull();
  });

  it('puts travellers into frequency buckets and ranks routes by revenue', () => {
    const customersByTrips = new Map([
      [1, 10],
      [2, 4],
      [4, 3],
      [5, 1],
      [12, 2],
    ]);
    expect(countInBuckets(FREQUENCY_BUCKETS, customersByTrips)).toEqual([
      { label: '1', count: 10 },
      { label: '2', count: 4 },
      { label: '3-5', count: 4 },
      { label: '6-10', count: 0 },
      { label: '11+', count: 2 },
    ]);
    const ranked = rankRoutes([
      { routeId: 'b', revenue: 100, seatsSold: 1 },
      { routeId: 'a', revenue: 300, seatsSold: 1 },
      { routeId: 'c', revenue: 100, seatsSold: 5 },
    ]);
    expect(ranked.map((route) => [route.routeId, route.rank])).toEqual([
      ['a', 1],
      ['c', 2],
      ['b', 3],
    ]);
  });
});

describe('datesIn', () => {
  it('lists every date of a range in order, none for a range ending before it starts', () => {
    expect(datesIn({ from: '2024-02-28', to: '2024-03-01' })).toEqual([
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
    expect(datesIn({ from: TODAY, to: TODAY })).toEqual([TODAY]);
    expect(datesIn({ from: TODAY, to: '2026-03-03' })).toEqual([]);
  });

  it('ends at 9999-12-31, the last date a report may name (the day after it sorts before it)', () => {
    expect(datesIn({ from: '9999-12-30', to: '9999-12-31' })).toEqual(['9999-12-30', '9999-12-31']);
  });
});
