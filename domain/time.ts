/** Operating dates are calendar dates in Asia/Damascus. */
export const OPERATING_TIME_ZONE = 'Asia/Damascus';

const dateFormatter = new Intl.DateTimeFormat('en-CA', {
  timeZone: OPERATING_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The Damascus calendar date (YYYY-MM-DD) of an instant. */
export function damascusDate(instant: Date): string {
  return dateFormatter.format(instant);
}

const wallClock = new Intl.DateTimeFormat('en-CA', {
  timeZone: OPERATING_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** How far Damascus clocks are ahead of UTC at `instant`, in milliseconds. */
function damascusOffsetMs(instant: number): number {
  const part = Object.fromEntries(wallClock.formatToParts(instant).map(({ type, value }) => [type, value]));
  const wall = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  wall.setUTCFullYear(+part.year!, +part.month! - 1, +part.day!);
  wall.setUTCHours(+part.hour!, +part.minute!, +part.second!);
  return wall.getTime() - Math.floor(instant / 1000) * 1000;
}

const HOUR_MS = 3_600_000;
const wallInstants = new Map<number, number>();

/**
 * The instant Damascus wall clocks read `wall` (a UTC-encoded local time). A time the clocks skipped
 * is read with the offset before the change, so it lands as far after the change (00:30 on a day
 * whose midnight was skipped is 01:30, and that midnight the change itself); a time they repeated
 * is its first pass.
 */
function wallInstantMs(wall: number): number {
  if (Number.isNaN(wall)) return wall;
  let instant = wallInstants.get(wall);
  if (instant === undefined) {
    // The offset in force three hours before (before any change at `wall`)...
    instant = wall - damascusOffsetMs(wall - 3 * HOUR_MS);
    // ...unless its guess lands before `wall` on the wall clock: then the offset at that instant.
    if (instant + damascusOffsetMs(instant) < wall) instant = wall - damascusOffsetMs(instant);
    if (wallInstants.size >= 4_096) wallInstants.clear();
    wallInstants.set(wall, instant);
  }
  return instant;
}

/**
 * The instant a Damascus calendar day starts, from the time-zone database as PostgreSQL's
 * `at time zone 'Asia/Damascus'` reads it: UTC+3 all year since late 2022, UTC+2 on winter days
 * before, and on a day whose midnight the clocks skipped, the instant of the change.
 */
export function damascusDayStart(date: string): Date {
  return new Date(wallInstantMs(Date.parse(`${date}T00:00:00Z`)));
}

/** The first instant after a Damascus calendar day (23 or 25 hours after its start where clocks changed). */
export function damascusDayEnd(date: string): Date {
  return new Date(wallInstantMs(Date.parse(`${date}T00:00:00Z`) + 24 * HOUR_MS));
}

/**
 * The instant Damascus clocks read `minutes` past midnight on `date` (a timetable's HH:MM), read
 * from the wall clock, not added to the day's start: on a day the clocks changed before that time
 * the two differ by the change.
 */
export function damascusWallTime(date: string, minutes: number): Date {
  return new Date(wallInstantMs(Date.parse(`${date}T00:00:00Z`) + minutes * 60_000));
}

export function addMinutes(instant: Date, minutes: number): Date {
  return new Date(instant.getTime() + minutes * 60_000);
}
