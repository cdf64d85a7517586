import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'koa';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { FALLBACK_KEYS } from '../../../api/http/fallback-limiter.js';
import { createRateLimiter, type RateLimiter } from '../../../api/http/rate-limit.js';
import { Refusal } from '../../../domain/refusal.js';

/**
 * README (Production, limits that stay per process): while PostgreSQL is unreachable a rate limit
 * keeps limiting from the process's memory, for at most FALLBACK_KEYS keys a rule; beyond them a key
 * it is not counting is refused with 429 until its oldest window ends, so a flood of distinct keys
 * (forged phone numbers, addresses across IPv6 space) cannot grow the heap without bound.
 */

/** A port nothing listens on: the database there refuses every connection. */
const closedPort = await new Promise<number>((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    server.close(() => resolve(port));
  });
});
const pool = new pg.Pool({ host: '127.0.0.1', port: closedPort, user: 'nobody', database: 'nowhere' });
afterAll(() => pool.end());

const ctx = {} as Context;
const limiter = (points: number, durationSeconds: number) =>
  createRateLimiter({ pool }, { name: `fallback-${randomUUID()}`, points, durationSeconds });

/** One request for `key`: 'admitted', or the Retry-After seconds of its 429 RATE_LIMITED. */
const judged = (rateLimiter: RateLimiter, key: string) =>
  rateLimiter.consume(ctx, key).then(
    () => 'admitted' as const,
    (refusal: unknown) => {
      expect(refusal).toBeInstanceOf(Refusal);
      expect([(refusal as Refusal).status, (refusal as Refusal).code]).toEqual([429, 'RATE_LIMITED']);
      return (refusal as Refusal).details!.retryAfterSeconds as number;
    },
  );

/** Counts one request of each of `count` new keys, a few hundred at a time. */
async function countNewKeys(rateLimiter: RateLimiter, count: number): Promise<void> {
  for (let start = 0; start < count; start += 500) {
    const batch = Array.from({ length: Math.min(500, count - start) }, (_, n) => `filler-${start + n}`);
    const outcomes = await Promise.all(batch.map((key) => judged(rateLimiter, key)));
    expect(outcomes.every((outcome) => outcome === 'admitted')).toBe(true);
  }
}

describe('a rate limit while PostgreSQL is unreachable', () => {
  it('keeps limiting each key from memory', async () => {
    const rateLimiter = limiter(2, 60);
    const outcomes = [];
    for (let attempt = 0; attempt < 3; attempt++) outcomes.push(await judged(rateLimiter, 'phone'));
    expect(outcomes.slice(0, 2)).toEqual(['admitted', 'admitted']);
    expect(outcomes[2]).toBeGreaterThan(0);
  });

  it('counts at most FALLBACK_KEYS keys: a new key beyond them is refused until the oldest window ends, counted keys are judged as before', async () => {
    // Long enough for the counting on a busy CI machine (3.4 s on an idle one).
    const windowSeconds = 40;
    const rateLimiter = limiter(2, windowSeconds);
    expect(await judged(rateLimiter, 'oldest')).toBe('admitted');
    const openedAt = Date.now();
    await countNewKeys(rateLimiter, FALLBACK_KEYS - 1);

    // Counting the keys takes a few seconds against a refused connection: well within the window.
    const retryAfter = await judged(rateLimiter, 'newcomer');
    expect(retryAfter, 'a new key beyond FALLBACK_KEYS').not.toBe('admitted');
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
    expect(await judged(rateLimiter, 'oldest')).toBe('admitted');
    expect(await judged(rateLimiter, 'oldest')).toBeGreaterThan(0);
    expect(await judged(rateLimiter, 'filler-0')).toBe('admitted');

    await sleep(openedAt + windowSeconds * 1000 + 100 - Date.now());
    expect(await judged(rateLimiter, 'newcomer')).toBe('admitted');
  }, 70_000);
});
