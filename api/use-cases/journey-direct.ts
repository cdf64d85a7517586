import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../../db/orm.js';
import type { SigningOptions } from '../../db/writes/boarding-credentials.js';
import type { IdempotentAnswer } from '../../db/writes/idempotency.js';
import { confirmDirect, type DirectConfirmInput } from '../../db/writes/journeys/index.js';
import type { AccountCaps } from '../../domain/inventory-caps.js';
import type { ConfirmationScope } from '../../domain/journey-confirmation.js';
import type { TransferSettings } from '../../domain/journey-search.js';
import { Refusal } from '../http/errors.js';
import type { JourneyConfirmationClient } from '../temporal/journey-confirmation-client.js';

/**
 * Hold and confirm as plain transactions (issue 18): nothing waits on a clock or a person until a
 * company must decide, so the journey-confirmation workflow starts only then, from inside the
 * confirm's transaction (a REQUESTED scope always has its deadline process). The hold's end is
 * enforced lazily (db/writes/journeys/expire-overdue.ts) and by the worker's sweep.
 */

export interface DirectSettings {
  /** HOLD_MINUTES and TIME_SCALE (config). */
  holdMinutes: number;
  timeScale: number;
  caps: AccountCaps;
  /** The change-time rules of connections (TRANSFER_*): a connection is held and confirmed only while it chains. */
  transfer: TransferSettings;
  signing: SigningOptions;
}

/**
 * The hold batch id: derived from the idempotency key when one is sent, so a retry of the same
 * hold finds its batch (placeHold answers it again) instead of holding twice; random otherwise.
 */
export function holdBatchIdOf(scope: ConfirmationScope, userId: string, key: string | undefined): string {
  if (!key) return randomUUID();
  const hex = createHash('sha256').update(`hold:${scope.kind}:${scope.id}:${userId}:${key}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A stored refusal is thrown as it was first answered; a stored success is the answer. */
export function replayed(answer: IdempotentAnswer): IdempotentAnswer {
  if ('errorCode' in answer.body) {
    const { errorCode, message, details } = answer.body;
    throw new Refusal(answer.status, errorCode, message, details);
  }
  return answer;
}

/** The confirm's transaction; a REQUESTED outcome starts the decision workflow before it commits. */
export function confirmWithoutWorkflow(
  deps: { db: Database; workflow: JourneyConfirmationClient; settings: DirectSettings },
  request: Omit<DirectConfirmInput, 'timeScale' | 'transfer'>,
): Promise<IdempotentAnswer> {
  const { timeScale, caps, transfer } = deps.settings;
  const input = { ...request, timeScale, caps, transfer };
  return confirmDirect(deps.db, input, deps.settings.signing, async (outcome, companyIds, processIds) => {
    await deps.workflow.awaitDecisions({
      scope: request.scope,
      ownerUserId: request.ownerUserId,
      companyIds,
      processIds,
      awaiting: outcome.awaiting,
    });
  });
}
