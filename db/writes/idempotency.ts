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

export async function findIdempotencyRecord(
  db: Database,
  scope: string,
  key: string,
): Promise<IdempotencyRecord | null> {
  const [row] = await db.query<RecordRow>(
    `select request_hash, status_code, response from idempotency_records where scope = $1 and key = $2`,
    [scope, key],
  );
  return row ? toRecord(row) : null;
}

/** Claims the key for this request; of concurrent claims one inserts and all read the same record. */
export async function claimIdempotencyKey(
  db: Database,
  scope: string,
  key: string,
  requestHash: string,
): Promise<IdempotencyRecord> {
  await db.query(
    `insert into idempotency_records (scope, key, request_hash) values ($1, $2, $3) on conflict do nothing`,
    [scope, key, requestHash],
  );
  return (await findIdempotencyRecord(db, scope, key))!;
}

/** Stores the first answer; a later one (a concurrent duplicate) does not replace it. */
export async function storeIdempotentAnswer(
  db: Database,
  scope: string,
  key: string,
  answer: IdempotentAnswer,
): Promise<void> {
  await db.query(
    `update idempotency_records set status_code = $3, response = $4 where scope = $1 and key = $2 and status_code is null`,
    [scope, key, answer.status, JSON.stringify(answer.body)],
  );
}
