import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';

/**
 * GET /driver/api/revocations answers up to 5,000 rows a request: each client IP may
 * ask DRIVER_REVOCATIONS_RATE_LIMIT_PER_MINUTE times a minute. X-Forwarded-For names the client
 * (the app trusts one proxy hop), so each test counts on addresses of its own.
 */
describe('GET /driver/api/revocations rate limit', () => {
  const app = useTestApp({ DRIVER_REVOCATIONS_RATE_LIMIT_PER_MINUTE: 3, TRUSTED_PROXY_HOPS: 1 });
  let driverToken: string;

  beforeAll(async () => {
    const company = await createCompany(app.db);
    driverToken = (await staffSession(app.db, app.config, company.id, 'DRIVER')).token;
  });

  const revocations = (ip: string) =>
    app.request('/driver/api/revocations?limit=5000', {
      headers: { 'X-Forwarded-For': ip },
      token: driverToken,
    });

  it('answers 429 RATE_LIMITED with Retry-After once a client IP is over its limit, never cached', async () => {
    const statuses: number[] = [];
    for (let request = 0; request < 3; request++) statuses.push((await revocations('203.0.113.71')).status);
    expect(statuses).toEqual([200, 200, 200]);

    const limited = await revocations('203.0.113.71');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, errorCode: 'RATE_LIMITED' });
    expect(limited.body.data).toBeUndefined();
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // A shared cache in front of a depot must not hand the refusal to every scanner behind it.
    expect(limited.headers.get('cache-control')).toBe('private, no-store');
  });

  it('counts each client IP on its own: another address still reads the list', async () => {
    for (let request = 0; request < 4; request++) await revocations('203.0.113.72');
    expect((await revocations('203.0.113.72')).status).toBe(429);

    const other = await revocations('198.51.100.72');
    expect(other.status).toBe(200);
    expect(other.body.data).toMatchObject({ revocations: expect.any(Array), hasMore: expect.any(Boolean) });
    expect(other.headers.get('cache-control')).toMatch(/^private, max-age=/);
  });
});
