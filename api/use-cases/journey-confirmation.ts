import {
  findHoldBatch,
  findOwnedScope,
  readConfirmationProjection,
  type ConfirmationProjection,
  type OwnedScope,
} from '../../db/queries/journeys.js';
import type { Database } from '../../db/orm.js';
import {
  storeIdempotentAnswer,
  type ClaimedRecord,
  type IdempotentAnswer,
} from '../../db/writes/idempotency.js';
import {
  draftJourney,
  draftOrder,
  expireOverdueHold,
  placeHoldWithProjection,
  releaseOverdueScope,
  releaseHold as releaseHoldBatch,
  type Admission,
  type DraftCaller,
  type DraftResult,
} from '../../db/writes/journeys/index.js';
import { isFinalAnswer, keyReused, keyVerdict, requestHash } from '../../domain/idempotency.js';
import {
  confirmCheck,
  holdClosed,
  leadContactRefusal,
  scaledMilliseconds,
  partyRefusal,
  releaseRefusal,
  type BookingChannel,
  type ConfirmationScope,
  type JourneyTravellers,
  type RuleRefusal,
} from '../../domain/journey-confirmation.js';
import { Refusal } from '../http/errors.js';
import type { JourneyConfirmationClient } from '../temporal/journey-confirmation-client.js';
import { confirmWithoutWorkflow, holdBatchIdOf, replayed, type DirectSettings } from './journey-direct.js';

/**
 * Journey confirmation as the traveller drives it (SPEC "Journey confirmation"), the same on
 * every surface: draft and hold, release, confirm once per idempotency key, and the projection
 * each answers with. The rules are domain/journey-confirmation.ts's. Hold, release and confirm are
 * one transaction each (db/writes/journeys/); the journey-confirmation workflow runs only while
 * companies decide (./journey-direct.ts, api/temporal/journey-confirmation-client.ts).
 */

export interface JourneyConfirmationDeps {
  db: Database;
  workflow: JourneyConfirmationClient;
}

/** What hold and confirm need besides: the hold length, the account caps and the signing key. */
export type DirectDeps = JourneyConfirmationDeps & { settings: DirectSettings };

const refused = (rule: RuleRefusal) => new Refusal(rule.status, rule.code, rule.message, rule.details);

const notFound = (kind: ConfirmationScope['kind']) =>
  kind === 'ORDER'
    ? new Refusal(404, 'ORDER_NOT_FOUND', 'No such journey order')
    : new Refusal(404, 'JOURNEY_NOT_FOUND', 'No such journey');

/** The scope when `userId` owns it; a journey of an order is reached only through the order. */
async function ownedScope(
  db: Pick<Database, 'query'>,
  scope: ConfirmationScope,
  userId: string,
): Promise<OwnedScope> {
  const owned = await findOwnedScope(db, scope, userId);
  if (!owned) throw notFound(scope.kind);
  if (scope.kind === 'JOURNEY' && owned.journeys[0]!.order_id) {
    throw new Refusal(
      409,
      'JOURNEY_IN_ORDER',
      "This journey belongs to a journey order; use the order's routes",
    );
  }
  return owned;
}

/**
 * The confirmation projection of the caller's journey or order (404 for anyone else's). An overdue
 * hold or decision deadline is written first (EXPIRED, or CANCELLED with DECISION_DEADLINE_PASSED),
 * so the projection shows it whether or not a worker has run since.
 */
export async function scopeProjection(
  db: Database,
  scope: ConfirmationScope,
  userId: string,
): Promise<ConfirmationProjection> {
  if (!(await expireOverdueHold(db, scope))) await releaseOverdueScope(db, scope);
  const data = await readConfirmationProjection(db, scope, userId);
  if (!data) throw notFound(scope.kind);
  return data;
}

/** A hold request: the caller, its idempotency key if any, and its request id. */
export interface HoldCall {
  caller: DraftCaller;
  idempotencyKey: string | undefined;
  requestId: string;
}

/**
 * The hold batch id of a hold request (./journey-direct.ts), and the batch its draft looks for: with
 * an idempotency key, a retry of a hold that still lasts is answered with it whatever its quote.
 */
function holdBatchOf(scope: ConfirmationScope, call: HoldCall) {
  const holdBatchId = holdBatchIdOf(scope, call.caller.userId, call.idempotencyKey);
  return { holdBatchId, retried: call.idempotencyKey ? holdBatchId : undefined };
}

/** The hold (one transaction) and its answer: the projection with the batch and when it ends (epoch seconds). */
async function holdDraft(deps: DirectDeps, draft: DraftResult, call: HoldCall, holdBatchId: string) {
  const { userId } = call.caller;
  const { placed: result, projection } = await placeHoldWithProjection(deps.db, {
    scope: draft.scope,
    holdBatchId,
    holdMilliseconds: scaledMilliseconds(deps.settings.holdMinutes, deps.settings.timeScale),
    ownerUserId: userId,
    caps: deps.settings.caps,
    transfer: deps.settings.transfer,
  });
  return {
    ...(projection ?? (await scopeProjection(deps.db, draft.scope, userId))),
    holdBatchId: result.holdBatchId,
    expiresAt: Math.floor(new Date(result.expiresAt).getTime() / 1000),
  };
}

/**
 * The scope's draft (given the batch a retry would find, when the request has a key), then its hold
 * under the batch id its key names.
 */
async function draftThenHold(
  deps: DirectDeps,
  call: HoldCall,
  scope: ConfirmationScope,
  draft: (retriedBatchId: string | undefined) => Promise<DraftResult>,
) {
  const batch = holdBatchOf(scope, call);
  return holdDraft(deps, await draft(batch.retried), call, batch.holdBatchId);
}

/** POST /journeys/{bookingId}/hold: the quote's draft journey, then its hold (one transaction each). */
export async function holdJourney(
  deps: DirectDeps,
  call: HoldCall,
  input: { journeyId: string; quoteId: string },
) {
  return draftThenHold(deps, call, { kind: 'JOURNEY', id: input.journeyId }, (holdBatchId) =>
    draftJourney(deps.db, call.caller, { ...input, holdBatchId }),
  );
}

/** POST /journey-orders/{orderId}/hold: the order bound to its journeys, then its hold. */
export async function holdOrder(
  deps: DirectDeps,
  call: HoldCall,
  input: { orderId: string; journeyIds: string[] },
) {
  return draftThenHold(deps, call, { kind: 'ORDER', id: input.orderId }, (holdBatchId) =>
    draftOrder(deps.db, call.caller, { ...input, holdBatchId }),
  );
}

/**
 * DELETE .../holds/{holdBatchId}: the caller's ACTIVE hold ends at once. A hold whose time ran out
 * is written EXPIRED (should no read have done it yet) and the release refused 409 HOLD_CLOSED.
 */
export async function releaseHold(
  deps: JourneyConfirmationDeps,
  userId: string,
  scope: ConfirmationScope,
  holdBatchId: string,
) {
  await ownedScope(deps.db, scope, userId);
  const refusal = releaseRefusal(await findHoldBatch(deps.db, holdBatchId), scope);
  if (refusal) throw refused(refusal);
  const released = await releaseHoldBatch(deps.db, { scope, holdBatchId });
  if (released.status === 'EXPIRED') throw refused(holdClosed(released.status));
  return { ...released, status: released.status };
}

export interface ConfirmCall {
  userId: string;
  scope: ConfirmationScope;
  /** The request as sent: what the idempotency key is stored with. */
  body: { hold_batch_id: string; idempotency_key: string };
  /** Checks the body against the scope and returns the travellers of each journey. */
  travellersOf: (owned: OwnedScope) => JourneyTravellers[];
  channel: BookingChannel;
}

/**
 * POST .../confirm with its idempotency record (scope confirm:{userId}), in one transaction
 * (db/writes/journeys/confirm-direct.ts): the key is claimed and its record locked first, so
 * duplicates in flight take turns and act once; a stored answer is replayed; a key used with
 * another body is refused. Input refused by the checks (ownership, travellers, the hold, a lead
 * traveller the company could not reach: no phone sent and none on the account) leaves nothing
 * behind; a final refusal of the confirm itself is stored as the key's answer. Answers the HTTP
 * status and body to send.
 */
export async function confirmOnce(deps: DirectDeps, call: ConfirmCall): Promise<IdempotentAnswer> {
  const record = {
    scope: `confirm:${call.userId}`,
    key: call.body.idempotency_key,
    requestHash: requestHash({ scope: call.scope, body: call.body }),
  };
  let admitted = false;
  const admit = async (claimed: ClaimedRecord, reads: Pick<Database, 'query'>): Promise<Admission> => {
    const verdict = keyVerdict(claimed, record.requestHash);
    if (verdict.kind === 'REUSED') throw refused(keyReused('confirm'));
    if (verdict.kind === 'REPLAY') return { answer: verdict.answer };
    const owned = await ownedScope(reads, call.scope, call.userId);
    const journeys = call.travellersOf(owned);
    for (const journey of owned.journeys) {
      const sent = journeys.find((entry) => entry.journeyId === journey.id)?.travellers ?? [];
      const mismatch = partyRefusal({ id: journey.id, partySize: journey.party_size }, sent);
      if (mismatch) throw refused(mismatch);
    }
    const batch = await findHoldBatch(reads, call.body.hold_batch_id);
    const check = confirmCheck(batch, call.scope, claimed.claimedBefore);
    if (check.refusal) throw refused(check.refusal);
    // Not stored, like every refusal here: once the account has its phone, the same key confirms.
    const unreachable = check.confirmedBefore ? null : leadContactRefusal(journeys, owned.ownerPhone);
    if (unreachable) throw refused(unreachable);
    admitted = true;
    return { holdBatchId: batch!.id, journeys, confirmedBefore: check.confirmedBefore };
  };
  try {
    return replayed(
      await confirmWithoutWorkflow(deps, {
        scope: call.scope,
        ownerUserId: call.userId,
        channel: call.channel,
        record,
        admit,
      }),
    );
  } catch (error) {
    // A refusal of the account's state as it stands (the unpaid cap) is not stored: once a booking
    // is paid or cancelled, the client's retry with the same key confirms.
    if (admitted && error instanceof Refusal && isFinalAnswer(error.status, error.code)) {
      const { status, code, message, details } = error;
      await storeIdempotentAnswer(deps.db, record, {
        status,
        body: { errorCode: code, message, ...(details ? { details } : {}) },
      });
    }
    throw error;
  }
}
