import { damascusDate, damascusDayEnd, damascusDayStart } from '../../domain/time.js';

/**
 * Tests that build data "today" and read the server's today need one Damascus day (it turns at
 * 21:00 UTC) for the whole file. `dayWithRoom` waits, when the day has less than `minutes` left,
 * until just after midnight, so the file runs inside one day. test/support/one-damascus-day.setup.ts
 * calls it before every test file is imported; a file may call it again for a day to name.
 */

/**
 * A generous bound on how long one test file runs: the longest that reads the day ran 38 s in CI
 * (trip-schedule-crash; trip-schedules 30 s), every other but the contract fuzzing under 2 minutes.
 */
export const DAY_ROOM_MINUTES = 3;

/** Past midnight by this much, so the next read of the clock (here or in PostgreSQL) is on the new day. */
const PAST_MIDNIGHT_MS = 1_000;

export interface DayClock {
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Waits, if need be, until the Damascus day has at least `minutes` left and, when `behind` is
 * given, at least `behind` minutes gone (for a file that dates "minutes ago" instants on today),
 * and returns that day (YYYY-MM-DD).
 */
export async function dayWithRoom(
  minutes = DAY_ROOM_MINUTES,
  clock: DayClock = {},
  behind = 0,
): Promise<string> {
  const now = clock.now ?? (() => new Date());
  const sleep = clock.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // A loop, not one sleep: the clock is read again after waking rather than trusted to have moved.
  for (;;) {
    const at = now();
    const day = damascusDate(at);
    const left = damascusDayEnd(day).getTime() - at.getTime();
    const gone = at.getTime() - damascusDayStart(day).getTime();
    if (left < minutes * 60_000) await sleep(left + PAST_MIDNIGHT_MS);
    else if (gone < behind * 60_000) await sleep(behind * 60_000 - gone + PAST_MIDNIGHT_MS);
    else return day;
  }
}

/**
 * The timeout for a hook that calls `dayWithRoom(minutes, clock, behind)`: the longest wait plus
 * vitest's usual hook time for the work that follows it.
 */
export function dayWithRoomTimeout(minutes = DAY_ROOM_MINUTES, behind = 0): number {
  return (minutes + behind) * 60_000 + 2 * PAST_MIDNIGHT_MS + 60_000;
}
