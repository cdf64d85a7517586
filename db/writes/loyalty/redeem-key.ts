import type { Database } from '../../orm.js';
import {
  answeredData,
  claimKey,
  keyedRequest,
  storedKeyAnswer,
  storeKeyAnswer,
  type KeyedRequest,
} from '../keyed-write.js';
import type { IdempotentAnswer } from '../idempotency.js';
import type { Queryable } from './account.js';

/**
 * The optional Idempotency-Key of POST /loyalty/redeem (ARCHITECTURE "Idempotency"): the key is
 * claimed inside the redeem's transaction (db/writes/keyed-write.ts) under the traveller's scope,
 * with the fingerprint of the request; the voucher made is stored as its answer before the commit.
 * A duplicate in flight waits on the claim and then finds the answer; a refusal rolls the claim
 * back with the rest of the redeem, so nothing is kept for it. A retry whose answer is stored is
 * answered before the programme is looked up (storedRedemption), so a programme switched off or a
 * company hidden since does not deny a voucher already made and paid for.
 */

/** A voucher as a redeem answers it (redeem.ts `Redemption`). */
export interface RedeemedVoucher {
  id: string;
  code: string;
  pointsUsed: number;
  expiresAt: Date;
}

export type RedeemRecord = KeyedRequest;

/** What the claim decided: the voucher a first call made, or the record this call stores its own under. */
export type RedeemClaim = { replay: RedeemedVoucher } | { record: RedeemRecord };

/** Who redeems what: the traveller, the programme's company and the reward's catalogue code. */
interface RedeemRequest {
  companyId: string;
  userId: string;
  rewardCode: string;
}

/** The record a traveller's redeem is kept under: per traveller, with the fingerprint of the request. */
const redeemRecord = (input: RedeemRequest, key: string): RedeemRecord =>
  keyedRequest(`loyalty-redeem:${input.userId}`, key, {
    companyId: input.companyId,
    rewardCode: input.rewardCode,
  });

/**
 * The voucher a first call with this key and request made, read before the redeem's checks: the
 * stored answer stands whatever became of the programme or the company since. Null when the key
 * holds no answer (the redeem goes on and claims it); the key used for another request is 409.
 */
export async function storedRedemption(
  db: Pick<Database, 'query'>,
  input: RedeemRequest,
  key: string,
): Promise<RedeemedVoucher | null> {
  const stored = await storedKeyAnswer(db, redeemRecord(input, key), 'redeem');
  return stored && voucherOf(stored);
}

/**
 * Claims `key` for this traveller's redeem of `rewardCode` in `companyId` and locks its record
 * until the transaction ends. A key stored with another request is 409 IDEMPOTENCY_KEY_REUSED.
 */
export async function claimRedeemKey(
  client: Queryable,
  input: RedeemRequest,
  key: string,
): Promise<RedeemClaim> {
  const record = redeemRecord(input, key);
  const stored = await claimKey(client, record, 'redeem');
  return stored ? { replay: voucherOf(stored) } : { record };
}

/** Stores the voucher as the key's answer (201), in the redeem's transaction. */
export async function storeRedeemAnswer(
  client: Queryable,
  record: RedeemRecord,
  voucher: RedeemedVoucher,
): Promise<void> {
  await storeKeyAnswer(client, record, {
    status: 201,
    body: { success: true, data: { ...voucher, expiresAt: voucher.expiresAt.toISOString() } },
  });
}

/** The voucher of a stored answer (only a redeem's success is stored). */
function voucherOf(answer: IdempotentAnswer): RedeemedVoucher {
  const stored = answeredData<Omit<RedeemedVoucher, 'expiresAt'> & { expiresAt: string }>(answer);
  return { ...stored, expiresAt: new Date(stored.expiresAt) };
}
