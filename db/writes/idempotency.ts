import type { PoolClient } from 'pg';
import type { Database } from '../orm.js';

/**
 * Stored answers of idempotent calls (idempotency_records). A key is claimed with the hash of the
 * request it came with; once the call has an answer it is stored, and a retry with the same key
 * and request gets that answer back instead of acting twice.
 */

/** A stored answer's body: the success body, or the refusal's errorCode, message and details. */
export type AnswerBody =
  | { success: true; data: unknown }
  | { errorCode: string; message: string; details?: Record<string, unknown> };

export interface IdempotentAnswer {
  status: number;
  body: AnswerBody;
}

export interface IdempotencyRecord {
  requestHash: string;
  /** null while the first call has not answered yet (or died before storing its answer). */
  answer: IdempotentAnswer | null;
}

/** An idempotency_records row; response (jsonb) is set with status_code. */
interface RecordRow {
  request_hash: string;
  status_code: number | null;
  response: AnswerBody | null;
}

const toRecord = (row: RecordRow): IdempotencyRecord => ({
  requestHash: row.request_hash,
  answer:
    row.status_code === null || row.response === null
      ? null
      : { status: row.status_code, body: row.response },
});

/** A record as the confirm's transaction claimed it: `claimedBefore` when an earlier call had made it. */
export interface ClaimedRecord extends IdempotencyRecord {
  claimedBefore: boolean;
}

/**
 * Claims the key for this request inside the caller's transaction and locks its record until that
 * transaction ends: a call in flight with the same key holds the lock (or its uncommitted insert)
 * until it commits or rolls back, so duplicates take turns and the later ones find the stored
 * answer. One statement: the record inserted, or the one already there, locked.
 */
export async function lockIdempotencyKey(
  client: Pick<PoolClient, 'query'>,
  scope: string,
  key: string,
  requestHash: string,
): Promise<ClaimedRecord> {
  const { rows } = await client.query<RecordRow & { inserted: boolean }>(
    `insert into idempotency_records (scope, key, request_hash) values ($1, $2, $3)
     on conflict (scope, key) do update set request_hash = idempotency_records.request_hash
     returning request_hash, status_code, response, xmax = 0 as inserted`,
    [scope, key, requestHash],
  );
  const row = rows[0]!;
  return { ...toRecord(row), claimedBefore: !row.inserted };
}

/**
 * Stores the first answer given under the key (a later one, of a concurrent duplicate, does not
 * replace it), making the record if the call's transaction rolled its claim back.
 */
export async function storeIdempotentAnswer(
  db: Pick<Database, 'query'>,
  record: { scope: string; key: string; requestHash: string },
  answer: IdempotentAnswer,
): Promise<void> {
  await db.query(
    `insert into idempotency_records as r (scope, key, request_hash, status_code, response)
     values ($1, $2, $3, $4, $5)
     on conflict (scope, key) do update set status_code = excluded.status_code, response = excluded.response
     where r.status_code is null and r.request_hash = excluded.request_hash`,
    [record.scope, record.key, record.requestHash, answer.status, JSON.stringify(answer.body)],
  );
}
