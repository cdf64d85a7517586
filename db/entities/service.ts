import { p } from '@mikro-orm/core';
import { entity, stampedNow } from './base.js';

/**
 * Tables of the service itself rather than of the business: rate-limit counters and the stored
 * answers of idempotent calls.
 */

/** rate-limiter-flexible's PostgreSQL store (api/http/rate-limit.ts): one row per limiter and key. */
export const RateLimit = entity('RateLimit', 'rate_limits', {
  key: p.string().primary(),
  points: p.integer().default(0),
  /** Epoch milliseconds; null: never expires. */
  expire: p.bigint('number').nullable(),
});

/** A retry with the same scope, key and body gets the stored answer instead of acting twice. */
export const IdempotencyRecord = entity('IdempotencyRecord', 'idempotency_records', {
  scope: p.text().primary(),
  key: p.text().primary(),
  requestHash: p.text(),
  statusCode: p.integer().nullable(),
  response: p.json<unknown>().nullable(),
  createdAt: stampedNow(),
});
