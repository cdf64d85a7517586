import { readConfirmationProjection } from '../../queries/journeys.js';
import type { Database } from '../../orm.js';
import type { SigningOptions } from '../boarding-credentials.js';
import type { AnswerBody, IdempotentAnswer } from '../idempotency.js';
import { confirmLocked, type ConfirmInput, type ConfirmOptions } from './confirm.js';
import { journeyTransaction, lockScope, serialRows } from './scope.js';

export interface DirectConfirmInput extends ConfirmInput {
  ownerUserId: string;
  /** The idempotency record the API claimed for this request (scope confirm:{userId}, key). */
  record: { scope: string; key: string };
}

/**
 * POST .../confirm without a workflow in the path: ONE transaction that locks the request's
 * idempotency record, then the scope (confirm.ts `confirmLocked`), and stores the answer (the
 * projection as it commits) in the record before it commits. So duplicates of one key take turns
 * on the record and the later ones replay the stored answer, while a confirm with another key of a
 * hold already consumed is 409 ALREADY_CONFIRMED: of concurrent confirms exactly one acts. A
 * REQUESTED outcome runs `onRequested` (the start of the decision workflow) before the commit, so
 * a scope is never REQUESTED without its deadline being enforced. A refusal rolls everything back;
 * the caller stores it.
 */
export async function confirmDirect(
  db: Database,
  input: DirectConfirmInput,
  signing: SigningOptions,
  onRequested: NonNullable<ConfirmOptions['onRequested']>,
): Promise<IdempotentAnswer> {
  return journeyTransaction(db, async (client) => {
    const { rows } = await client.query<{ status_code: number | null; response: AnswerBody | null }>(
      `select status_code, response from idempotency_records where scope = $1 and key = $2 for update`,
      [input.record.scope, input.record.key],
    );
    const stored = rows[0];
    if (stored?.status_code != null && stored.response) {
      return { status: stored.status_code, body: stored.response };
    }
    const locked = await lockScope(client, input.scope);
    await confirmLocked(client, locked, input, signing, { consumedIsRefused: true, onRequested });
    const data = await readConfirmationProjection(serialRows(client), input.scope, input.ownerUserId);
    const answer = { status: 200, body: { success: true as const, data } };
    await client.query(
      `update idempotency_records set status_code = $3, response = $4 where scope = $1 and key = $2 and status_code is null`,
      [input.record.scope, input.record.key, answer.status, JSON.stringify(answer.body)],
    );
    return answer;
  });
}
