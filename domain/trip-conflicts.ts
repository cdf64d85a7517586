/**
 * Conflicts of planned trips with what is already there. A bus or a driver is busy from a trip's
 * departure to its arrival (half-open: a trip may leave the minute the previous one arrives); a
 * route cannot have two trips at the same departure. Busy windows come from trips and from the
 * trips that schedules still being committed have claimed but not yet created. A trip running late
 * keeps its bus and driver until its expected arrival (db/queries/planning.ts busyWindowSql).
 */

/**
 * How far past its planned arrival a trip's busy window may reach: the longest delay MARK_DELAYED
 * announces (1440 minutes). A departure later than that still frees the bus and driver this long
 * after the planned arrival (the readiness of the next trip catches a bus still out).
 */
export const MAX_LATENESS_MINUTES = 1440;

export type ConflictKind = 'BUS_BUSY' | 'DRIVER_BUSY' | 'DEPARTURE_TAKEN';

export interface PlannedWindow {
  /** Epoch milliseconds. */
  departureAt: number;
  arrivalAt: number;
}

export interface BusyWindow extends PlannedWindow {
  /** What the window blocks: the bus, the driver, or a departure of the route. */
  kind: ConflictKind;
  /** The trip that occupies it, or null for a trip a schedule has claimed but not yet created. */
  tripId: string | null;
  /** The schedule whose claimed trip occupies it, when it is one. */
  scheduleId: string | null;
}

export interface Conflict {
  /** Index of the planned trip in the list given. */
  index: number;
  kind: ConflictKind;
  departureAt: number;
  tripId: string | null;
  scheduleId: string | null;
  busyFrom: number;
  busyUntil: number;
}

const overlaps = (a: PlannedWindow, b: PlannedWindow) =>
  a.departureAt < b.arrivalAt && b.departureAt < a.arrivalAt;

/** Busy windows of one kind sorted by departure, with the running maximum of their arrivals. */
class BusyIndex {
  private readonly windows: BusyWindow[];
  private readonly maxArrival: number[];

  constructor(windows: BusyWindow[]) {
    this.windows = [...windows].sort((a, b) => a.departureAt - b.departureAt);
    let max = -Infinity;
    this.maxArrival = this.windows.map((window) => (max = Math.max(max, window.arrivalAt)));
  }

  /** The windows overlapping `planned`: those departing before it arrives, scanned back while any may still reach it. */
  overlapping(planned: PlannedWindow): BusyWindow[] {
    let low = 0;
    let high = this.windows.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.windows[middle]!.departureAt < planned.arrivalAt) low = middle + 1;
      else high = middle;
    }
    const found: BusyWindow[] = [];
    for (let index = low - 1; index >= 0 && this.maxArrival[index]! > planned.departureAt; index--) {
      if (overlaps(this.windows[index]!, planned)) found.push(this.windows[index]!);
    }
    return found.reverse();
  }
}

/** Every conflict of every planned trip, in planned order. */
export function findConflicts(planned: readonly PlannedWindow[], busy: readonly BusyWindow[]): Conflict[] {
  const bus = new BusyIndex(busy.filter((window) => window.kind === 'BUS_BUSY'));
  const driver = new BusyIndex(busy.filter((window) => window.kind === 'DRIVER_BUSY'));
  const departures = new Map<number, BusyWindow[]>();
  for (const window of busy.filter((candidate) => candidate.kind === 'DEPARTURE_TAKEN')) {
    departures.set(window.departureAt, [...(departures.get(window.departureAt) ?? []), window]);
  }
  return planned.flatMap((window, index) =>
    [
      ...bus.overlapping(window),
      ...driver.overlapping(window),
      ...(departures.get(window.departureAt) ?? []),
    ].map((found) => ({
      index,
      kind: found.kind,
      departureAt: window.departureAt,
      tripId: found.tripId,
      scheduleId: found.scheduleId,
      busyFrom: found.departureAt,
      busyUntil: found.arrivalAt,
    })),
  );
}

/** The first pair of planned trips (sorted by departure) that overlap each other, if any. */
export function selfOverlap(planned: readonly PlannedWindow[]): [number, number] | null {
  for (let index = 1; index < planned.length; index++) {
    if (planned[index]!.departureAt < planned[index - 1]!.arrivalAt) return [index - 1, index];
  }
  return null;
}

/** A conflict as the API reports it (ISO instants, snake_case). */
export function conflictView(conflict: Conflict) {
  return {
    kind: conflict.kind,
    departure_at: new Date(conflict.departureAt).toISOString(),
    trip_id: conflict.tripId,
    schedule_id: conflict.scheduleId,
    busy_from: new Date(conflict.busyFrom).toISOString(),
    busy_until: new Date(conflict.busyUntil).toISOString(),
  };
}

export type ConflictView = ReturnType<typeof conflictView>;
