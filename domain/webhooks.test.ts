import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_PLAN,
  outcomeOfStatus,
  responseExcerpt,
  retryAfterMs,
  retryDelayMs,
  scaledRetryPlan,
} from './webhooks.js';

describe('webhook delivery rules', () => {
  it('2xx delivers, 410 is gone, 408 and 429 retry, other 4xx are final, 3xx and 5xx retry', () => {
    expect([200, 204, 299].map(outcomeOfStatus)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED']);
    expect(outcomeOfStatus(410)).toBe('GONE');
    expect([408, 429].map(outcomeOfStatus)).toEqual(['RETRY', 'RETRY']);
    expect([400, 401, 404, 422].map(outcomeOfStatus)).toEqual(['FAILED', 'FAILED', 'FAILED', 'FAILED']);
    expect([301, 302, 500, 503].map(outcomeOfStatus)).toEqual(['RETRY', 'RETRY', 'RETRY', 'RETRY']);
  });

  it('backs off exponentially from 10 s to at most 6 h, about 23 attempts in 72 hours', () => {
    const delays = Array.from({ length: 30 }, (_, index) => retryDelayMs(DEFAULT_RETRY_PLAN, index + 1, 0.5));
    expect(delays.slice(0, 4)).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(Math.max(...delays)).toBe(6 * 3_600_000);
    let elapsed = 0;
    let attempts = 1;
    for (const delay of delays) {
      if (elapsed + delay > DEFAULT_RETRY_PLAN.windowMs) break;
      elapsed += delay;
      attempts += 1;
    }
    expect(attempts).toBeGreaterThanOrEqual(20);
    expect(attempts).toBeLessThanOrEqual(25);
    expect(retryDelayMs(DEFAULT_RETRY_PLAN, 1, 0)).toBe(9_000);
    expect(retryDelayMs(DEFAULT_RETRY_PLAN, 1, 0.999)).toBeLessThanOrEqual(11_000);
  });

  it('keeps every wait within 6 h, jitter included, and still spreads the waits at the cap', () => {
    const jitters = Array.from({ length: 101 }, (_, index) => Math.min(index / 100, 0.999_999));
    const atCap = jitters.map((jitter) => retryDelayMs(DEFAULT_RETRY_PLAN, 30, jitter));
    const belowCap = jitters.map((jitter) => retryDelayMs(DEFAULT_RETRY_PLAN, 12, jitter));
    expect(Math.max(...atCap, ...belowCap)).toBeLessThanOrEqual(6 * 3_600_000);
    expect(Math.min(...atCap)).toBeGreaterThanOrEqual(0.9 * 6 * 3_600_000);
    expect(new Set(atCap).size).toBeGreaterThan(50);
  });

  it('honours Retry-After (seconds or a date) as a minimum, capped at the longest delay', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Tue, 24 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryDelayMs(DEFAULT_RETRY_PLAN, 1, 0.5, 120_000)).toBe(120_000);
    expect(retryDelayMs(DEFAULT_RETRY_PLAN, 1, 0.5, 86_400_000)).toBe(6 * 3_600_000);
    expect(scaledRetryPlan(DEFAULT_RETRY_PLAN, 0.01).initialMs).toBe(100);
  });

  it('caps a Retry-After of days, or a far date, at the longest delay (6 h)', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    const longest = DEFAULT_RETRY_PLAN.maxMs;
    expect(retryAfterMs('3000000', now)).toBe(longest);
    expect(retryAfterMs('9'.repeat(400), now)).toBe(longest);
    expect(retryAfterMs('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(longest);
    expect(retryAfterMs(String(longest / 1000), now)).toBe(longest);
    expect(retryAfterMs('Mon, 23 Nov 2026 10:00:00 GMT', now)).toBe(0);
  });

  it('keeps a storable excerpt of the answer: at most 512 characters, a NUL replaced', () => {
    expect(responseExcerpt('ok')).toBe('ok');
    expect(responseExcerpt('ok\u0000')).toBe('ok\uFFFD');
    expect(responseExcerpt('\u0000'.repeat(600))).toBe('\uFFFD'.repeat(512));
    expect(responseExcerpt('x'.repeat(600))).toHaveLength(512);
    // Characters, not UTF-16 units: a pair at the cut is kept whole or left out, never halved.
    expect(responseExcerpt(`${'x'.repeat(511)}🚌🚌`)).toBe(`${'x'.repeat(511)}🚌`);
  });
});
