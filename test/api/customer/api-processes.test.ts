import { describe, expect, it } from 'vitest';
import { futureDay } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { eventually, mobileTraveller, tripOf } from '../../support/journeys.js';
import { signedInAdmin } from '../admin/helpers.js';

/**
 * Two API processes (`a`, `b`) on one database, as `API_PROCESSES` runs them, each with its own
 * in-process caches: a change made through `a` reaches `b` within the documented staleness (the
 * company's standing within PLATFORM_STATE_POLL_SECONDS, a session at once), not when a cache ends.
 */
const settings = {
  SEARCH_CACHE_SECONDS: 30,
  PLATFORM_STATE_POLL_SECONDS: 1,
  ADMIN_LOGIN_MAX_PER_IP: 10_000,
  SEARCH_RATE_LIMIT_PER_MINUTE: 0,
};
const a = useTestApp(settings);
const b = useTestApp(settings);

const search = async (on: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const response = await on.request('/api/journeys/search', { method: 'POST', json: body, headers });
  expect(response.status, response.text).toBe(200);
  return response;
};

describe('two API processes on one database', () => {
  it("a suspension through process A drops the company from B's cached search within the poll interval", async () => {
    const trip = await tripOf(a.db);
    const { browser } = await signedInAdmin(a, { role: 'ADMIN' });
    const body = {
      origin_city_id: trip.stops[0]!.cityId,
      destination_city_id: trip.stops[2]!.cityId,
      departure_date: futureDay(3),
      passengers: 1,
    };
    // B warms its micro-cache (30 s) with the company in it.
    expect((await search(b, body)).text).toContain(trip.tripId);
    expect((await search(b, body)).text).toContain(trip.tripId);

    const suspended = await browser.send('POST', `/companies/${trip.companyId}/suspend`, {
      reason: 'Licence expired',
    });
    expect(suspended.status, suspended.text).toBe(200);
    // Well before B's cached answer (30 s) would end: B polls the standing every second.
    const gone = await eventually(
      () => search(b, body),
      (response) => !response.text.includes(trip.tripId),
      8_000,
    );
    expect(gone.text).not.toContain(trip.tripId);

    const back = await browser.send('POST', `/companies/${trip.companyId}/unsuspend`, { reason: 'Renewed' });
    expect(back.status, back.text).toBe(200);
    const restored = await eventually(
      () => search(b, body),
      (response) => response.text.includes(trip.tripId),
      8_000,
    );
    expect(restored.text).toContain(trip.tripId);
  });

  it('a traveller token verified (and remembered) by B is refused by B at once after logout through A', async () => {
    const traveller = await mobileTraveller(a);
    const before = await b.request('/api/favorites', { headers: traveller.headers });
    expect(before.status, before.text).toBe(200);
    const out = await a.request('/api/auth/customer/logout', {
      method: 'POST',
      headers: { ...traveller.headers, 'X-Client': 'mobile' },
    });
    expect(out.status, out.text).toBeLessThan(300);
    const after = await b.request('/api/favorites', { headers: traveller.headers });
    expect(after.status, after.text).toBe(401);
  });
});
