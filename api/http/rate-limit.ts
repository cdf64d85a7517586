import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, Middleware } from 'koa';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../../db/orm.js';
import { refundRateLimitPoint } from '../../db/writes/rate-limits.js';
import { clientKey } from './client-address.js';
import { tooManyRequests } from './errors.js';
import { FallbackLimiter } from './fallback-limiter.js';
import type { Part } from './guarded-route.js';
import type { RouteSpec, Surface } from './route.js';

/** One rule: at most `points` requests per `durationSeconds` for each key; 0 points turns it off. */
export interface RateLimitRule {
  /** Names the counters (journey-search, otp-send, ...); two rules never share counters. */
  name: string;
  points: number;
  durationSeconds: number;
}

/** A point `consume` counted: its key, and when the window it was counted in ends (ms since the epoch). */
export interface CountedPoint {
  key: string;
  windowEndsAt: number;
}

export interface RateLimiter {
  /** Counts one request for `key`; over the limit it throws 429 RATE_LIMITED with Retry-After. */
  consume(ctx: Context, key: string): Promise<void>;
  /** `consume`, answering the point it counted, for `refund`. */
  consumeRefundable(ctx: Context, key: string): Promise<CountedPoint>;
  /** The same as Koa middleware, keyed by `keyOf(ctx)` (for example the client IP). */
  middleware(keyOf: (ctx: Context) => string): Middleware;
  /**
   * Gives back a point once the request it counted turns out not to count (a successful sign-in, an
   * OTP the provider did not send): counted first, so requests sent together are limited all the
   * same, and given back only to the window it was counted in (a window that ended meanwhile takes
   * nothing from the next), never below zero, in one statement, so
   * requests of the same key sent meanwhile are judged either before or after it, never half-way.
   * Only for a limiter made with `givesBack`.
   */
  refund(point: CountedPoint): Promise<void>;
}

/**
 * Rate limits shared by every API replica: counters live in the unlogged rate_limits table
 * (rate-limiter-flexible's PostgreSQL store on the app's pool). Once a key is over its limit it
 * is refused from memory until its window ends, so a flood costs no database work; should the
 * database fail, an in-process limiter with the same rule keeps limiting (FallbackLimiter: a bounded
 * number of keys, beyond which new keys are refused).
 *
 * Counters are named by the rule itself (name, points, window): changing a limit starts fresh
 * counters instead of judging old traffic by the new rule. A limiter whose requests may give their
 * point back (`givesBack`: a successful sign-in, a code the provider did not send) keeps no block in
 * memory: the process could not tell when the points given back reopen the key, so each request
 * asks the database.
 */
export function createRateLimiter(
  db: Pick<Database, 'pool'>,
  rule: RateLimitRule,
  options: { givesBack?: boolean } = {},
): RateLimiter {
  if (rule.points <= 0) {
    return {
      consume: async () => undefined,
      consumeRefundable: async (_ctx, key) => ({ key, windowEndsAt: 0 }),
      middleware: () => (_ctx, next) => next(),
      refund: async () => undefined,
    };
  }
  const limiter = sharedLimiter(db, rule, options.givesBack ? 0 : rule.points);

  const consumeRefundable = (ctx: Context, key: string) => consumeOrRefuse(limiter, ctx, key);
  const consume = async (ctx: Context, key: string) => {
    await consumeRefundable(ctx, key);
  };
  return {
    consume,
    consumeRefundable,
    middleware: (keyOf) => async (ctx, next) => {
      await consume(ctx, keyOf(ctx));
      await next();
    },
    refund: (point) => refundPoint(db, limiter, rule.points, point),
  };
}

/** How far the window's end `consume` read may lie from the stored one (the time between the two reads). */
const WINDOW_END_SLACK_MS = 1000;

/** One point back for the window `point` was counted in (refundRateLimitPoint). */
function refundPoint(
  db: Pick<Database, 'pool'>,
  limiter: RateLimiterPostgres,
  limit: number,
  point: CountedPoint,
): Promise<void> {
  return refundRateLimitPoint(db, {
    storedKey: limiter.getKey(point.key),
    windowEndsAt: point.windowEndsAt,
    slackMs: WINDOW_END_SLACK_MS,
    limit,
  });
}

/** One count of failures: at most `points` failures per `durationSeconds` for each key; 0 points turns it off. */
export interface FailureRule extends RateLimitRule {
  /** A success forgets the key's failures (else a success only does not count). */
  successForgets: boolean;
}

/**
 * Counts only what fails (a wrong password, a wrong code), so neither a success nor a refusal for
 * another reason uses up anyone's attempts. Attempts of one key take turns: each is judged only once
 * the one before it has been recorded, so attempts sent together cannot all pass the check while the
 * slow judging of each runs, and nothing is counted in advance. Different keys are judged in parallel.
 */
export interface FailureLimiter {
  /**
   * Judges one attempt, `keys` naming it for each rule of the limiter (in their order): refused with
   * 429 RATE_LIMITED and Retry-After when a key has spent its failures in the window, else `attempt`
   * runs. A rejection `failed` accepts counts one failure for every key; a success forgets the failures
   * of the rules that say so; anything else counts nothing.
   */
  judge<T>(
    ctx: Context,
    keys: readonly string[],
    attempt: () => Promise<T>,
    failed: (error: unknown) => boolean,
  ): Promise<T>;
}

/** How long an attempt may hold its key's turn (a crashed replica's turn ends then). */
const TURN_SECONDS = 30;
/** How long an attempt waits for its turn before it is refused with 429. */
const TURN_WAIT_MS = 10_000;
const TURN_POLL_MS = 20;

interface FailureCounter {
  rule: FailureRule;
  failures: RateLimiterPostgres;
  /** One point per key: held by the attempt being judged (the turn). */
  turn: RateLimiterPostgres;
}

/** Counts failures under each of `rules` (a rule of 0 points is left out, with its key). */
export function createFailureLimiter(
  db: Pick<Database, 'pool'>,
  rules: readonly FailureRule[],
): FailureLimiter {
  const counters: Array<FailureCounter | null> = rules.map((rule) =>
    rule.points <= 0
      ? null
      : {
          rule,
          // No block from memory: a success forgets failures, and a turn ends when it is given back.
          failures: sharedLimiter(db, rule, 0),
          turn: sharedLimiter(db, { name: `${rule.name}-turn`, points: 1, durationSeconds: TURN_SECONDS }, 0),
        },
  );
  return {
    async judge(ctx, keys, attempt, failed) {
      const counted = counters.flatMap((counter, n) => (counter ? [{ counter, key: keys[n]! }] : []));
      // Already over the limit: refused without waiting for a turn.
      await refuseWhenSpent(ctx, counted);
      const turns = await takeTurns(ctx, counted);
      try {
        await refuseWhenSpent(ctx, counted);
        const result = await attempt().catch(async (error: unknown) => {
          if (failed(error))
            await Promise.all(
              counted.map(({ counter, key }) => counter.failures.penalty(key, 1).catch(refuseWhenLimited)),
            );
          throw error;
        });
        const forgotten = counted.filter(({ counter }) => counter.rule.successForgets);
        await Promise.all(forgotten.map(({ counter, key }) => counter.failures.delete(key)));
        return result;
      } finally {
        await Promise.all(turns.map(({ counter, key }) => counter.turn.delete(key)));
      }
    },
  };
}

type Counted = Array<{ counter: FailureCounter; key: string }>;

/** 429 RATE_LIMITED with Retry-After when a key has spent its failures in the window. */
async function refuseWhenSpent(ctx: Context, counted: Counted): Promise<void> {
  const spent = await Promise.all(
    counted.map(async ({ counter, key }) => {
      const state = await counter.failures.get(key);
      return state && state.consumedPoints >= counter.rule.points ? state.msBeforeNext : null;
    }),
  );
  const waits = spent.filter((ms): ms is number => ms !== null);
  if (waits.length > 0) refuse(Math.max(...waits));
}

/**
 * Takes the turn of each key, in the limiter's order (so two attempts never wait for each other's),
 * waiting while another attempt holds it; 429 RATE_LIMITED when the wait grows too long.
 */
async function takeTurns(ctx: Context, counted: Counted): Promise<Counted> {
  const deadline = Date.now() + TURN_WAIT_MS;
  const taken: Counted = [];
  try {
    for (const entry of counted) {
      while (!(await tookTurn(entry.counter.turn, entry.key))) {
        if (Date.now() >= deadline) refuse(1000);
        await sleep(TURN_POLL_MS + Math.random() * TURN_POLL_MS);
      }
      taken.push(entry);
    }
  } catch (error) {
    await Promise.all(taken.map(({ counter, key }) => counter.turn.delete(key)));
    throw error;
  }
  return taken;
}

async function tookTurn(turn: RateLimiterPostgres, key: string): Promise<boolean> {
  try {
    await turn.consume(key);
    return true;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return false;
  }
}

/** Counts one point for `key`; over the limit it throws 429 RATE_LIMITED with Retry-After. */
async function consumeOrRefuse(
  limiter: RateLimiterPostgres,
  ctx: Context,
  key: string,
): Promise<CountedPoint> {
  const counted = await limiter.consume(key).catch(refuseWhenLimited);
  return { key, windowEndsAt: Date.now() + counted.msBeforeNext };
}

/**
 * A limiter's refusal (a RateLimiterRes: over the limit, or a key the full in-process fallback cannot
 * count) as 429 RATE_LIMITED; anything else is rethrown.
 */
function refuseWhenLimited(rejection: unknown): never {
  if (!(rejection instanceof RateLimiterRes)) throw rejection;
  refuse(rejection.msBeforeNext);
}

/** 429 RATE_LIMITED; the error writer sets Retry-After from the refusal's retryAfterSeconds. */
function refuse(msBeforeNext: number): never {
  throw tooManyRequests(Math.max(1, Math.ceil(msBeforeNext / 1000)));
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
    insuranceLimiter: new FallbackLimiter({ keyPrefix, points: rule.points, duration: rule.durationSeconds }),
  });
}

/** At most `points` requests per hour for each key (`givesBack`: see createRateLimiter). */
export function hourlyLimiter(
  db: Pick<Database, 'pool'>,
  name: string,
  points: number,
  options: { givesBack?: boolean } = {},
): RateLimiter {
  return createRateLimiter(db, { name, points, durationSeconds: 3600 }, options);
}

/** At most `points` requests per minute for each key. */
export function minuteLimiter(db: Pick<Database, 'pool'>, name: string, points: number): RateLimiter {
  return createRateLimiter(db, { name, points, durationSeconds: 60 });
}

/**
 * A route (public unless `spec.security` says otherwise) each request of which counts against
 * `perIp` for the client's IP before its handler runs: after its caller is authenticated and its
 * input validated, as for any route, so a request refused for those counts nothing.
 */
export function ipLimitedRoute<
  P extends Part = undefined,
  Q extends Part = undefined,
  B extends Part = undefined,
>(
  surface: Surface,
  perIp: RateLimiter,
  spec: Omit<RouteSpec<P, Q, B>, 'security'> & Partial<Pick<RouteSpec<P, Q, B>, 'security'>>,
): void {
  surface.route<P, Q, B>({
    ...spec,
    security: spec.security ?? 'public',
    handler: async (ctx, input, admitted) => {
      await perIp.consume(ctx, clientKey(ctx));
      await spec.handler(ctx, input, admitted);
    },
  });
}
