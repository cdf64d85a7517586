import {
  confirmScope,
  expireDecisions,
  expireHold,
  JourneyRefusal,
  placeHold,
  recordDecision,
  releaseHold,
  type ConfirmInput,
  type ConfirmationScope,
  type DecisionInput,
  type PlaceHoldInput,
} from '../db/writes/journeys.js';
import type { ActivityDeps } from './index.js';

/** A business refusal, returned as a value: it is an answer for the caller, not a failed activity. */
export interface Refusal {
  status: 400 | 404 | 409;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export type Refusable<T> = { done: T; refused?: never } | { refused: Refusal; done?: never };

/**
 * The journey-confirmation workflow's effects: each activity is one transaction of
 * db/writes/journeys.ts, idempotent under retry. A business refusal (seats taken, hold closed...)
 * comes back as `refused` with the API errorCode, which the workflow hands to the Update caller;
 * anything else (a lost connection) fails the attempt and is retried.
 */
export function createJourneyActivities({ db, config }: ActivityDeps) {
  const signing = { privateKeyPem: config.SIGNING_PRIVATE_KEY_PEM };
  return {
    placeJourneyHold: (input: PlaceHoldInput) => refusable(() => placeHold(db, input)),
    releaseJourneyHold: (input: { scope: ConfirmationScope; holdBatchId: string }) =>
      refusable(() => releaseHold(db, input)),
    expireJourneyHold: (input: { scope: ConfirmationScope; holdBatchId: string }) => expireHold(db, input),
    confirmJourneyScope: (input: ConfirmInput) => refusable(() => confirmScope(db, input, signing)),
    recordCompanyDecision: (input: DecisionInput) => refusable(() => recordDecision(db, input, signing)),
    expireCompanyDecisions: (input: { scope: ConfirmationScope }) => expireDecisions(db, input),
  };
}

async function refusable<T>(work: () => Promise<T>): Promise<Refusable<T>> {
  try {
    return { done: await work() };
  } catch (error) {
    if (error instanceof JourneyRefusal) {
      return {
        refused: {
          status: error.status,
          code: error.code,
          message: error.message,
          ...(error.details ? { details: error.details } : {}),
        },
      };
    }
    throw error;
  }
}
