import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/index.js';
import type { Database } from '../../../db/orm.js';
import { createCity, type CityRow } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';

async function favoriteRows(db: Database, passengerId: string) {
  return db.query<{ id: string; origin_city_id: string; dest_city_id: string }>(
    'select id, origin_city_id, dest_city_id from favorites where passenger_id = $1',
    [passengerId],
  );
}

async function twoCities(db: Database): Promise<[CityRow, CityRow]> {
  return [await createCity(db), await createCity(db)];
}

/** A bearer-authenticated (mobile) traveller with the ids of its account. */
async function mobileTraveller(app: TestApp) {
  const traveller = await app.signIn();
  return { ...traveller, auth: { token: traveller.token } };
}

describe('favorites: who may use them', () => {
  const app = useTestApp();

  it('refuses every favorites call without a traveller session (401 AUTH_REQUIRED) and writes nothing', async () => {
    const [origin, dest] = await twoCities(app.db);
    const pair = { originCityId: origin.id, destCityId: dest.id };
    const answers = [
      await app.request('/api/favorites'),
      await app.request('/api/favorites', { method: 'POST', json: pair }),
      await app.request(`/api/favorites?originCityId=${origin.id}&destCityId=${dest.id}`, {
        method: 'DELETE',
      }),
      await app.request('/api/favorites', { method: 'POST', json: pair, token: 'not-a-token' }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.body.errorCode).toBe('AUTH_REQUIRED');
    }
    const [count] = await app.db.query<{ n: number }>(
      'select count(*)::int as n from favorites where origin_city_id = $1',
      [origin.id],
    );
    expect(count!.n).toBe(0);
  });

  it('refuses a session that was revoked', async () => {
    const traveller = await mobileTraveller(app);
    await app.db.query(`update traveller_sessions set revoked_at = now() where id = $1`, [
      traveller.sessionId,
    ]);
    const answer = await app.request('/api/favorites', traveller.auth);
    expect(answer.status).toBe(401);
    expect(answer.body.errorCode).toBe('AUTH_REQUIRED');
  });

  it('answers 409 TRAVELER_PROFILE_REQUIRED to an account with no traveller profile, and writes nothing', async () => {
    const traveller = await mobileTraveller(app);
    await app.db.query('update users set passenger_id = null where id = $1', [traveller.userId]);
    const [origin, dest] = await twoCities(app.db);
    const answers = [
      await app.request('/api/favorites', traveller.auth),
      await app.request('/api/favorites', {
        method: 'POST',
        json: { originCityId: origin.id, destCityId: dest.id },
        ...traveller.auth,
      }),
      await app.request(`/api/favorites?originCityId=${origin.id}&destCityId=${dest.id}`, {
        method: 'DELETE',
        ...traveller.auth,
      }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(409);
      expect(answer.body.errorCode).toBe('TRAVELER_PROFILE_REQUIRED');
    }
    expect(await favoriteRows(app.db, traveller.passengerId)).toEqual([]);
  });

  it('on the web, POST and DELETE need X-CSRF-Token equal to the CSRF cookie; without it nothing is written or removed', async () => {
    const traveller = await app.signIn();
    const [origin, dest] = await twoCities(app.db);
    const pair = { originCityId: origin.id, destCityId: dest.id };

    const missing = await app.request('/api/favorites', {
      method: 'POST',
      json: pair,
      headers: { Cookie: traveller.cookie },
    });
    expect(missing.status).toBe(403);
    expect(missing.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    const wrong = await app.request('/api/favorites', {
      method: 'POST',
      json: pair,
      headers: { Cookie: traveller.cookie, 'X-CSRF-Token': 'something-else' },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    expect(await favoriteRows(app.db, traveller.passengerId)).toEqual([]);

    const saved = await app.request('/api/favorites', {
      method: 'POST',
      json: pair,
      headers: traveller.writeHeaders,
    });
    expect(saved.status).toBe(201);

    const query = `?originCityId=${origin.id}&destCityId=${dest.id}`;
    const removeWithout = await app.request(`/api/favorites${query}`, {
      method: 'DELETE',
      headers: { Cookie: traveller.cookie },
    });
    expect(removeWithout.status).toBe(403);
    expect(removeWithout.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    expect(await favoriteRows(app.db, traveller.passengerId)).toHaveLength(1);

    // Reading needs no CSRF header.
    const list = await app.request('/api/favorites', { headers: { Cookie: traveller.cookie } });
    expect(list.status).toBe(200);
    expect(list.body.favorites).toHaveLength(1);

    const removed = await app.request(`/api/favorites${query}`, {
      method: 'DELETE',
      headers: traveller.writeHeaders,
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ success: true, removed: true });
    expect(await favoriteRows(app.db, traveller.passengerId)).toEqual([]);
  });

  it("never shows or removes another traveller's favorite", async () => {
    const owner = await mobileTraveller(app);
    const other = await mobileTraveller(app);
    const [origin, dest] = await twoCities(app.db);
    const saved = await app.request('/api/favorites', {
      method: 'POST',
      json: { originCityId: origin.id, destCityId: dest.id },
      ...owner.auth,
    });
    expect(saved.status).toBe(201);

    const othersList = await app.request('/api/favorites', other.auth);
    expect(othersList.body.favorites).toEqual([]);
    const othersDelete = await app.request(`/api/favorites?originCityId=${origin.id}&destCityId=${dest.id}`, {
      method: 'DELETE',
      ...other.auth,
    });
    expect(othersDelete.status).toBe(200);
    expect(othersDelete.body.removed).toBe(false);
    expect(await favoriteRows(app.db, owner.passengerId)).toHaveLength(1);
  });

  it('refuses a traveller id sent by the client (strict body) and writes nothing', async () => {
    const traveller = await mobileTraveller(app);
    const victim = await mobileTraveller(app);
    const [origin, dest] = await twoCities(app.db);
    const answer = await app.request('/api/favorites', {
      method: 'POST',
      json: { originCityId: origin.id, destCityId: dest.id, passengerId: victim.passengerId },
      ...traveller.auth,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errorCode).toBe('VALIDATION_FAILED');
    expect(await favoriteRows(app.db, traveller.passengerId)).toEqual([]);
    expect(await favoriteRows(app.db, victim.passengerId)).toEqual([]);
  });

  it('uses the canonical traveller profile when the account points at a merged-away one', async () => {
    const traveller = await mobileTraveller(app);
    const [canonical] = await app.db.query<{ id: string }>(
      `insert into passengers (name) values ('Canonical') returning id`,
    );
    await app.db.query('update passengers set merged_into_id = $2 where id = $1', [
      traveller.passengerId,
      canonical!.id,
    ]);
    const [origin, dest] = await twoCities(app.db);

    const saved = await app.request('/api/favorites', {
      method: 'POST',
      json: { originCityId: origin.id, destCityId: dest.id },
      ...traveller.auth,
    });
    expect(saved.status).toBe(201);
    expect(await favoriteRows(app.db, traveller.passengerId)).toEqual([]);
    expect(await favoriteRows(app.db, canonical!.id)).toHaveLength(1);
    const list = await app.request('/api/favorites', traveller.auth);
    expect(list.body.favorites.map((favorite: any) => favorite.id)).toEqual([saved.body.favorite.id]);
  });
});

describe('favorites: saving, listing and removing', () => {
  const app = useTestApp();

  it('saves a route once: the repeat answers alreadySaved: true with the same favorite and no second row', async () => {
    const traveller = await mobileTraveller(app);
    const [origin, dest] = await twoCities(app.db);
    const pair = { originCityId: origin.id, destCityId: dest.id };

    const first = await app.request('/api/favorites', { method: 'POST', json: pair, ...traveller.auth });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ success: true, alreadySaved: false });
    expect(first.body.favorite).toEqual({
      id: expect.any(String),
      origin_city_id: origin.id,
      dest_city_id: dest.id,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      origin_city: { id: origin.id, name_ar: origin.nameAr, name_en: origin.nameEn },
      dest_city: { id: dest.id, name_ar: dest.nameAr, name_en: dest.nameEn },
    });

    const again = await app.request('/api/favorites', {
      method: 'POST',
      // The same ids in upper case are the same UUIDs.
      json: { originCityId: origin.id.toUpperCase(), destCityId: dest.id.toUpperCase() },
      ...traveller.auth,
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: true, alreadySaved: true });
    expect(again.body.favorite).toEqual(first.body.favorite);
    expect(await favoriteRows(app.db, traveller.passengerId)).toHaveLength(1);
  });

  it('concurrent duplicate saves end with one row', async () => {
    const traveller = await mobileTraveller(app);
    const [origin, dest] = await twoCities(app.db);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        app.request('/api/favorites', {
          method: 'POST',
          json: { originCityId: origin.id, destCityId: dest.id },
          ...traveller.auth,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.favorite.id)).size).toBe(1);
    expect(await favoriteRows(app.db, traveller.passengerId)).toHaveLength(1);
  });

  it('lists newest first, privately (Cache-Control: private, no-store)', async () => {
    const traveller = await mobileTraveller(app);
    const [a, b] = await twoCities(app.db);
    const c = await createCity(app.db);
    const ids: string[] = [];
    for (const [origin, dest] of [
      [a, b],
      [b, c],
      [c, a],
    ] as const) {
      const saved = await app.request('/api/favorites', {
        method: 'POST',
        json: { originCityId: origin.id, destCityId: dest.id },
        ...traveller.auth,
      });
      ids.push(saved.body.favorite.id);
    }
    const list = await app.request('/api/favorites', traveller.auth);
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toBe('private, no-store');
    expect(list.headers.get('vary')).toContain('Authorization');
    expect(list.body.success).toBe(true);
    expect(list.body.favorites.map((favorite: any) => favorite.id)).toEqual([...ids].reverse());
    for (const favorite of list.body.favorites) {
      expect(favorite.origin_city.id).toBe(favorite.origin_city_id);
      expect(favorite.dest_city.id).toBe(favorite.dest_city_id);
    }
  });

  it('removes a saved route; removing it again answers removed: false', async () => {
    const traveller = await mobileTraveller(app);
    const [origin, dest] = await twoCities(app.db);
    const [kept] = await twoCities(app.db);
    await app.request('/api/favorites', {
      method: 'POST',
      json: { originCityId: origin.id, destCityId: dest.id },
      ...traveller.auth,
    });
    await app.request('/api/favorites', {
      method: 'POST',
      json: { originCityId: dest.id, destCityId: kept.id },
      ...traveller.auth,
    });

    const path = `/api/favorites?originCityId=${origin.id.toUpperCase()}&destCityId=${dest.id}`;
    const removed = await app.request(path, { method: 'DELETE', ...traveller.auth });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, removed: true });
    const rows = await favoriteRows(app.db, traveller.passengerId);
    expect(rows.map((row) => [row.origin_city_id, row.dest_city_id])).toEqual([[dest.id, kept.id]]);

    const again = await app.request(path, { method: 'DELETE', ...traveller.auth });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: true, removed: false });
  });
});

describe('favorites: refused input writes nothing', () => {
  const app = useTestApp();
  const unknownCity = '3f1e0c8a-5b7d-4e2f-9a6c-0d1b2c3e4f5a';

  const cases: { name: string; body: (origin: string, dest: string) => unknown; errorCode: string }[] = [
    { name: 'no body at all', body: () => undefined, errorCode: 'CITY_IDS_REQUIRED' },
    { name: 'an empty object', body: () => ({}), errorCode: 'CITY_IDS_REQUIRED' },
    { name: 'no destination', body: (origin) => ({ originCityId: origin }), errorCode: 'CITY_IDS_REQUIRED' },
    {
      name: 'an empty origin',
      body: (_origin, dest) => ({ originCityId: '', destCityId: dest }),
      errorCode: 'CITY_IDS_REQUIRED',
    },
    {
      name: 'a null destination',
      body: (origin) => ({ originCityId: origin, destCityId: null }),
      errorCode: 'CITY_IDS_REQUIRED',
    },
    {
      name: 'a number',
      body: (origin) => ({ originCityId: origin, destCityId: 42 }),
      errorCode: 'INVALID_CITY_ID',
    },
    {
      name: 'free text',
      body: (_origin, dest) => ({ originCityId: 'damascus', destCityId: dest }),
      errorCode: 'INVALID_CITY_ID',
    },
    {
      name: 'a UUID without hyphens',
      body: (origin, dest) => ({ originCityId: origin.replaceAll('-', ''), destCityId: dest }),
      errorCode: 'INVALID_CITY_ID',
    },
    {
      name: 'a UUID in braces',
      body: (origin, dest) => ({ originCityId: `{${origin}}`, destCityId: dest }),
      errorCode: 'INVALID_CITY_ID',
    },
    {
      name: 'the same city twice',
      body: (origin) => ({ originCityId: origin, destCityId: origin }),
      errorCode: 'ROUTE_CITIES_MUST_DIFFER',
    },
    {
      name: 'the same city in two spellings',
      body: (origin) => ({ originCityId: origin, destCityId: origin.toUpperCase() }),
      errorCode: 'ROUTE_CITIES_MUST_DIFFER',
    },
    {
      name: 'a city that does not exist',
      body: (origin) => ({ originCityId: origin, destCityId: unknownCity }),
      errorCode: 'FAVORITE_CITY_NOT_FOUND',
    },
  ];

  for (const { name, body, errorCode } of cases) {
    it(`POST with ${name}: 400 ${errorCode}`, async () => {
      const traveller = await app.signIn();
      const [origin, dest] = await twoCities(app.db);
      const answer = await app.request('/api/favorites', {
        method: 'POST',
        ...(body(origin.id, dest.id) === undefined ? {} : { json: body(origin.id, dest.id) }),
        headers: traveller.writeHeaders,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.errorCode).toBe(errorCode);
      expect(answer.body.success).toBe(false);
      expect(await favoriteRows(app.db, traveller.passengerId)).toEqual([]);
    });
  }

  const queryCases: { name: string; query: (origin: string, dest: string) => string; errorCode: string }[] = [
    { name: 'no query', query: () => '', errorCode: 'CITY_IDS_REQUIRED' },
    {
      name: 'an empty destination',
      query: (origin) => `?originCityId=${origin}&destCityId=`,
      errorCode: 'CITY_IDS_REQUIRED',
    },
    {
      name: 'a malformed id',
      query: (origin) => `?originCityId=${origin}&destCityId=abc`,
      errorCode: 'INVALID_CITY_ID',
    },
    {
      name: 'the same city twice',
      query: (origin) => `?originCityId=${origin}&destCityId=${origin}`,
      errorCode: 'ROUTE_CITIES_MUST_DIFFER',
    },
    {
      name: 'an unknown city',
      query: (origin) => `?originCityId=${origin}&destCityId=${unknownCity}`,
      errorCode: 'FAVORITE_CITY_NOT_FOUND',
    },
  ];

  for (const { name, query, errorCode } of queryCases) {
    it(`DELETE with ${name}: 400 ${errorCode}, and the saved route stays`, async () => {
      const traveller = await app.signIn();
      const [origin, dest] = await twoCities(app.db);
      await app.request('/api/favorites', {
        method: 'POST',
        json: { originCityId: origin.id, destCityId: dest.id },
        headers: traveller.writeHeaders,
      });
      const answer = await app.request(`/api/favorites${query(origin.id, dest.id)}`, {
        method: 'DELETE',
        headers: traveller.writeHeaders,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.errorCode).toBe(errorCode);
      expect(await favoriteRows(app.db, traveller.passengerId)).toHaveLength(1);
    });
  }
});

describe('favorites: database failures', () => {
  // The app connects as a role that may use every table except favorites, so each favorites
  // statement fails inside PostgreSQL the way a real outage of that table would.
  const role = `bb_no_favorites_${process.pid}_${Date.now()}`;
  const url = new URL(loadConfig().DATABASE_URL);
  const asAdmin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  beforeAll(async () => {
    await asAdmin(`create role ${role} login`);
    await asAdmin(
      `grant select, insert, update, delete on all tables in schema public to ${role}; revoke all on favorites from ${role}`,
    );
  });
  afterAll(async () => {
    await asAdmin(`drop owned by ${role}; drop role ${role}`);
  });
  const restricted = new URL(url);
  restricted.username = role;
  const app = useTestApp({ DATABASE_URL: restricted.toString() });

  it('maps each failure to its SPEC code and never returns the raw error', async () => {
    const traveller = await mobileTraveller(app);
    const [origin, dest] = await twoCities(app.db);
    const answers = {
      FAVORITES_LOOKUP_FAILED: await app.request('/api/favorites', traveller.auth),
      FAVORITE_SAVE_FAILED: await app.request('/api/favorites', {
        method: 'POST',
        json: { originCityId: origin.id, destCityId: dest.id },
        ...traveller.auth,
      }),
      FAVORITE_REMOVE_FAILED: await app.request(
        `/api/favorites?originCityId=${origin.id}&destCityId=${dest.id}`,
        {
          method: 'DELETE',
          ...traveller.auth,
        },
      ),
    };
    for (const [errorCode, answer] of Object.entries(answers)) {
      expect(answer.status).toBe(500);
      expect(answer.body.errorCode).toBe(errorCode);
      expect(answer.text).not.toMatch(/permission|denied|relation|select|insert|delete from/i);
    }
  });
});
