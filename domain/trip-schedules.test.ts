import { describe, expect, it } from 'vitest';
import {
  batchCount,
  batchOf,
  expandTimetable,
  pendingDepartures,
  processStatusOf,
  rangeDays,
  timetableIssues,
  weekday,
  type ScheduleTimetable,
} from './trip-schedules.js';

const timetable = (change: Partial<ScheduleTimetable> = {}): ScheduleTimetable => ({
  startDate: '2026-12-07',
  endDate: '2026-12-13',
  departureTimes: ['08:00'],
  daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
  durationMinutes: 120,
  notBefore: 0,
  ...change,
});

describe('schedule dates', () => {
  it('counts operating dates with both ends included', () => {
    expect(rangeDays('2026-12-01', '2026-12-01')).toBe(1);
    expect(rangeDays('2026-12-01', '2027-05-29')).toBe(180);
    expect(rangeDays('2026-12-02', '2026-12-01')).toBe(0);
  });

  it('accepts 180 days, refuses 181, an end before the start and a start before today', () => {
    expect(timetableIssues({ startDate: '2026-12-01', endDate: '2027-05-29' }, '2026-12-01')).toEqual([]);
    expect(timetableIssues({ startDate: '2026-12-01', endDate: '2027-05-30' }, '2026-12-01')).toEqual([
      expect.objectContaining({ code: 'SCHEDULE_RANGE_TOO_LONG', path: 'end_date' }),
    ]);
    expect(timetableIssues({ startDate: '2026-12-05', endDate: '2026-12-04' }, '2026-12-01')).toEqual([
      expect.objectContaining({ code: 'END_BEFORE_START' }),
    ]);
    expect(timetableIssues({ startDate: '2026-11-30', endDate: '2026-12-04' }, '2026-12-01')).toEqual([
      expect.objectContaining({ code: 'START_DATE_IN_PAST', path: 'start_date' }),
    ]);
  });
});

describe('expandTimetable', () => {
  it('plans each departure time on each chosen day, in time order, with its arrival', () => {
    const departures = expandTimetable(timetable({ departureTimes: ['18:30', '06:00'], daysOfWeek: [1, 3] }));
    // 2026-12-07 is a Monday, 2026-12-09 a Wednesday.
    expect(departures.map((d) => [d.operatingDate, new Date(d.departureAt).toISOString()])).toEqual([
      ['2026-12-07', '2026-12-07T03:00:00.000Z'],
      ['2026-12-07', '2026-12-07T15:30:00.000Z'],
      ['2026-12-09', '2026-12-09T03:00:00.000Z'],
      ['2026-12-09', '2026-12-09T15:30:00.000Z'],
    ]);
    expect(departures[0]!.arrivalAt - departures[0]!.departureAt).toBe(120 * 60_000);
  });

  it('reads each departure on the Damascus wall clock of its day, also on a day the clocks skipped midnight', () => {
    // 2021-03-26 started at 01:00 (UTC+3 from then): 08:00 there is 05:00Z, as on any UTC+3 day.
    const departures = expandTimetable(
      timetable({ startDate: '2021-03-25', endDate: '2021-03-26', departureTimes: ['08:00'] }),
    );
    expect(departures.map((d) => new Date(d.departureAt).toISOString())).toEqual([
      '2021-03-25T06:00:00.000Z',
      '2021-03-26T05:00:00.000Z',
    ]);
  });

  it('plans an instant once and in time order when two times of a skipped hour name it', () => {
    // 2021-03-26 skipped 00:00-01:00: 00:30 reads as 01:30, so 00:30 and 01:30 are one departure.
    const departures = expandTimetable(
      timetable({
        startDate: '2021-03-26',
        endDate: '2021-03-26',
        departureTimes: ['00:30', '01:15', '01:30'],
      }),
    );
    expect(departures.map((d) => new Date(d.departureAt).toISOString())).toEqual([
      '2021-03-25T22:15:00.000Z',
      '2021-03-25T22:30:00.000Z',
    ]);
  });

  it('takes dates and weekdays in Damascus: 01:00 on Monday leaves on Sunday in UTC and is a Monday trip', () => {
    const departures = expandTimetable(timetable({ departureTimes: ['01:00'], daysOfWeek: [1] }));
    expect(departures).toHaveLength(1);
    expect(departures[0]!.operatingDate).toBe('2026-12-07');
    expect(new Date(departures[0]!.departureAt).toISOString()).toBe('2026-12-06T22:00:00.000Z');
    expect(weekday('2026-12-07')).toBe(1);
  });

  it('leaves out departures not after notBefore, so a plan made today skips what already left', () => {
    const notBefore = Date.parse('2026-12-07T05:00:00Z');
    const departures = expandTimetable(timetable({ departureTimes: ['06:00', '12:00'], notBefore }));
    expect(departures[0]!.departureAt).toBe(Date.parse('2026-12-07T09:00:00Z'));
    expect(departures).toHaveLength(13);
  });

  it('names a time given twice once', () => {
    expect(expandTimetable(timetable({ departureTimes: ['08:00', '08:00'] }))).toHaveLength(7);
  });
});

describe('batches', () => {
  const items = Array.from({ length: 7 }, (_, index) => index);

  it('splits the departures in batches and tells what is left after some are done', () => {
    expect(batchCount(7, 3)).toBe(3);
    expect([0, 1, 2].map((index) => batchOf(items, index, 3))).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(pendingDepartures(items, 2, 3)).toEqual([6]);
    expect(pendingDepartures(items, 3, 3)).toEqual([]);
  });

  it('shows the phase and, while committing, the batches done as ProcessStatus', () => {
    const progress = {
      batchesTotal: 11,
      batchesDone: 3,
      tripsPlanned: 1080,
      tripsCreated: 300,
      tripsSkipped: 0,
    };
    expect(processStatusOf({ ...progress, phase: 'COMMITTING' })).toBe('COMMITTING 3/11');
    expect(processStatusOf({ ...progress, phase: 'COMPLETED' })).toBe('COMPLETED');
  });
});
