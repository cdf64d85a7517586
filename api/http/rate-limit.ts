import type { Context, Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../../db/orm.js';
import { tooManyRequests } from './errors.js';

/** One rule: at most `points` requests per `durationSeconds` for each key; 0 points turns it off. */
export interface RateLimitRule {
  /** Names the counters (journey-search, otp-send, ...); two rules never share counters. */
  name: string;
  points: number;
  durationSeconds: number;
}

export interface RateLimiter {
  /** Counts one request for `key`; over the limit it throws 429 RATE_LIMITED with Retry-After. */
  consume(ctx: Context, key: string): Promise<void>;
  /** The same as Koa middleware, keyed by `keyOf(ctx)` (for example the client IP). */
  middleware(keyOf: (ctx: Context) => string): Middleware;
}

/**
 * Rate limits shared by every API replica: counters live in the unlogged rate_limits table
 * (rate-limiter-flexible's PostgreSQL store on the app's pool). Once a key is over its limit it
 * is refused from memory until its window ends, so a flood costs no database work; should the
 * database fail, an in-process limiter with the same rule keeps limiting.
 *
 * Counters are named by the rule itself (name, points, window): changing a limit starts fresh
 * counters instead of judging old traffic by the new rule.
 */
export function createRateLimiter(db: Pick<Database, 'pool'>, rule: RateLimitRule): RateLimiter {
  if (rule.points <= 0) {
    return { consume: async () => undefined, middleware: () => (_ctx, next) => next() };
  }
  const keyPrefix = `${rule.name}:${rule.points}/${rule.durationSeconds}`;
  const limiter = new RateLimiterPostgres({
    storeClient: db.pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix,
    points: rule.points,
    duration: rule.durationSeconds,
    inMemoryBlockOnConsumed: rule.points,
    insuranceLimiter: new RateLimiterMemory({
      keyPrefix,
      points: rule.points,
      duration: rule.durationSeconds,
    }),
  });

  const consume = async (ctx: Context, key: string) => {
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      ctx.set('Retry-After', String(retryAfterSeconds));
      throw tooManyRequests(retryAfterSeconds);
    }
  };
  return {
    consume,
    middleware: (keyOf) => async (ctx, next) => {
      await consume(ctx, keyOf(ctx));
      await next();
    },
  };
}
