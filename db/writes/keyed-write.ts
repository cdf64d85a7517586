import type { PoolClient } from 'pg';
import { keyReused, keyVerdict, requestHash } from '../../domain/idempotency.js';
import { Refusal } from '../../domain/refusal.js';
import type { Database } from '../orm.js';
import {
  findIdempotencyRecord,
  lockIdempotencyKey,
  storeIdempotentAnswer,
  type IdempotencyRecord,
  type IdempotentAnswer,
} from './idempotency.js';

/**
 * A write made safe to send again by the client's optional Idempotency-Key (ARCHITECTURE
 * "Idempotency"; the header is api/http/idempotency-key.ts): POST /loyalty/redeem, the dashboard's
 * loyalty adjustment, a traveller's new support ticket. The key is claimed inside the write's
 * transaction under the caller's scope with the fingerprint of the request (claimKey) and the
 * write's answer stored under it before the commit (storeKeyAnswer): a duplicate in flight waits
 * on the claim and then finds that answer, a retry after the commit finds it at once, and a
 * refused write rolls the claim back with the rest, so nothing is kept for it. The same key with
 * another request is 409 IDEMPOTENCY_KEY_REUSED.
 */

/** What a key is kept under: the caller's scope (`loyalty-redeem:<userId>`...), the key, the request's fingerprint. */
export interface KeyedRequest {
  scope: string;
  key: string;
  requestHash: string;
}

/** The write whose key it is, as the 409 IDEMPOTENCY_KEY_REUSED names it. */
export type KeyedWrite = Parameters<typeof keyReused>[0];

type Queryable = Pick<PoolClient, 'query'>;

/** The record of `request` (what the caller sent that the write acts on) under `key` in `scope`. */
export const keyedRequest = (scope: string, key: string, request: unknown): KeyedRequest => ({
  scope,
  key,
  requestHash: requestHash(request),
});

/**
 * What the record stored under the key decides for this request: its answer, a refusal (409
 * IDEMPOTENCY_KEY_REUSED) when it was stored with another request, or null when there is no answer yet.
 */
function answerOf(
  stored: IdempotencyRecord | null,
  request: KeyedRequest,
  what: KeyedWrite,
): IdempotentAnswer | null {
  const verdict = keyVerdict(stored, request.requestHash);
  if (verdict.kind === 'REUSED') {
    const { status, code, message } = keyReused(what);
    throw new Refusal(status, code, message);
  }
  return verdict.kind === 'REPLAY' ? verdict.answer : null;
}

/**
 * The answer stored under the key, read without a lock before the write's own checks (which a
 * stored answer no longer depends on): null when there is none yet; the key used for another
 * request is 409.
 */
export async function storedKeyAnswer(
  db: Pick<Database, 'query'>,
  request: KeyedRequest,
  what: KeyedWrite,
): Promise<IdempotentAnswer | null> {
  return answerOf(await findIdempotencyRecord(db, request.scope, request.key), request, what);
}

/**
 * Claims the key for this request inside the write's transaction and locks its record until that
 * transaction ends: the answer a first call stored (the write then does nothing), or null (the
 * write goes on and stores its own). A key stored with another request is 409.
 */
export async function claimKey(
  client: Queryable,
  request: KeyedRequest,
  what: KeyedWrite,
): Promise<IdempotentAnswer | null> {
  const claimed = await lockIdempotencyKey(client, request.scope, request.key, request.requestHash);
  return answerOf(claimed, request, what);
}

/** Stores the write's answer under its claimed key, in the write's transaction. */
export async function storeKeyAnswer(
  client: Queryable,
  request: KeyedRequest,
  answer: IdempotentAnswer,
): Promise<void> {
  await storeIdempotentAnswer(rowsOf(client), request, answer);
}

/** The data of a stored success (only a write's success is stored under its key). */
export const answeredData = <T>(answer: IdempotentAnswer): T => (answer.body as { data: T }).data;

/** The transaction's client as storeIdempotentAnswer reads a connection: rows only. */
const rowsOf = (client: Queryable): Pick<Database, 'query'> => ({
  query: async <Row>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as Row[],
});
