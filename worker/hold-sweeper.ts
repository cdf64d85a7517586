import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/orm.js';
import { sweepOverdueHolds } from '../db/writes/journeys/index.js';

/**
 * The background sweep of journey and order holds: no workflow timer ends them any more, and the
 * next writer or a read of the journey does it lazily, so this only keeps the stored state tidy for
 * readers that never touch the journey (reports, operators). Every HOLD_SWEEP_SECONDS each worker
 * writes overdue holds EXPIRED (one transaction each, idempotent, so several workers may sweep).
 * The timer does not keep the process alive; it stops when the worker's pool is closed.
 */
export function startHoldSweeper(deps: { config: Config; db: Database; logger: Logger }): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepOverdueHolds(deps.db)
      .then((expired) => {
        if (expired) deps.logger.debug({ expired }, 'overdue journey holds expired');
      })
      .catch((error: unknown) => deps.logger.debug({ err: error }, 'hold sweep skipped'))
      .finally(() => {
        running = false;
      });
  }, deps.config.HOLD_SWEEP_SECONDS * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
