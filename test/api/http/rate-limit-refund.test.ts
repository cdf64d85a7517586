import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { createRateLimiter, type RateLimiter } from '../../../api/http/rate-limit.js';
import { useTestApp } from '../../support/harness.js';

/**
 * A point given back (RateLimiter.refund: a code the SMS provider did not send) reopens exactly one
 * request of the window it was counted in, against the shared rate_limits counters.
 */
describe('giving back a counted point', () => {
  const app = useTestApp();
  const ctx = {} as Context;
  const limiter = (points: number, durationSeconds = 3600) =>
    createRateLimiter(
      app.db,
      { name: `refund-${randomUUID()}`, points, durationSeconds },
      { givesBack: true },
    );

  /** Whether one more request for `key` is let through now. */
  const admitted = (rateLimiter: RateLimiter, key: string) =>
    rateLimiter.consumeRefundable(ctx, key).then(
      () => true,
      (refusal: { status?: number }) => {
        expect(refusal.status).toBe(429);
        return false;
      },
    );

  it('reopens one request, and never more than were counted', async () => {
    const rateLimiter = limiter(2);
    const first = await rateLimiter.consumeRefundable(ctx, 'phone');
    await rateLimiter.consumeRefundable(ctx, 'phone');
    expect(await admitted(rateLimiter, 'phone')).toBe(false);
    await rateLimiter.refund(first);
    expect(await admitted(rateLimiter, 'phone')).toBe(true);
    expect(await admitted(rateLimiter, 'phone')).toBe(false);
  });

  it('does not take the counter below zero when given back more often than counted', async () => {
    const rateLimiter = limiter(1);
    const point = await rateLimiter.consumeRefundable(ctx, 'phone');
    await Promise.all([rateLimiter.refund(point), rateLimiter.refund(point), rateLimiter.refund(point)]);
    expect(await admitted(rateLimiter, 'phone')).toBe(true);
    expect(await admitted(rateLimiter, 'phone')).toBe(false);
  });

  it('leaves a later window alone: a point counted before the window ended reopens nothing after it', async () => {
    const rateLimiter = limiter(1, 2);
    const early = await rateLimiter.consumeRefundable(ctx, 'phone');
    await sleep(2100);
    expect(await admitted(rateLimiter, 'phone')).toBe(true);
    await rateLimiter.refund(early);
    expect(await admitted(rateLimiter, 'phone')).toBe(false);
  });

  it('counts exactly under requests and give-backs sent together', async () => {
    const rateLimiter = limiter(5);
    const points = await Promise.all(
      Array.from({ length: 5 }, () => rateLimiter.consumeRefundable(ctx, 'phone')),
    );
    const outcomes = await Promise.all([
      ...points.slice(0, 3).map((point) => rateLimiter.refund(point).then(() => false)),
      ...Array.from({ length: 6 }, () => admitted(rateLimiter, 'phone')),
    ]);
    // Three given back: of the six sent with them, at most three got through, and the rest is left.
    const through = outcomes.filter(Boolean).length;
    expect(through).toBeLessThanOrEqual(3);
    const later = [];
    for (let attempt = 0; attempt < 4; attempt++) later.push(await admitted(rateLimiter, 'phone'));
    expect(later.filter(Boolean)).toHaveLength(3 - through);
  });
});
