import type { Database } from '../orm.js';

/**
 * Gives back one point of a rate-limit counter (rate_limits, api/http/rate-limit.ts) in one
 * statement: only while the counter is still the window that ends at `windowEndsAt` (within
 * `slackMs`: a later window ends at least a whole duration later), and never below zero. The store
 * counts refused requests too, so a counter past `limit` holds `limit` points of requests let
 * through: it becomes that less one.
 */
export async function refundRateLimitPoint(
  db: Pick<Database, 'pool'>,
  point: { storedKey: string; windowEndsAt: number; slackMs: number; limit: number },
): Promise<void> {
  await db.pool.query(
    `update rate_limits set points = least(points, $4) - 1
      where key = $1 and points > 0 and expire between $2::bigint - $3 and $2::bigint + $3`,
    [point.storedKey, point.windowEndsAt, point.slackMs, point.limit],
  );
}
