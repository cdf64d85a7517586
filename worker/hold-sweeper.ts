import { overdueDecisionSweep } from '../activities/journeys.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/orm.js';
import { sweepOverdueHolds } from '../db/writes/journeys/index.js';
import { startPeriodicCheck } from './periodic.js';

/**
 * The background sweep of journey and order holds and of overdue decision deadlines, every
 * HOLD_SWEEP_SECONDS on each worker.
 *
 * Holds: no workflow timer ends them any more, and the next writer or a read of the journey does it
 * lazily, so this only keeps the stored state tidy for readers that never touch the journey
 * (reports, operators): overdue holds are written EXPIRED, one transaction each.
 *
 * Decisions: a REQUESTED scope's own journey-confirmation process settles its deadline, and each
 * such release sweeps the others already overdue; but a process an operator terminated or
 * cancelled never wakes, and with no other deadline falling nothing would release its seats. The
 * deadline is the database's (README "Journey confirmation"), so this sweep releases every scope
 * still REQUESTED past it as its process would (db/writes/journeys/deadline.ts
 * `releaseOverdueDecisions`: the scope CANCELLED with DECISION_DEADLINE_PASSED, seats RELEASED,
 * booking.cancelled written once). Each release runs under the scope lock and only on a scope
 * still REQUESTED, so a live process settling the same scope at the same moment, another worker's
 * sweep or a decision leave one outcome and one set of events.
 *
 * Both are idempotent, so several workers may sweep. The timer does not keep the process alive; it
 * stops once the worker stops running (worker/periodic.ts).
 */
export function startHoldSweeper(deps: {
  config: Config;
  db: Database;
  logger: Logger;
  /** False once the worker is shutting down: the sweeps stop. */
  running: () => boolean;
}): () => void {
  const decisions = overdueDecisionSweep(deps.db, deps.logger);
  return startPeriodicCheck({
    everyMs: deps.config.HOLD_SWEEP_SECONDS * 1000,
    running: deps.running,
    check: () =>
      sweepOverdueHolds(deps.db)
        .then((expired) => {
          if (expired) deps.logger.debug({ expired }, 'overdue journey holds expired');
        })
        .catch((error: unknown) => deps.logger.debug({ err: error }, 'hold sweep skipped'))
        // kick() never rejects: a failed sweep is logged, and the next turn sweeps again.
        .then(() => decisions.kick()),
    logger: deps.logger,
    skipped: 'hold sweep skipped',
  });
}
