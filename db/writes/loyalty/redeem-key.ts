import { keyReused, keyVerdict, requestHash } from '../../../domain/idempotency.js';
import { Refusal } from '../../../domain/refusal.js';
import type { Database } from '../../orm.js';
import { lockIdempotencyKey, storeIdempotentAnswer, type IdempotentAnswer } from '../idempotency.js';
import type { Queryable } from './account.js';

/**
 * The optional Idempotency-Key of POST /loyalty/redeem (ARCHITECTURE "Idempotency"): the key is
 * claimed inside the redeem's transaction (db/writes/idempotency.ts) under the traveller's scope,
 * with the fingerprint of the request; the voucher made is stored as its answer before the commit.
 * A duplicate in flight waits on the claim and then finds the answer; a refusal rolls the claim
 * back with the rest of the redeem, so nothing is kept for it.
 */

/** A voucher as a redeem answers it (redeem.ts `Redemption`). */
export interface RedeemedVoucher {
  id: string;
  code: string;
  pointsUsed: number;
  expiresAt: Date;
}

export interface RedeemRecord {
  scope: string;
  key: string;
  requestHash: string;
}

/** What the claim decided: the voucher a first call made, or the record this call stores its own under. */
export type RedeemClaim = { replay: RedeemedVoucher } | { record: RedeemRecord };

/**
 * Claims `key` for this traveller's redeem of `rewardCode` in `companyId` and locks its record
 * until the transaction ends. A key stored with another request is 409 IDEMPOTENCY_KEY_REUSED.
 */
export async function claimRedeemKey(
  client: Queryable,
  input: { companyId: string; userId: string; rewardCode: string },
  key: string,
): Promise<RedeemClaim> {
  const record: RedeemRecord = {
    scope: `loyalty-redeem:${input.userId}`,
    key,
    requestHash: requestHash({ companyId: input.companyId, rewardCode: input.rewardCode }),
  };
  const claimed = await lockIdempotencyKey(client, record.scope, record.key, record.requestHash);
  const verdict = keyVerdict(claimed, record.requestHash);
  if (verdict.kind === 'REUSED') {
    const { status, code, message } = keyReused('redeem');
    throw new Refusal(status, code, message);
  }
  return verdict.kind === 'REPLAY' ? { replay: voucherOf(verdict.answer) } : { record };
}

/** Stores the voucher as the key's answer (201), in the redeem's transaction. */
export async function storeRedeemAnswer(
  client: Queryable,
  record: RedeemRecord,
  voucher: RedeemedVoucher,
): Promise<void> {
  const answer: IdempotentAnswer = {
    status: 201,
    body: { success: true, data: { ...voucher, expiresAt: voucher.expiresAt.toISOString() } },
  };
  await storeIdempotentAnswer(rowsOf(client), record, answer);
}

/** The voucher of a stored answer (only a redeem's success is stored). */
function voucherOf(answer: IdempotentAnswer): RedeemedVoucher {
  const stored = (answer.body as { data: Omit<RedeemedVoucher, 'expiresAt'> & { expiresAt: string } }).data;
  return { ...stored, expiresAt: new Date(stored.expiresAt) };
}

/** The transaction's client as storeIdempotentAnswer reads a connection: rows only. */
const rowsOf = (client: Queryable): Pick<Database, 'query'> => ({
  query: async <Row>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as Row[],
});
