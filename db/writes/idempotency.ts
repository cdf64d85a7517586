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
 * transaction ends: a call in flight with the same key holds its uncommitted insert (or the row
 * lock) until it commits or rolls back, so duplicates take turns and the later ones find the stored
 * answer. A new key costs one statement; a key already there is read under the lock, not written.
 */
export async function lockIdempotencyKey(
  client: Pick<PoolClient, 'query'>,
  scope: string,
  key: string,
  requestHash: string,
): Promise<ClaimedRecord> {
  const { rows: inserted } = await client.query<RecordRow>(
    `insert into idempotency_records (scope, key, request_hash) values ($1, $2, $3)
     on conflict (scope, key) do nothing returning request_hash, status_code, response`,
    [scope, key, requestHash],
  );
  if (inserted[0]) return { ...toRecord(inserted[0]), claimedBefore: false };
  const { rows } = await client.query<RecordRow>(
    `select request_hash, status_code, response from idempotency_records where scope = $1 and key = $2 for update`,
    [scope, key],
  );
  return { ...toRecord(rows[0]!), claimedBefore: true };
}

/**
 * The record stored under the key, read without a lock (null when there is none): a retry's answer
 * can be found before the call's own checks, which the stored answer no longer depends on.
 */
export async function findIdempotencyRecord(
  db: Pick<Database, 'query'>,
  scope: string,
  key: string,
): Promise<IdempotencyRecord | null> {
  const [row] = await db.query<RecordRow>(
    `select request_hash, status_code, response from idempotency_records where scope = $1 and key = $2`,
    [scope, key],
  );
  return row ? toRecord(row) : null;
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
