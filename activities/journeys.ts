import {
  confirmScope,
  expireDecisions,
  expireHold,
  pendingDecisions,
  JourneyRefusal,
  placeHold,
  recordDecision,
  releaseHold,
  settleDecisionDeadline,
  type ConfirmInput,
  type DecisionInput,
  type PlaceHoldInput,
} from '../db/writes/journeys/index.js';
import type { ConfirmationScope } from '../domain/journey-confirmation.js';
import type { ActivityDeps } from './index.js';
import { refusable } from './refusable.js';

/**
 * The journey-confirmation workflow's effects: each activity is one transaction of
 * db/writes/journeys/, idempotent under retry. A business refusal (seats taken, hold closed...)
 * comes back as `refused` with the API errorCode (./refusable.ts).
 */
export function createJourneyActivities({ db, config }: ActivityDeps) {
  const signing = { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM };
  return {
    placeJourneyHold: (input: PlaceHoldInput) => refusable(JourneyRefusal, () => placeHold(db, input)),
    releaseJourneyHold: (input: { scope: ConfirmationScope; holdBatchId: string }) =>
      refusable(JourneyRefusal, () => releaseHold(db, input)),
    expireJourneyHold: (input: { scope: ConfirmationScope; holdBatchId: string }) => expireHold(db, input),
    confirmJourneyScope: (input: ConfirmInput) =>
      refusable(JourneyRefusal, () => confirmScope(db, input, signing)),
    /** The decide Update's step (runs started before decisions became the API's transactions). */
    recordCompanyDecision: (input: DecisionInput) =>
      refusable(JourneyRefusal, async () => {
        const { outcome, pendingCompanyIds } = await recordDecision(db, input, signing);
        return { outcome, pendingCompanyIds };
      }),
    expireCompanyDecisions: (input: { scope: ConfirmationScope }) => expireDecisions(db, input),
    loadJourneyDecisions: (input: { scope: ConfirmationScope }) => pendingDecisions(db, input),
    settleDecisionDeadline: (input: { scope: ConfirmationScope }) => settleDecisionDeadline(db, input),
  };
}
