import { createHash } from 'node:crypto';

/**
 * Rules of client idempotency keys (ARCHITECTURE "Idempotency"): a key is stored with the
 * fingerprint of the request it came with and, once the call has answered, with that answer; a
 * retry with the same key and request gets the stored answer instead of acting twice.
 */

/** The fingerprint a key is stored with: SHA-256 of the request's JSON, hex. */
export function requestHash(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

/** What is stored under a key: the request's fingerprint, and the answer once there is one. */
export interface KeyRecord<Answer> {
  requestHash: string;
  answer: Answer | null;
}

export type KeyVerdict<Answer> = { kind: 'REUSED' } | { kind: 'REPLAY'; answer: Answer } | { kind: 'NEW' };

/**
 * What a call does with the record stored under its key: a key stored with another request is
 * REUSED (refused); a stored answer is given again (REPLAY); otherwise the call acts (NEW), a
 * record without an answer included (its first call never stored one).
 */
export function keyVerdict<Answer>(record: KeyRecord<Answer> | null, hash: string): KeyVerdict<Answer> {
  if (record && record.requestHash !== hash) return { kind: 'REUSED' };
  if (record?.answer) return { kind: 'REPLAY', answer: record.answer };
  return { kind: 'NEW' };
}

/** A key already used for another request of the same call (`what`): 409 IDEMPOTENCY_KEY_REUSED. */
export function keyReused(
  what: 'confirm' | 'quote' | 'redeem' | 'adjustment' | 'support ticket' | 'cash adjustment',
) {
  return {
    status: 409,
    code: 'IDEMPOTENCY_KEY_REUSED',
    message: `This idempotency key was already used for a different ${what} request`,
  } as const;
}

/**
 * Refusals that answer the state of the account or of the inventory at that moment rather than
 * the request: the same request succeeds once that changes (a booking paid or cancelled, seats
 * released, the hour's requests spent), so they are never a key's answer. Refusals that end the
 * request's hold for good (HOLD_EXPIRED, HOLD_CLOSED, TRIP_NOT_BOOKABLE, ALREADY_CONFIRMED) are.
 */
export const STATE_DEPENDENT_REFUSALS: ReadonlySet<string> = new Set([
  'UNPAID_BOOKING_LIMIT_REACHED',
  'SEAT_HOLD_LIMIT_REACHED',
  'RATE_LIMITED',
]);

/**
 * Whether an answer is final, so retries get it again: a refusal of the request itself is; a 5xx
 * (the service busy or unreachable) is not, nor a refusal of STATE_DEPENDENT_REFUSALS (`errorCode`),
 * so a retry with the same key acts again.
 */
export function isFinalAnswer(status: number, errorCode?: string): boolean {
  if (errorCode !== undefined && STATE_DEPENDENT_REFUSALS.has(errorCode)) return false;
  return status < 500;
}
