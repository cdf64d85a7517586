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
const dayStarts = new Map<number, number>();

/** The first instant whose Damascus wall clock reads `midnight` (a UTC-encoded local midnight) or later. */
function dayStartMs(midnight: number): number {
  if (Number.isNaN(midnight)) return midnight;
  let start = dayStarts.get(midnight);
  if (start === undefined) {
    // The offset in force just before local midnight (after a change at midnight, the new one)...
    start = midnight - damascusOffsetMs(midnight - 3 * HOUR_MS);
    // ...unless its guess lands before midnight on the wall clock: then the offset at that instant.
    if (start + damascusOffsetMs(start) < midnight) start = midnight - damascusOffsetMs(start);
    if (dayStarts.size >= 4_096) dayStarts.clear();
    dayStarts.set(midnight, start);
  }
  return start;
}

/**
 * The instant a Damascus calendar day starts, from the time-zone database as PostgreSQL's
 * `at time zone 'Asia/Damascus'` reads it: UTC+3 all year since late 2022, UTC+2 on winter days
 * before, and on a day whose midnight the clocks skipped, the instant of the change.
 */
export function damascusDayStart(date: string): Date {
  return new Date(dayStartMs(Date.parse(`${date}T00:00:00Z`)));
}

/** The first instant after a Damascus calendar day (23 or 25 hours after its start where clocks changed). */
export function damascusDayEnd(date: string): Date {
  return new Date(dayStartMs(Date.parse(`${date}T00:00:00Z`) + 24 * HOUR_MS));
}

export function addMinutes(instant: Date, minutes: number): Date {
  return new Date(instant.getTime() + minutes * 60_000);
}
