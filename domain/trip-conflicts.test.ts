import { describe, expect, it } from 'vitest';
import { findConflicts, selfOverlap, type BusyWindow } from './trip-conflicts.js';

const hour = 3_600_000;
const busy = (kind: BusyWindow['kind'], from: number, until: number, tripId = `t${from}`): BusyWindow => ({
  kind,
  departureAt: from * hour,
  arrivalAt: until * hour,
  tripId,
  scheduleId: null,
});
const planned = (from: number, until: number) => ({ departureAt: from * hour, arrivalAt: until * hour });

describe('findConflicts', () => {
  it('finds a bus or driver busy in an overlapping window, and nothing that only touches it', () => {
    const windows = [busy('BUS_BUSY', 10, 12), busy('DRIVER_BUSY', 20, 23)];
    expect(findConflicts([planned(12, 14), planned(8, 10)], windows)).toEqual([]);
    const found = findConflicts([planned(11, 13), planned(22, 24), planned(1, 2)], windows);
    expect(found.map((conflict) => [conflict.index, conflict.kind, conflict.tripId])).toEqual([
      [0, 'BUS_BUSY', 't10'],
      [1, 'DRIVER_BUSY', 't20'],
    ]);
  });

  it('sees a long trip that started well before the planned one, past shorter ones in between', () => {
    const windows = [busy('BUS_BUSY', 0, 30, 'long'), busy('BUS_BUSY', 5, 6), busy('BUS_BUSY', 7, 8)];
    const found = findConflicts([planned(20, 21)], windows);
    expect(found.map((conflict) => conflict.tripId)).toEqual(['long']);
  });

  it('finds a trip of the route at the very same departure only', () => {
    const windows = [busy('DEPARTURE_TAKEN', 9, 12, 'same')];
    expect(findConflicts([planned(9, 11)], windows)).toEqual([
      expect.objectContaining({ kind: 'DEPARTURE_TAKEN', tripId: 'same' }),
    ]);
    expect(findConflicts([planned(10, 11)], windows)).toEqual([]);
  });

  it('finds every overlapping window among many, for every planned trip', () => {
    const windows = Array.from({ length: 200 }, (_, day) => busy('BUS_BUSY', day * 24 + 8, day * 24 + 10));
    const plans = Array.from({ length: 200 }, (_, day) => planned(day * 24 + 9, day * 24 + 11));
    expect(findConflicts(plans, windows)).toHaveLength(200);
  });
});

describe('selfOverlap', () => {
  it('names the first two planned trips that overlap each other', () => {
    expect(selfOverlap([planned(1, 2), planned(2, 3)])).toBeNull();
    expect(selfOverlap([planned(1, 2), planned(2, 4), planned(3, 5)])).toEqual([1, 2]);
  });
});
