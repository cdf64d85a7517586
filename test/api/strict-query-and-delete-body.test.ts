import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signedInAdmin } from './admin/helpers.js';
import { lockSeats } from '../support/bookings.js';
import { useTestApp, type TestResponse } from '../support/harness.js';
import { webTraveller } from '../support/journeys.js';
import { operationsWorld } from '../support/operations.js';

/**
 * README "Conventions": bodies and query strings are strict, and a route that takes no body refuses
 * one. A route that declares no query parameters takes none (`?foo=1` is refused as a declared
 * query's unknown key is, before the route acts), and a DELETE that takes no body refuses one as
 * POST, PUT and PATCH do.
 */

/** The refusal a strict query gives for an unknown key `foo`, declared or not. */
const UNKNOWN_FOO = {
  status: 400,
  errorCode: 'VALIDATION_FAILED',
  issues: [{ path: 'query', code: 'unrecognized_keys', message: 'Unrecognized key: "foo"' }],
};

const refusalOf = (response: TestResponse) => ({
  status: response.status,
  errorCode: response.body?.errorCode,
  issues: response.body?.details?.issues,
});

describe('a route that declares no query takes none', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  it('refuses an unknown key on every surface as a route with a declared query does', async () => {
    const world = await operationsWorld(app);
    const traveller = await app.signIn();
    const { browser } = await signedInAdmin(app);
    const owner = { Cookie: world.sessions.OWNER.cookie };
    const answers = {
      // A route that declares its query, for the shape every refusal below must have.
      'customer GET /bookings (declared)': await app.request('/api/bookings?foo=1', {
        headers: { Cookie: traveller.cookie },
      }),
      'customer GET /trips/{id}': await app.request(`/api/trips/${world.trip.tripId}?foo=1`),
      'customer GET /auth/customer/me': await app.request('/api/auth/customer/me?foo=1', {
        headers: { Cookie: traveller.cookie },
      }),
      'dashboard GET /settings': await app.request('/dashboard/api/settings?foo=1', { headers: owner }),
      'dashboard GET /trips/{id}/dispatch': await app.request(
        `/dashboard/api/trips/${world.trip.tripId}/dispatch?foo=1`,
        { headers: owner },
      ),
      'driver GET /trips/{id}/manifest': await app.request(
        `/driver/api/trips/${world.trip.tripId}/manifest?foo=1`,
        { headers: world.driver.writeHeaders },
      ),
      'admin GET /permissions': await browser.get('/permissions?foo=1'),
    };
    expect(
      Object.fromEntries(Object.entries(answers).map(([label, answer]) => [label, refusalOf(answer)])),
    ).toEqual(Object.fromEntries(Object.keys(answers).map((label) => [label, UNKNOWN_FOO])));
    // Without the key each of them answers.
    expect((await app.request(`/api/trips/${world.trip.tripId}`)).status).toBe(200);
    expect((await app.request('/dashboard/api/settings', { headers: owner })).status).toBe(200);
  });

  it('refuses a write with an unknown key before it acts, on every surface', async () => {
    const world = await operationsWorld(app);
    const traveller = await app.signIn();
    const { browser } = await signedInAdmin(app, { role: 'SUPPORT' });
    const pair = { originCityId: world.trip.from.cityId, destCityId: world.trip.to.cityId };
    const plate = `Q ${randomUUID().slice(0, 6)}`;
    const title = `Outage ${randomUUID().slice(0, 6)}`;
    const answers = {
      'customer POST /favorites': await app.request('/api/favorites?foo=1', {
        method: 'POST',
        headers: traveller.writeHeaders,
        json: pair,
      }),
      'dashboard POST /buses': await app.request('/dashboard/api/buses?foo=1', {
        method: 'POST',
        headers: world.sessions.OWNER.writeHeaders,
        json: { plate_number: plate },
      }),
      'admin POST /incidents': await browser.send('POST', '/incidents?foo=1', { title, severity: 'MINOR' }),
      'driver POST /auth/logout': await app.request('/driver/api/auth/logout?foo=1', {
        method: 'POST',
        headers: world.driver.writeHeaders,
      }),
    };
    expect(
      Object.fromEntries(Object.entries(answers).map(([label, answer]) => [label, refusalOf(answer)])),
    ).toEqual(Object.fromEntries(Object.keys(answers).map((label) => [label, UNKNOWN_FOO])));
    const saved = {
      favorites: await app.db.query('select 1 from favorites where passenger_id = $1', [
        traveller.passengerId,
      ]),
      buses: await app.db.query('select 1 from buses where company_id = $1 and plate_number = upper($2)', [
        world.companyId,
        plate,
      ]),
      incidents: await app.db.query('select 1 from incidents where title = $1', [title]),
    };
    expect(saved).toEqual({ favorites: [], buses: [], incidents: [] });
    // The driver is still signed in: the refused sign-out ended nothing.
    const manifest = await app.request(`/driver/api/trips/${world.trip.tripId}/manifest`, {
      headers: world.driver.writeHeaders,
    });
    expect(manifest.status, manifest.text).toBe(200);
    // The same write without the key is taken.
    const taken = await app.request('/api/favorites', {
      method: 'POST',
      headers: traveller.writeHeaders,
      json: pair,
    });
    expect(taken.status, taken.text).toBe(201);
  });

  it('checks the caller first, as for a declared query: 401 without a session, 403 without the CSRF header', async () => {
    const traveller = await app.signIn();
    const signedOut = {
      declared: await app.request('/api/bookings?foo=1'),
      undeclared: await app.request('/api/favorites?foo=1'),
    };
    expect([signedOut.declared.status, signedOut.undeclared.status]).toEqual([401, 401]);
    const withoutCsrf = { Cookie: traveller.writeHeaders.Cookie! };
    const forged = {
      declared: await app.request('/api/favorites?foo=1', { method: 'DELETE', headers: withoutCsrf }),
      undeclared: await app.request('/api/favorites?foo=1', {
        method: 'POST',
        headers: withoutCsrf,
        json: {},
      }),
    };
    expect([forged.declared.body.errorCode, forged.undeclared.body.errorCode]).toEqual([
      'CSRF_TOKEN_INVALID',
      'CSRF_TOKEN_INVALID',
    ]);
  });

  it('leaves the pages outside the API surfaces and the payment webhook answering with any query', async () => {
    const answers = [
      await app.request('/healthz?foo=1'),
      await app.request('/api/openapi.json?foo=1'),
      await app.request('/docs?foo=1'),
      await app.request(`/share/${randomUUID()}?foo=1`),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    // Development mode: the webhook reads nothing of a notification, its query string included.
    const webhook = await app.request('/api/payments/webhook/cash?foo=1&foo=2', { method: 'POST' });
    expect([webhook.status, webhook.body.errorCode]).toEqual([501, 'OFFICIAL_CONTRACT_REQUIRED']);
  });
});

describe('a DELETE that takes no body refuses one', () => {
  const app = useTestApp();

  it('DELETE /seat-locks/{id} with seat numbers is 400 and the whole lock stays HELD', async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const caller = await webTraveller(app);
    const lockId = await lockSeats(app, caller, world.trip.tripId, ['1', '2']);
    const statusOfLock = async () =>
      (
        await app.db.query<{ status: string }>(
          `select string_agg(distinct status, ',') as status from seat_allocations
           where owner_kind = 'SEAT_LOCK' and hold_batch_id = $1`,
          [lockId],
        )
      )[0]!.status;

    const released = await app.request(`/api/seat-locks/${lockId}`, {
      method: 'DELETE',
      headers: caller.headers,
      json: { seat_numbers: ['2'] },
    });
    expect({
      status: released.status,
      errorCode: released.body.errorCode,
      lock: await statusOfLock(),
    }).toEqual({
      status: 400,
      errorCode: 'VALIDATION_FAILED',
      lock: 'HELD',
    });

    // An empty object is no body: the lock is released as without one.
    const emptied = await app.request(`/api/seat-locks/${lockId}`, {
      method: 'DELETE',
      headers: caller.headers,
      json: {},
    });
    expect(emptied.status, emptied.text).toBe(200);
    expect(emptied.body.data.status).toBe('RELEASED');
  });
});
