import type { Context, Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../../db/orm.js';
import { tooManyRequests } from './errors.js';
import type { Part } from './guarded-route.js';
import type { RouteSpec, Surface } from './route.js';

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
  const limiter = sharedLimiter(db, rule);

  const consume = (ctx: Context, key: string) => consumeOrRefuse(limiter, ctx, key);
  return {
    consume,
    middleware: (keyOf) => async (ctx, next) => {
      await consume(ctx, keyOf(ctx));
      await next();
    },
  };
}

/**
 * Counts only what fails (a wrong password), so neither success nor a stranger's guesses lock anyone
 * out. Each attempt takes its failure point before it is judged, in one atomic step with the check
 * of the limit: attempts sent together cannot all pass the check while the slow judging of each runs.
 */
export interface FailureLimiter {
  /**
   * Takes one failure point for `key` before the attempt is judged; 429 RATE_LIMITED with
   * Retry-After once the key has spent its failures in the window.
   */
  reserve(ctx: Context, key: string): Promise<void>;
  /** The reserved attempt neither failed nor succeeded (it broke off): gives its point back. */
  release(key: string): Promise<void>;
  /** A success forgets the key's failures, its own reservation included. */
  succeeded(key: string): Promise<void>;
}

/** At most `points` failures per `durationSeconds` for each key; 0 points turns it off. */
export function createFailureLimiter(db: Pick<Database, 'pool'>, rule: RateLimitRule): FailureLimiter {
  if (rule.points <= 0) {
    return {
      reserve: async () => undefined,
      release: async () => undefined,
      succeeded: async () => undefined,
    };
  }
  // Refused from memory only once over the limit: a point given back can bring the key under it again.
  const limiter = sharedLimiter(db, rule, rule.points + 1);
  return {
    reserve: (ctx, key) => consumeOrRefuse(limiter, ctx, key),
    async release(key) {
      await limiter.reward(key, 1);
    },
    async succeeded(key) {
      await limiter.delete(key);
    },
  };
}

/** Counts one point for `key`; over the limit it throws 429 RATE_LIMITED with Retry-After. */
async function consumeOrRefuse(limiter: RateLimiterPostgres, ctx: Context, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    refuse(ctx, rejection.msBeforeNext);
  }
}

function refuse(ctx: Context, msBeforeNext: number): never {
  const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  ctx.set('Retry-After', String(retryAfterSeconds));
  throw tooManyRequests(retryAfterSeconds);
}

function sharedLimiter(
  db: Pick<Database, 'pool'>,
  rule: RateLimitRule,
  blockInMemoryAt = rule.points,
): RateLimiterPostgres {
  const keyPrefix = `${rule.name}:${rule.points}/${rule.durationSeconds}`;
  return new RateLimiterPostgres({
    storeClient: db.pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix,
    points: rule.points,
    duration: rule.durationSeconds,
    inMemoryBlockOnConsumed: blockInMemoryAt,
    insuranceLimiter: new RateLimiterMemory({
      keyPrefix,
      points: rule.points,
      duration: rule.durationSeconds,
    }),
  });
}

/** At most `points` requests per hour for each key. */
export function hourlyLimiter(db: Pick<Database, 'pool'>, name: string, points: number): RateLimiter {
  return createRateLimiter(db, { name, points, durationSeconds: 3600 });
}

/** At most `points` requests per minute for each key. */
export function minuteLimiter(db: Pick<Database, 'pool'>, name: string, points: number): RateLimiter {
  return createRateLimiter(db, { name, points, durationSeconds: 60 });
}

/**
 * A public route each request of which counts against `perIp` for the client's IP before its
 * handler runs (after its input is validated, as for any route).
 */
export function ipLimitedRoute<
  P extends Part = undefined,
  Q extends Part = undefined,
  B extends Part = undefined,
>(surface: Surface, perIp: RateLimiter, spec: Omit<RouteSpec<P, Q, B>, 'security'>): void {
  surface.route<P, Q, B>({
    ...spec,
    security: 'public',
    handler: async (ctx, input) => {
      await perIp.consume(ctx, ctx.ip);
      await spec.handler(ctx, input);
    },
  });
}
