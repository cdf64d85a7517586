import { randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sendOtp } from '../../../api/auth/otp.js';
import { loadConfig } from '../../../config/index.js';
import { createLogger } from '../../../config/logger.js';
import type { Database } from '../../../db/orm.js';
import { createCity } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';

/** FAVORITES_MAX in these tests: small, so a traveller reaches it in a few requests. */
const LIMIT = 3;

interface Pair {
  originCityId: string;
  destCityId: string;
}

async function favoritePairs(db: Database, passengerId: string): Promise<string[]> {
  const rows = await db.query<{ origin_city_id: string; dest_city_id: string }>(
    'select origin_city_id, dest_city_id from favorites where passenger_id = $1 order by origin_city_id, dest_city_id',
    [passengerId],
  );
  return rows.map((row) => `${row.origin_city_id}>${row.dest_city_id}`);
}

/** Every ordered pair of `count` new cities: count × (count - 1) distinct routes. */
async function routes(db: Database, count: number): Promise<Pair[]> {
  const cities: string[] = [];
  for (let index = 0; index < count; index += 1) cities.push((await createCity(db)).id);
  return cities.flatMap((origin) =>
    cities.filter((dest) => dest !== origin).map((dest) => ({ originCityId: origin, destCityId: dest })),
  );
}

function save(app: TestApp, token: string, pair: Pair) {
  return app.request('/api/favorites', { method: 'POST', json: pair, token });
}

function remove(app: TestApp, token: string, pair: Pair) {
  return app.request(`/api/favorites?originCityId=${pair.originCityId}&destCityId=${pair.destCityId}`, {
    method: 'DELETE',
    token,
  });
}

describe('favorites: at most FAVORITES_MAX per traveller', () => {
  const app = useTestApp({ FAVORITES_MAX: LIMIT });

  it('refuses one more route with 409 FAVORITES_LIMIT_REACHED and stores nothing; a saved route still answers alreadySaved', async () => {
    const traveller = await app.signIn();
    const pairs = await routes(app.db, 3);
    for (const pair of pairs.slice(0, LIMIT))
      expect((await save(app, traveller.token, pair)).status).toBe(201);
    const before = await favoritePairs(app.db, traveller.passengerId);

    const refused = await save(app, traveller.token, pairs[LIMIT]!);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      success: false,
      errorCode: 'FAVORITES_LIMIT_REACHED',
      details: { limit: LIMIT },
    });
    expect(await favoritePairs(app.db, traveller.passengerId)).toEqual(before);

    const repeat = await save(app, traveller.token, pairs[0]!);
    expect(repeat.status).toBe(200);
    expect(repeat.body.alreadySaved).toBe(true);
    const list = await app.request('/api/favorites', { token: traveller.token });
    expect(list.body.favorites).toHaveLength(LIMIT);

    // Removing one makes room again.
    expect((await remove(app, traveller.token, pairs[0]!)).body.removed).toBe(true);
    expect((await save(app, traveller.token, pairs[LIMIT]!)).status).toBe(201);
    expect(await favoritePairs(app.db, traveller.passengerId)).toHaveLength(LIMIT);
  });

  it('many different routes saved at once never pass the cap', async () => {
    const traveller = await app.signIn();
    const pairs = await routes(app.db, 4);
    const answers = await Promise.all(pairs.map((pair) => save(app, traveller.token, pair)));

    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 409)).toHaveLength(pairs.length - LIMIT);
    const saved = answers.filter((answer) => answer.status === 201);
    const stored = await favoritePairs(app.db, traveller.passengerId);
    expect(stored).toHaveLength(LIMIT);
    expect(stored.sort()).toEqual(
      saved
        .map((answer) => `${answer.body.favorite.origin_city_id}>${answer.body.favorite.dest_city_id}`)
        .sort(),
    );
  });

  it('counts favorites per traveller: one at the cap leaves another free to save', async () => {
    const full = await app.signIn();
    const other = await app.signIn();
    const pairs = await routes(app.db, 3);
    for (const pair of pairs.slice(0, LIMIT)) await save(app, full.token, pair);
    expect((await save(app, full.token, pairs[LIMIT]!)).status).toBe(409);
    expect((await save(app, other.token, pairs[LIMIT]!)).status).toBe(201);
  });
});

describe('favorites: an account merge moves every favorite, even past the cap', () => {
  const app = useTestApp({ FAVORITES_MAX: LIMIT, OTP_PRELAUNCH: true, COOKIE_SECURE: false });
  let pairs: Pair[] = [];
  beforeAll(async () => {
    pairs = await routes(app.db, 3);
  });

  it('completes the merge, lists them all, and refuses a new route until the traveller is below the cap', async () => {
    // A profile holding more than the cap (saved under a higher one) is merged into an older record.
    const traveller = await app.signIn(undefined, { phone: null });
    for (const pair of pairs.slice(0, LIMIT + 1)) {
      await app.db.query(
        'insert into favorites (passenger_id, origin_city_id, dest_city_id) values ($1, $2, $3)',
        [traveller.passengerId, pair.originCityId, pair.destCityId],
      );
    }
    const phone = `+963900${String(randomInt(100_000, 1_000_000))}`;
    const [old] = await app.db.query<{ id: string }>(
      `insert into passengers (phone, name, created_at) values ($1, 'Old record', now() - interval '400 days') returning id`,
      [phone],
    );
    const sent = await sendOtp(
      { config: app.config, db: app.db, logger: createLogger(app.config, 'test') },
      { phone, method: 'sms' },
    );
    const merged = await app.request('/api/auth/customer/complete-phone', {
      method: 'POST',
      json: { phone, code: sent.localCode, method: 'sms' },
      token: traveller.token,
    });
    expect(merged.status).toBe(200);
    expect(merged.body.data).toMatchObject({ passengerId: old!.id, merged: true });
    expect(await favoritePairs(app.db, old!.id)).toHaveLength(LIMIT + 1);
    const list = await app.request('/api/favorites', { token: traveller.token });
    expect(list.body.favorites).toHaveLength(LIMIT + 1);

    expect((await save(app, traveller.token, pairs[0]!)).body.alreadySaved).toBe(true);
    const refused = await save(app, traveller.token, pairs[LIMIT + 1]!);
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('FAVORITES_LIMIT_REACHED');
    await remove(app, traveller.token, pairs[0]!);
    expect((await save(app, traveller.token, pairs[LIMIT + 1]!)).status).toBe(409);
    await remove(app, traveller.token, pairs[1]!);
    expect((await save(app, traveller.token, pairs[LIMIT + 1]!)).status).toBe(201);
    expect(await favoritePairs(app.db, old!.id)).toHaveLength(LIMIT);
  });
});

describe('FAVORITES_MAX setting', () => {
  it('defaults to 50 and refuses a value outside 1..1000 at start-up, naming the setting', () => {
    expect(loadConfig({}).FAVORITES_MAX).toBe(50);
    expect(loadConfig({ FAVORITES_MAX: '200' }).FAVORITES_MAX).toBe(200);
    for (const bad of ['0', '-1', '1001', '2.5', 'many']) {
      expect(() => loadConfig({ FAVORITES_MAX: bad })).toThrow(/FAVORITES_MAX/);
    }
  });
});
