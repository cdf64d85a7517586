import { z } from 'zod';

/**
 * The optional Idempotency-Key request header of the writes a client may send again after losing
 * the answer (POST /loyalty/redeem, the dashboard's loyalty adjustment, POST /support-tickets): the
 * key form of the journey routes, 8 to 128 characters of A-Z a-z 0-9 _ - (else 400
 * VALIDATION_FAILED, as every header a route reads). What a key is stored against and answers is
 * db/writes/keyed-write.ts.
 */
export const IDEMPOTENCY_KEY_RULE = 'must be 8 to 128 characters of A-Z a-z 0-9 _ -';

/** A route's `headers`: the optional Idempotency-Key, `description` saying what a retry with it answers. */
export function idempotencyKeyHeaders(description: string) {
  return z.object({
    'Idempotency-Key': z
      .string()
      .regex(/^[A-Za-z0-9_-]{8,128}$/, IDEMPOTENCY_KEY_RULE)
      .optional()
      .meta({ description }),
  });
}
