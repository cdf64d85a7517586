import type { Database } from '../../db/orm.js';
import { createRateLimiter, type RateLimiter } from '../http/rate-limit.js';
import { hashSecret } from './secrets.js';

/** At most `points` requests per hour for each key. */
export function hourlyLimiter(db: Pick<Database, 'pool'>, name: string, points: number): RateLimiter {
  return createRateLimiter(db, { name, points, durationSeconds: 3600 });
}

/** The rate-limit key of an e-mail address: a hash, so the counters hold no addresses. */
export function emailKey(email: string): string {
  return hashSecret(email.toLowerCase());
}
