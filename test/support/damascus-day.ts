import { damascusDate, damascusDayEnd } from '../../domain/time.js';

/**
 * Tests that build data "today" and read the server's today need one Damascus day (it turns at
 * 21:00 UTC) for the whole file. Called first in a file's beforeAll, `dayWithRoom` waits, when the
 * day has less than `minutes` left, until just after midnight, so the file runs inside one day.
 */

/** A generous bound on how long one of these files runs. */
export const DAY_ROOM_MINUTES = 3;

/** Past midnight by this much, so the next read of the clock (here or in PostgreSQL) is on the new day. */
const PAST_MIDNIGHT_MS = 1_000;

export interface DayClock {
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Waits, if need be, until the Damascus day has at least `minutes` left, and returns that day
 * (YYYY-MM-DD).
 */
export async function dayWithRoom(minutes = DAY_ROOM_MINUTES, clock: DayClock = {}): Promise<string> {
  const now = clock.now ?? (() => new Date());
  const sleep = clock.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // A loop, not one sleep: the clock is read again after waking rather than trusted to have moved.
  for (;;) {
    const at = now();
    const day = damascusDate(at);
    const left = damascusDayEnd(day).getTime() - at.getTime();
    if (left >= minutes * 60_000) return day;
    await sleep(left + PAST_MIDNIGHT_MS);
  }
}

/**
 * The timeout for a hook that calls `dayWithRoom(minutes)`: the longest wait plus vitest's usual
 * hook time for the work that follows it.
 */
export function dayWithRoomTimeout(minutes = DAY_ROOM_MINUTES): number {
  return minutes * 60_000 + PAST_MIDNIGHT_MS + 60_000;
}
