import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../db/orm.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createRoute,
  createStop,
  createTrip,
  futureDay,
  type CityRow,
  type CompanyScopeKind,
} from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';

interface DirectoryBody {
  cities: { key: string; id: string; name_en: string; latitude: number; longitude: number }[];
  locations: { key: string; id: string; city_id: string; city_key: string; kind: string }[];
}

interface RouteStat {
  origin_city: { id: string; name_ar: string; name_en: string };
  destination_city: { id: string; name_ar: string; name_en: string };
  departures: number;
  companies: number;
  min_price: number;
  currency: string;
}

interface LandingRoute {
  origin_city: { id: string };
  destination_city: { id: string };
  min_price: number;
  currency: string;
  departures_per_day: number;
  companies: { id: string; name_ar: string; name_en: string }[];
}

/** `count` departures of one company between two cities, one a day from tomorrow on, at 08:00. */
async function departures(
  db: Database,
  options: {
    companyId: string;
    from: CityRow;
    to: CityRow;
    count: number;
    firstDay?: number;
    priceBase?: number;
    status?: string;
  },
) {
  const bus = await createBus(db, options.companyId);
  const route = await createRoute(db, options.companyId, options.from.id, options.to.id);
  const fromStop = await createStop(db, options.from.id);
  const toStop = await createStop(db, options.to.id);
  for (let day = 0; day < options.count; day++) {
    await createTrip(db, {
      companyId: options.companyId,
      busId: bus.id,
      routeId: route.id,
      departAt: atDamascus(futureDay((options.firstDay ?? 1) + day), '08:00'),
      priceBase: options.priceBase ?? 10_000,
      status: options.status,
      calls: [
        { stop: fromStop, at: 0 },
        { stop: toStop, at: 180 },
      ],
    });
  }
}

const pairOf =
  (origin: CityRow, destination: CityRow) =>
  (route: { origin_city: { id: string }; destination_city: { id: string } }) =>
    route.origin_city.id === origin.id && route.destination_city.id === destination.id;

describe('GET /journey-locations', () => {
  const app = useTestApp();
  const stops: Record<string, { id: string; cityId: string }> = {};
  let city: CityRow;
  let hiddenOnlyCity: CityRow;

  beforeAll(async () => {
    city = await createCity(app.db);
    hiddenOnlyCity = await createCity(app.db);
    const production = await createCompany(app.db);
    const internal = await createCompany(app.db, { scope: 'INTERNAL' });
    const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
    const unpublished = await createCompany(app.db, { published: false });
    stops.busStation = await createStop(app.db, city.id, { kind: 'BUS_STATION' });
    stops.parkingPoint = await createStop(app.db, city.id, { kind: 'PARKING_POINT' });
    stops.airport = await createStop(app.db, city.id, { kind: 'AIRPORT' });
    stops.boardingPoint = await createStop(app.db, city.id, { kind: 'BOARDING_POINT' });
    stops.productionCompanyStop = await createStop(app.db, city.id, {
      kind: 'BOARDING_POINT',
      companyId: production.id,
    });
    stops.depot = await createStop(app.db, city.id, { kind: 'DEPOT' });
    stops.disabled = await createStop(app.db, city.id, { enabled: false });
    stops.internalCompanyStop = await createStop(app.db, city.id, { companyId: internal.id });
    stops.suspendedCompanyStop = await createStop(app.db, city.id, { companyId: suspended.id });
    stops.unpublishedCompanyStop = await createStop(app.db, city.id, { companyId: unpublished.id });
    await createStop(app.db, hiddenOnlyCity.id, { kind: 'DEPOT' });
    await createStop(app.db, hiddenOnlyCity.id, { companyId: internal.id });
  });

  it('lists enabled stops of public kinds, and company stops only of production companies', async () => {
    const res = await app.request('/api/journey-locations');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const listed = new Set((res.body.data as DirectoryBody).locations.map((location) => location.id));
    for (const name of ['busStation', 'parkingPoint', 'airport', 'boardingPoint', 'productionCompanyStop']) {
      expect(listed.has(stops[name]!.id), name).toBe(true);
    }
    for (const name of [
      'depot',
      'disabled',
      'internalCompanyStop',
      'suspendedCompanyStop',
      'unpublishedCompanyStop',
    ]) {
      expect(listed.has(stops[name]!.id), name).toBe(false);
    }
    const kinds = new Set((res.body.data as DirectoryBody).locations.map((location) => location.kind));
    expect(kinds.has('DEPOT')).toBe(false);
  });

  it('gives stable CITY: and STOP: keys, and lists only cities that have a listed stop', async () => {
    const first = await app.request('/api/journey-locations');
    const second = await app.request('/api/journey-locations');
    const data = first.body.data as DirectoryBody;
    expect(second.body).toEqual(first.body);

    const station = data.locations.find((location) => location.id === stops.busStation!.id)!;
    expect(station).toMatchObject({
      key: `STOP:${stops.busStation!.id}`,
      city_id: city.id,
      city_key: `CITY:${city.id}`,
      kind: 'BUS_STATION',
      name_en: expect.any(String) as string,
      latitude: 33.51,
      longitude: 36.29,
    });
    expect(data.cities.find((entry) => entry.id === city.id)).toEqual({
      key: `CITY:${city.id}`,
      id: city.id,
      name_ar: city.nameAr,
      name_en: city.nameEn,
      latitude: 33.5,
      longitude: 36.3,
    });
    expect(data.cities.some((entry) => entry.id === hiddenOnlyCity.id)).toBe(false);
    for (const location of data.locations) {
      expect(data.cities.some((entry) => entry.key === location.city_key)).toBe(true);
    }
  });

  it('is public data cached for one hour, the same whoever asks', async () => {
    const guest = await app.request('/api/journey-locations');
    const internal = await app.request('/api/journey-locations', {
      token: await app.tokenFor({ kind: 'INTERNAL' }),
    });
    // What remains of the hour of the in-process snapshot, which an earlier test may have loaded.
    const maxAge = Number(/^public, max-age=(\d+)$/.exec(guest.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(3500);
    expect(maxAge).toBeLessThanOrEqual(3600);
    expect(guest.headers.get('content-type')).toMatch(/^application\/json/);
    expect(internal.text).toBe(guest.text);
  });

  it('compresses for clients that accept gzip and answers a revalidation with 304', async () => {
    const plain = await app.request('/api/journey-locations', { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toBe('Origin, Authorization, Cookie, Accept-Encoding');

    // fetch asks for gzip and inflates the body transparently.
    const compressed = await app.request('/api/journey-locations', {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(compressed.headers.get('content-encoding')).toBe('gzip');
    expect(compressed.headers.get('vary')).toBe('Origin, Authorization, Cookie, Accept-Encoding');
    expect(compressed.text).toBe(plain.text);

    const etag = plain.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const revalidated = await app.request('/api/journey-locations', {
      headers: { 'Accept-Encoding': 'identity', 'If-None-Match': etag },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
  });

  it('tags the gzip and the plain body apart: a cache holding one is never told it may serve it for the other (RFC 9110 8.8.3.3)', async () => {
    const plain = await app.request('/api/journey-locations', { headers: { 'Accept-Encoding': 'identity' } });
    const compressed = await app.request('/api/journey-locations', {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    const [plainTag, gzipTag] = [plain.headers.get('etag')!, compressed.headers.get('etag')!];
    expect(gzipTag).toMatch(/^"[\w-]+"$/);
    expect(gzipTag).not.toBe(plainTag);

    // A shared cache holding only the gzip body revalidates it for a client without gzip: the plain body.
    const forPlain = await app.request('/api/journey-locations', {
      headers: { 'Accept-Encoding': 'identity', 'If-None-Match': gzipTag },
    });
    expect(forPlain.status).toBe(200);
    expect(forPlain.headers.get('content-encoding')).toBeNull();
    expect(forPlain.headers.get('etag')).toBe(plainTag);
    expect(forPlain.text).toBe(plain.text);
    // And the other way round: the gzip body for a client that takes gzip.
    const forGzip = await app.request('/api/journey-locations', {
      headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': plainTag },
    });
    expect([forGzip.status, forGzip.headers.get('content-encoding')]).toEqual([200, 'gzip']);
    // Each body revalidates under its own tag.
    const gzipHeld = await app.request('/api/journey-locations', {
      headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': gzipTag },
    });
    expect(gzipHeld.status).toBe(304);
  });

  it('sends a revalidating client the Vary of the 200 it holds, gzip or plain (RFC 9110 15.4.5)', async () => {
    for (const encoding of ['gzip', 'identity']) {
      const full = await app.request('/api/journey-locations', { headers: { 'Accept-Encoding': encoding } });
      expect(full.headers.get('content-encoding'), encoding).toBe(encoding === 'gzip' ? 'gzip' : null);
      const revalidated = await app.request('/api/journey-locations', {
        headers: { 'Accept-Encoding': encoding, 'If-None-Match': full.headers.get('etag')! },
      });
      expect(revalidated.status, encoding).toBe(304);
      expect(revalidated.headers.get('vary'), encoding).toBe(full.headers.get('vary'));
    }
  });

  it('keeps serving the cached directory: a stop added afterwards appears only when the cache expires', async () => {
    await app.request('/api/journey-locations');
    const late = await createStop(app.db, city.id);
    const res = await app.request('/api/journey-locations');
    expect((res.body.data as DirectoryBody).locations.some((location) => location.id === late.id)).toBe(
      false,
    );
  });
});

describe('GET /journey-locations freshness across caches', () => {
  // Long enough that the snapshot outlives the test on a loaded machine: a new one would answer a
  // fresh max-age (and, the directory changed by other test files, no 304).
  const app = useTestApp({ LOCATIONS_CACHE_SECONDS: 30 });

  const maxAgeOf = (response: { headers: Headers }) =>
    Number(/max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')![1]);

  it('lets a client or CDN keep the snapshot only for what remains of its period in process', async () => {
    const first = await app.request('/api/journey-locations');
    expect(maxAgeOf(first)).toBe(30);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const later = await app.request('/api/journey-locations');
    const revalidated = await app.request('/api/journey-locations', {
      headers: { 'If-None-Match': later.headers.get('etag')! },
    });
    expect(revalidated.status).toBe(304);
    // The snapshot is already 2 s old in process: it may be kept 28 s more at most, not 30 s afresh.
    for (const answer of [later, revalidated]) {
      expect(maxAgeOf(answer) - Number(answer.headers.get('age') ?? 0)).toBeLessThanOrEqual(28);
    }
  });
});

describe('GET /journey-locations with the in-process cache disabled', () => {
  const app = useTestApp({ LOCATIONS_CACHE_SECONDS: 0 });

  it('reads the directory afresh', async () => {
    const city = await createCity(app.db);
    await app.request('/api/journey-locations');
    const stop = await createStop(app.db, city.id, { kind: 'AIRPORT' });
    const res = await app.request('/api/journey-locations');
    expect((res.body.data as DirectoryBody).locations.some((location) => location.id === stop.id)).toBe(true);
  });
});

describe('GET /cities', () => {
  const app = useTestApp();

  it('lists cities ordered by English name with their coordinates, publicly cached', async () => {
    const later = await createCity(app.db, `Zz city ${crypto.randomUUID().slice(0, 8)}`);
    const earlier = await createCity(app.db, `Aa city ${crypto.randomUUID().slice(0, 8)}`);
    const stop = await createStop(app.db, earlier.id);
    const res = await app.request('/api/cities');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const cities = res.body.data as { id: string }[];
    const earlierIndex = cities.findIndex((entry) => entry.id === earlier.id);
    const laterIndex = cities.findIndex((entry) => entry.id === later.id);
    expect(earlierIndex).toBeGreaterThanOrEqual(0);
    expect(laterIndex).toBeGreaterThan(earlierIndex);
    expect(cities[earlierIndex]).toEqual({
      id: earlier.id,
      name_ar: earlier.nameAr,
      name_en: earlier.nameEn,
      latitude: 33.5,
      longitude: 36.3,
    });
    expect(cities.some((entry) => entry.id === stop.id)).toBe(false);
  });
});

describe('GET /routes/popular and GET /landing/routes', () => {
  const app = useTestApp();
  let production: { id: string; nameEn: string };
  let demo: { id: string };
  const pairs = {} as Record<
    'shared' | 'internalOnly' | 'demoOnly' | 'suspendedOnly' | 'unpublishedOnly',
    [CityRow, CityRow]
  >;

  beforeAll(async () => {
    const cityPair = async (): Promise<[CityRow, CityRow]> => [
      await createCity(app.db),
      await createCity(app.db),
    ];
    for (const name of ['shared', 'internalOnly', 'demoOnly', 'suspendedOnly', 'unpublishedOnly'] as const) {
      pairs[name] = await cityPair();
    }
    production = await createCompany(app.db);
    const internal = await createCompany(app.db, { scope: 'INTERNAL' });
    demo = await createCompany(app.db, { scope: 'DEMO' });
    const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
    const unpublished = await createCompany(app.db, { published: false });
    const [a, b] = pairs.shared;
    // Many departures so the pair ranks high whatever else other test files add.
    await departures(app.db, { companyId: production.id, from: a, to: b, count: 14 });
    await departures(app.db, { companyId: production.id, from: a, to: b, count: 2, status: 'CANCELLED' });
    await departures(app.db, { companyId: internal.id, from: a, to: b, count: 9, priceBase: 1_000 });
    await departures(app.db, {
      companyId: internal.id,
      from: pairs.internalOnly[0],
      to: pairs.internalOnly[1],
      count: 12,
    });
    await departures(app.db, {
      companyId: demo.id,
      from: pairs.demoOnly[0],
      to: pairs.demoOnly[1],
      count: 12,
    });
    await departures(app.db, {
      companyId: suspended.id,
      from: pairs.suspendedOnly[0],
      to: pairs.suspendedOnly[1],
      count: 12,
    });
    const [u1, u2] = pairs.unpublishedOnly;
    await departures(app.db, { companyId: unpublished.id, from: u1, to: u2, count: 12 });
  });

  const popularFor = async (scope?: CompanyScopeKind) => {
    const token =
      scope === undefined
        ? undefined
        : await app.tokenFor(scope === 'DEMO' ? { kind: 'DEMO', companyId: demo.id } : { kind: scope });
    return app.request('/api/routes/popular', { token });
  };

  it('shows a guest only production inventory, counted without private trips on the same city pair', async () => {
    const res = await popularFor();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const routes = res.body.data as RouteStat[];
    expect(routes.length).toBeLessThanOrEqual(10);
    const shared = routes.find(pairOf(...pairs.shared));
    expect(shared).toEqual({
      origin_city: {
        id: pairs.shared[0].id,
        name_ar: pairs.shared[0].nameAr,
        name_en: pairs.shared[0].nameEn,
      },
      destination_city: {
        id: pairs.shared[1].id,
        name_ar: pairs.shared[1].nameAr,
        name_en: pairs.shared[1].nameEn,
      },
      departures: 14,
      companies: 1,
      min_price: 10_000,
      currency: 'SYP',
    });
    for (const hidden of ['internalOnly', 'demoOnly', 'suspendedOnly', 'unpublishedOnly'] as const) {
      expect(routes.some(pairOf(...pairs[hidden])), hidden).toBe(false);
    }
  });

  it('gives a regular account the production answer, privately', async () => {
    const res = await popularFor('PRODUCTION');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect((res.body.data as RouteStat[]).find(pairOf(...pairs.shared))?.departures).toBe(14);
  });

  it('gives an internal account only internal inventory', async () => {
    const res = await popularFor('INTERNAL');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const routes = res.body.data as RouteStat[];
    expect(routes.find(pairOf(...pairs.internalOnly))?.departures).toBe(12);
    expect(routes.find(pairOf(...pairs.shared))).toMatchObject({
      departures: 9,
      companies: 1,
      min_price: 1_000,
    });
    expect(routes.some(pairOf(...pairs.demoOnly))).toBe(false);
  });

  it('gives a demo persona only its own company', async () => {
    const routes = (await popularFor('DEMO')).body.data as RouteStat[];
    expect(routes.find(pairOf(...pairs.demoOnly))?.departures).toBe(12);
    expect(routes.some(pairOf(...pairs.shared))).toBe(false);
    expect(routes.some(pairOf(...pairs.internalOnly))).toBe(false);
  });

  it('refuses an expired credential with 401', async () => {
    const expired = await app.tokenFor({ kind: 'INTERNAL' }, { ttlSeconds: -60 });
    const res = await app.request('/api/routes/popular', { token: expired });
    expect(res.status).toBe(401);
    expect(res.body.data).toBeUndefined();
  });

  it('lists landing routes of production companies only, even for an internal token', async () => {
    for (const token of [
      undefined,
      await app.tokenFor({ kind: 'INTERNAL' }),
      await app.tokenFor({ kind: 'DEMO', companyId: demo.id }),
    ]) {
      const res = await app.request('/api/landing/routes', { token });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=600');
      const routes = res.body.data as LandingRoute[];
      const shared = routes.find(pairOf(...pairs.shared));
      expect(shared).toMatchObject({
        min_price: 10_000,
        currency: 'SYP',
        // Departures on days 1..14: days 1..6 fall inside the next 7 days for sure, day 7 only late in the day.
        companies: [{ id: production.id, name_ar: `شركة ${production.nameEn}`, name_en: production.nameEn }],
      });
      expect(shared!.departures_per_day).toBeGreaterThanOrEqual(6 / 7 - 0.01);
      expect(shared!.departures_per_day).toBeLessThanOrEqual(7 / 7);
      for (const hidden of ['internalOnly', 'demoOnly', 'suspendedOnly', 'unpublishedOnly'] as const) {
        expect(routes.some(pairOf(...pairs[hidden])), hidden).toBe(false);
      }
    }
  });
});

/**
 * Every seat of the trip's bus taken from its first call up to call `untilCall` (its last by
 * default): confirmed, or held until `heldForMinutes` from now (a past time: an expired hold).
 */
async function takeEverySeat(
  db: Database,
  tripId: string,
  options: { untilCall?: number; heldForMinutes?: number } = {},
) {
  await db.query(
    `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, expires_at, owner_kind)
     select t.id, ls.seat_id, ends.first_sequence, coalesce($2::int, ends.last_sequence),
            case when $3::int is null then 'CONFIRMED' else 'HELD' end,
            case when $3::int is null then null else now() + make_interval(mins => $3::int) end, 'BOOKING'
     from trips t
     join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
     join layout_seats ls on ls.layout_id = bl.id
     cross join lateral (select min(sequence) as first_sequence, max(sequence) as last_sequence
                         from trip_stop_calls where trip_id = t.id) ends
     where t.id = $1`,
    [tripId, options.untilCall ?? null, options.heldForMinutes ?? null],
  );
}

describe('GET /routes/popular and GET /landing/routes count only departures with a free seat', () => {
  const app = useTestApp();

  it('lists neither a pair nor a fare that only sold-out departures offer', async () => {
    const company = await createCompany(app.db);
    const [a, b, c, middle, d] = [
      await createCity(app.db),
      await createCity(app.db),
      await createCity(app.db),
      await createCity(app.db),
      await createCity(app.db),
    ];
    const [stopA, stopB, stopC, stopMiddle, stopD] = [
      await createStop(app.db, a.id),
      await createStop(app.db, b.id),
      await createStop(app.db, c.id),
      await createStop(app.db, middle.id),
      await createStop(app.db, d.id),
    ];
    const routeAB = await createRoute(app.db, company.id, a.id, b.id);
    const routeCD = await createRoute(app.db, company.id, c.id, d.id);
    // One bus per series, each departure on a day of its own.
    const [busAB, busCheap, busDear] = [
      await createBus(app.db, company.id),
      await createBus(app.db, company.id),
      await createBus(app.db, company.id),
    ];
    const departure = (
      busId: string,
      routeId: string,
      day: number,
      priceBase: number,
      calls: Parameters<typeof createTrip>[1]['calls'],
    ) =>
      createTrip(app.db, {
        companyId: company.id,
        busId,
        routeId,
        departAt: atDamascus(futureDay(day), '08:00'),
        priceBase,
        calls,
      });
    // A to B: 16 departures, every seat confirmed or held (the holds still live).
    for (let day = 1; day <= 16; day++) {
      const trip = await departure(busAB.id, routeAB.id, day, 10_000, [
        { stop: stopA, at: 0 },
        { stop: stopB, at: 120 },
      ]);
      await takeEverySeat(app.db, trip.id, day % 2 ? {} : { heldForMinutes: 10 });
    }
    // C to D through a middle city: 16 cheap departures whose every seat is sold from C to the middle
    // city (free on from there, which is not the pair), and 16 dearer ones whose holds have all expired.
    const cd = [
      { stop: stopC, at: 0 },
      { stop: stopMiddle, at: 60 },
      { stop: stopD, at: 120 },
    ];
    for (let day = 1; day <= 16; day++) {
      const cheap = await departure(busCheap.id, routeCD.id, day, 1_000, cd);
      const [middleCall] = await app.db.query<{ sequence: number }>(
        `select sequence from trip_stop_calls where id = $1`,
        [cheap.stopCallIds[1]],
      );
      await takeEverySeat(app.db, cheap.id, { untilCall: middleCall!.sequence });
      const dear = await departure(busDear.id, routeCD.id, day, 10_000, cd);
      await takeEverySeat(app.db, dear.id, { heldForMinutes: -1 });
    }

    // Search agrees: nothing is on sale from A to B.
    const searched = await app.request('/api/journeys/search', {
      method: 'POST',
      json: { origin_city_id: a.id, destination_city_id: b.id, departure_date: futureDay(3), passengers: 1 },
    });
    expect(searched.body.data.journeys).toEqual([]);

    const popular = (await app.request('/api/routes/popular')).body.data as RouteStat[];
    const landing = (await app.request('/api/landing/routes')).body.data as LandingRoute[];
    expect({
      popularSoldOut: popular.some(pairOf(a, b)),
      popularOnSale: popular.find(pairOf(c, d)) && {
        departures: popular.find(pairOf(c, d))!.departures,
        min_price: popular.find(pairOf(c, d))!.min_price,
      },
      landingSoldOut: landing.some(pairOf(a, b)),
      landingMinPrice: landing.find(pairOf(c, d))?.min_price,
    }).toEqual({
      popularSoldOut: false,
      popularOnSale: { departures: 16, min_price: 10_000 },
      landingSoldOut: false,
      landingMinPrice: 10_000,
    });
  });
});

describe('GET /routes/popular within SEARCH_CACHE_SECONDS', () => {
  const app = useTestApp({ SEARCH_CACHE_SECONDS: 1 });

  it("answers a scope from the process's last count for a moment, then counts a departure sold out since", async () => {
    const demo = await createCompany(app.db, { scope: 'DEMO' });
    const [from, to] = [await createCity(app.db), await createCity(app.db)];
    await departures(app.db, { companyId: demo.id, from, to, count: 1 });
    const token = await app.tokenFor({ kind: 'DEMO', companyId: demo.id });
    const departuresListed = async () =>
      ((await app.request('/api/routes/popular', { token })).body.data as RouteStat[]).find(pairOf(from, to))
        ?.departures;
    expect(await departuresListed()).toBe(1);

    const [trip] = await app.db.query<{ id: string }>(`select id from trips where company_id = $1`, [
      demo.id,
    ]);
    await takeEverySeat(app.db, trip!.id);
    expect(await departuresListed()).toBe(1);
    // Past twice SEARCH_CACHE_SECONDS (fresh, then served stale while one read refreshes it).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(await departuresListed()).toBeUndefined();
  });
});
