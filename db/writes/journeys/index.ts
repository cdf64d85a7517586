/**
 * The journey confirmation transactions, one module per transition: draft (the quote becomes a
 * journey), hold, release and expiry of a hold, confirm, and company decisions with their
 * deadline; scope.ts holds the scope lock and status writes they share. Workflow activities call
 * these; the benchmark calls them directly to measure the bare cost.
 */
export { draftJourney, draftOrder, type DraftCaller, type DraftResult } from './draft.js';
export { placeHold, placeHoldWithProjection, type PlaceHoldInput, type PlacedHold } from './hold.js';
export { expireHold, releaseHold } from './release.js';
export { confirmScope, type ConfirmInput } from './confirm.js';
export { type AwaitedDecision, type ConfirmOutcome } from './outcome.js';
export { pendingDecisions, recordDecision, type DecisionInput, type DecisionOutcome } from './decide.js';
export {
  expireDecisions,
  releaseOverdueDecisions,
  releaseOverdueScope,
  releaseOverdueScopesOf,
  releaseOverdueScopesOfTrip,
  type OverdueOf,
  settleDecisionDeadline,
} from './deadline.js';
export { closeHoldBatch, JourneyRefusal, type JourneyRow } from './scope.js';
export { confirmDirect, type Admission, type DirectConfirmInput } from './confirm-direct.js';
export { expireOverdueHold, sweepOverdueHolds } from './expire-overdue.js';
