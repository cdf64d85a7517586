import type { JourneyTravellers } from '../../../domain/journey-confirmation.js';
import { readConfirmationProjection } from '../../queries/journeys.js';
import { confirmationProcessIds } from '../../queries/process-ids.js';
import type { Database } from '../../orm.js';
import type { SigningOptions } from '../boarding-credentials.js';
import {
  lockIdempotencyKey,
  storeIdempotentAnswer,
  type ClaimedRecord,
  type IdempotentAnswer,
} from '../idempotency.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { confirmLocked, type ConfirmInput } from './confirm.js';
import { lockScopeTrips, type ConfirmOutcome } from './outcome.js';
import { journeyTransaction, lockScope, serialRows } from './scope.js';

/** What the request's checks let through: a stored answer to give again, or the confirm to run. */
export type Admission =
  | { answer: IdempotentAnswer }
  | {
      holdBatchId: string;
      journeys: JourneyTravellers[];
      /** The hold was consumed by an earlier call with this key: the answer is the scope as it stands. */
      confirmedBefore: boolean;
    };

export interface DirectConfirmInput extends Omit<ConfirmInput, 'holdBatchId' | 'journeys'> {
  ownerUserId: string;
  /** The request's idempotency record (scope confirm:{userId}, key) and the hash of its body. */
  record: { scope: string; key: string; requestHash: string };
  /**
   * The request's checks (the key's verdict, ownership, travellers, the hold), on the transaction's
   * reads, after the key is claimed: a refusal thrown here rolls the claim back with the rest.
   */
  admit: (record: ClaimedRecord, reads: Pick<Database, 'query'>) => Promise<Admission>;
}

/**
 * POST .../confirm without a workflow in the path: ONE transaction that claims and locks the
 * request's idempotency record, checks the request (`admit`), locks the scope and confirms it
 * (confirm.ts `confirmLocked`), and stores the answer (the projection as it commits) in the record
 * before it commits. So duplicates of one key take turns on the record and the later ones replay
 * the stored answer, while a confirm with another key of a hold already consumed is 409
 * ALREADY_CONFIRMED: of concurrent confirms exactly one acts. A REQUESTED outcome runs
 * `onRequested` (the start of the decision workflow) alongside the answer's read and store, and the
 * transaction commits only once it has succeeded, so a scope is never REQUESTED without its
 * deadline being enforced. `onRequested` is also given every id of the scope's booking (its own,
 * its journeys', their booking rows', written by then): the process's BookingId. A refusal rolls
 * everything back; the caller stores it when it is final.
 */
export async function confirmDirect(
  db: Database,
  input: DirectConfirmInput,
  signing: SigningOptions,
  onRequested: (outcome: ConfirmOutcome, companyIds: string[], processIds: string[]) => Promise<void>,
): Promise<IdempotentAnswer> {
  // Run again on a deadlock, as inTripLockedScope: it can only come at a lock, before the workflow's start.
  return withDeadlockRetry(() =>
    journeyTransaction(db, async (client) => {
      const reads = serialRows(client);
      const { record } = input;
      const claimed = await lockIdempotencyKey(client, record.scope, record.key, record.requestHash);
      const admission = await input.admit(claimed, reads);
      if ('answer' in admission) return admission.answer;
      // The decision workflow's start runs while the answer is read and stored; the commit waits for it.
      let started: Promise<void> = Promise.resolve();
      if (!admission.confirmedBefore) {
        await lockScopeTrips(client, input.scope);
        const locked = await lockScope(client, input.scope);
        await confirmLocked(client, locked, { ...input, ...admission }, signing, {
          consumedIsRefused: true,
          onRequested: async (outcome, companyIds) => {
            const processIds = await confirmationProcessIds(client, input.scope);
            started = onRequested(outcome, companyIds, processIds);
            started.catch(() => undefined);
          },
        });
      }
      const data = await readConfirmationProjection(reads, input.scope, input.ownerUserId);
      const answer = { status: 200, body: { success: true as const, data } };
      await storeIdempotentAnswer(reads, record, answer);
      await started;
      return answer;
    }),
  );
}
