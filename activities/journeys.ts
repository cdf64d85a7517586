import {
  confirmScope,
  expireDecisions,
  expireHold,
  pendingDecisions,
  JourneyRefusal,
  placeHold,
  recordDecision,
  releaseHold,
  releaseOverdueDecisions,
  settleDecisionDeadline,
  type ConfirmInput,
  type DecisionInput,
  type PlaceHoldInput,
} from '../db/writes/journeys/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/orm.js';
import type { ConfirmationScope } from '../domain/journey-confirmation.js';
import { transferSettings } from '../domain/journey-search.js';
import type { ActivityDeps } from './index.js';
import { refusable } from './refusable.js';

/**
 * The journey-confirmation workflow's effects: each activity is one transaction of
 * db/writes/journeys/, idempotent under retry. A business refusal (seats taken, hold closed...)
 * comes back as `refused` with the API errorCode (./refusable.ts).
 */
export function createJourneyActivities({ db, config, logger }: ActivityDeps) {
  const signing = { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM, logger };
  // The workflow's inputs carry no configuration: the change-time rules come from the worker's.
  const transfer = transferSettings(config);
  const overdue = overdueDecisionSweep(db, logger);
  return {
    placeJourneyHold: (input: Omit<PlaceHoldInput, 'transfer'>) =>
      refusable(JourneyRefusal, () => placeHold(db, { ...input, transfer })),
    releaseJourneyHold: (input: { scope: ConfirmationScope; holdBatchId: string }) =>
      refusable(JourneyRefusal, () => releaseHold(db, input)),
    expireJourneyHold: (input: { scope: ConfirmationScope; holdBatchId: string }) => expireHold(db, input),
    confirmJourneyScope: (input: Omit<ConfirmInput, 'transfer'>) =>
      refusable(JourneyRefusal, () => confirmScope(db, { ...input, transfer }, signing)),
    /** The decide Update's step (runs started before decisions became the API's transactions). */
    recordCompanyDecision: (input: DecisionInput) =>
      refusable(JourneyRefusal, async () => {
        const { outcome, pendingCompanyIds } = await recordDecision(db, input, signing);
        return { outcome, pendingCompanyIds };
      }),
    expireCompanyDecisions: (input: { scope: ConfirmationScope }) => expireDecisions(db, input),
    loadJourneyDecisions: (input: { scope: ConfirmationScope }) => pendingDecisions(db, input),
    /** A decision deadline's release; it also starts a sweep of the scopes already overdue. */
    settleDecisionDeadline: async (input: { scope: ConfirmationScope }) => {
      const settled = await settleDecisionDeadline(db, input);
      void overdue.kick();
      return settled;
    },
  };
}

/**
 * A sweep of overdue decision deadlines (db/writes/journeys/deadline.ts `releaseOverdueDecisions`),
 * one at a time per instance: each deadline's release kicks the activities' one, the worker's
 * periodic sweeper (worker/hold-sweeper.ts) its own, and it releases batch after batch until none
 * is left overdue, then once more if kicked meanwhile. It is not the activity's result: its work is
 * idempotent, and what it misses (a scope held by another transaction, a worker stopping) each
 * scope's own process or the next periodic sweep releases. kick() answers when the sweep it joined
 * has ended.
 */
export function overdueDecisionSweep(db: Database, logger: Logger): { kick(): Promise<void> } {
  let running: Promise<void> | null = null;
  let kickedAgain = false;
  const sweep = async () => {
    let released = 0;
    do {
      kickedAgain = false;
      let batch: number;
      do {
        batch = await releaseOverdueDecisions(db);
        released += batch;
      } while (batch > 0);
    } while (kickedAgain);
    if (released) logger.debug({ released }, 'overdue decision deadlines released');
  };
  return {
    kick() {
      if (running) {
        kickedAgain = true;
        return running;
      }
      running = sweep()
        .catch((error: unknown) => logger.debug({ err: error }, 'overdue decision sweep stopped'))
        .finally(() => {
          running = null;
        });
      return running;
    },
  };
}
