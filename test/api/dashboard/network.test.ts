import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCity, createCompany, createStop } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { demotedWhileWriting } from '../../support/suspension.js';
import {
  createPlannedRoute,
  dashboard,
  planningSnapshot,
  planningWorld,
  type PlanningWorld,
} from '../../support/planning.js';

describe('network: cities, routes and pickup locations', () => {
  const app = useTestApp();
  let world: PlanningWorld;
  let other: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
    other = await planningWorld(app);
  });

  const owner = () => world.sessions.OWNER;
  const citiesNamed = (name: string) =>
    app.db.query<{ id: string }>('select id from cities where name_en = $1 or name_ar = $1', [name]);

  describe('cities', () => {
    it('adds a new city and answers the existing one for the same name in either language, any case or diacritics', async () => {
      const unique = randomUUID().slice(0, 6);
      const nameEn = `Qardaha ${unique}`;
      const nameAr = `القرداحة ${unique}`;
      const created = await dashboard(app, world.sessions.DISPATCHER, 'POST', '/cities', {
        name_ar: nameAr,
        name_en: nameEn,
        latitude: 35.45,
        longitude: 36.06,
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ created: true, data: { name_en: nameEn, name_ar: nameAr } });
      for (const [name_ar, name_en] of [
        [`مدينة ${unique}`, `QARDÂHA ${unique}`],
        [`القُرْداحة ${unique}`, `Somewhere ${unique}`],
        [`أخرى ${unique}`, `  qardaha ${unique} `],
      ]) {
        const again = await dashboard(app, owner(), 'POST', '/cities', {
          name_ar,
          name_en,
          latitude: 35,
          longitude: 36,
        });
        expect([again.status, again.body.created, again.body.data.id]).toEqual([
          200,
          false,
          created.body.data.id,
        ]);
      }
      expect(await citiesNamed(nameEn)).toHaveLength(1);
      const list = await dashboard(app, world.sessions.STAFF, 'GET', '/cities');
      expect(list.body.data.map((city: { id: string }) => city.id)).toContain(created.body.data.id);
    });

    it('answers the existing city for an English name equal as PostgreSQL lowers it (Greek final sigma), not a 500', async () => {
      const unique = randomUUID().slice(0, 6);
      const first = await dashboard(app, owner(), 'POST', '/cities', {
        name_ar: `مدينة ${unique}`,
        name_en: `ΟΔΟΣ ${unique}`,
        latitude: 35.1,
        longitude: 36.2,
      });
      expect(first.status, first.text).toBe(201);
      const second = await dashboard(app, owner(), 'POST', '/cities', {
        name_ar: `بلدة ${unique}`,
        name_en: `οδοσ ${unique}`,
        latitude: 35.1,
        longitude: 36.2,
      });
      expect([second.status, second.body.data?.id], second.text).toEqual([200, first.body.data.id]);
    });

    it('answers the existing city for a name that differs only by invisible characters or an Arabic letter variant; adds nothing', async () => {
      const unique = randomUUID().slice(0, 6);
      const add = (name_ar: string, name_en: string) =>
        dashboard(app, owner(), 'POST', '/cities', { name_ar, name_en, latitude: 33.5, longitude: 36.3 });
      const cases: [string, [string, string], [string, string][]][] = [
        [
          'invisible format characters',
          [`دمشق ${unique}`, `Damascus ${unique}`],
          [
            [`دمشق\u200B ${unique}`, `Dama\u200Bscus ${unique}`], // zero-width space
            [`\u200Fدمشق ${unique}`, `Damascus\u200E ${unique}`], // right-to-left and left-to-right marks
            [`دمشق ${unique}\u00AD`, `Dam\u00ADascus ${unique}`], // soft hyphen
            [`دم\u061Cشق ${unique}`, `Damas\u2060cus ${unique}`], // Arabic letter mark, word joiner
          ],
        ],
        // The Persian yeh (U+06CC) prints as the Arabic yeh of "As-Suwayda".
        [
          'the Persian yeh',
          [`السويداء ${unique}`, `As-Suwayda ${unique}`],
          [[`السویداء ${unique}`, `Sweida ${unique}`]],
        ],
        // Hama is written with a teh marbuta or a heh.
        [
          'heh for teh marbuta',
          [`حماة ${unique}`, `Hama ${unique}`],
          [[`حماه ${unique}`, `Hamah ${unique}`]],
        ],
      ];
      for (const [label, [nameAr, nameEn], variants] of cases) {
        const first = await add(nameAr, nameEn);
        expect(first.status, first.text).toBe(201);
        for (const [variantAr, variantEn] of variants) {
          const again = await add(variantAr, variantEn);
          expect([again.status, again.body.created, again.body.data?.id], label).toEqual([
            200,
            false,
            first.body.data.id,
          ]);
          expect(await citiesNamed(variantAr), label).toEqual([]);
          expect(await citiesNamed(variantEn), label).toEqual([]);
        }
      }
    });

    it('makes one city of two additions of the same name at once', async () => {
      const name = `Twin ${randomUUID().slice(0, 6)}`;
      const answers = await Promise.all(
        [name, name.toUpperCase(), name.toLowerCase()].map((name_en, index) =>
          dashboard(app, owner(), 'POST', '/cities', {
            name_ar: `توأم ${index} ${name}`,
            name_en,
            latitude: 33,
            longitude: 36,
          }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
      expect(new Set(answers.map((answer) => answer.body.data.id)).size).toBe(1);
    });

    it('refuses bad coordinates, a missing name, unknown fields, STAFF and a missing CSRF header; adds nothing', async () => {
      const name = `Nowhere ${randomUUID().slice(0, 6)}`;
      const good = { name_ar: 'لا مكان', name_en: name, latitude: 33, longitude: 36 };
      for (const body of [
        { ...good, latitude: 91 },
        { ...good, longitude: 'east' },
        { name_ar: 'لا مكان', latitude: 33, longitude: 36 },
        { ...good, population: 5 },
      ]) {
        expect((await dashboard(app, owner(), 'POST', '/cities', body)).status).toBe(400);
      }
      expect((await dashboard(app, world.sessions.STAFF, 'POST', '/cities', good)).status).toBe(403);
      expect(
        (await dashboard(app, owner(), 'POST', '/cities', good, { Cookie: owner().cookie })).status,
      ).toBe(403);
      expect(await citiesNamed(name)).toEqual([]);
    });

    it('refuses a name with no letter matching keeps, or with control or override characters; adds nothing', async () => {
      const unique = randomUUID().slice(0, 6);
      const good = { name_ar: `بلدة ${unique}`, name_en: `Town ${unique}`, latitude: 34.5, longitude: 38.2 };
      const changes = [
        { name_ar: '\u0640\u0640' }, // tatweel alone: a letter to Unicode, nothing to matching
        { name_en: '\u0301\u0301\u0301' }, // combining accents alone
        { name_ar: '\u0640\u064e\u0640\u0651' }, // tatweel carrying vowel marks
        { name_en: '\ufe70\ufe72' }, // isolated fathatan and dammatan: letters that decompose to marks
        { name_en: `\u202E${unique} nwoT` }, // a right-to-left override: shown reversed, as "Town ..."
        { name_ar: `بلدة\u0007${unique}` },
      ];
      for (const change of changes) {
        const response = await dashboard(app, owner(), 'POST', '/cities', { ...good, ...change });
        expect([response.status, response.body.errorCode], JSON.stringify(change)).toEqual([
          400,
          'VALIDATION_FAILED',
        ]);
      }
      for (const name of [
        good.name_ar,
        good.name_en,
        ...changes.flatMap((change) => Object.values(change)),
      ]) {
        expect(await citiesNamed(name), name).toEqual([]);
      }
    });
  });

  describe('routes', () => {
    const stopsBody = (w: PlanningWorld) => [
      { stop_id: w.originStop.id, fare_share_bp: 0 },
      { stop_id: w.middleStop.id, running_minutes: 75, dwell_minutes: 10, fare_share_bp: 3500 },
      { stop_id: w.destinationStop.id, running_minutes: 95, fare_share_bp: 10_000 },
    ];

    it('creates a route from its ordered stops, with fare shares and running times, named after its cities', async () => {
      const response = await dashboard(app, world.sessions.DISPATCHER, 'POST', '/routes', {
        stops: stopsBody(world),
        distance_km: 240,
      });
      expect(response.status, response.text).toBe(201);
      const route = response.body.data;
      expect(route).toMatchObject({
        origin_city: { id: world.origin.id },
        destination_city: { id: world.destination.id },
        duration_minutes: 180,
        distance_km: 240,
        active: true,
      });
      expect(route.name_en).toMatch(/ – /);
      expect(
        route.stops.map((stop: Record<string, unknown>) => [
          stop.stop_id,
          stop.running_minutes,
          stop.dwell_minutes,
          stop.fare_share_bp,
        ]),
      ).toEqual([
        [world.originStop.id, 0, 0, 0],
        [world.middleStop.id, 75, 10, 3500],
        [world.destinationStop.id, 95, 0, 10_000],
      ]);
      const list = await dashboard(app, world.sessions.ACCOUNTANT, 'GET', '/routes?limit=100');
      expect(list.body.data.map((candidate: { id: string }) => candidate.id)).toContain(route.id);
      const foreign = await dashboard(app, other.sessions.OWNER, 'GET', '/routes?limit=100');
      expect(foreign.body.data.map((candidate: { id: string }) => candidate.id)).not.toContain(route.id);
    });

    it("refuses stops out of order, bad shares or times, a depot, another company's stop, one city; changes nothing", async () => {
      const depot = await createStop(app.db, world.middleStop.cityId, {
        kind: 'DEPOT',
        companyId: world.companyId,
      });
      const foreignStop = await createStop(app.db, world.middleStop.cityId, { companyId: other.companyId });
      const sameCity = await createStop(app.db, world.origin.id);
      const base = stopsBody(world);
      const replace = (index: number, change: Record<string, unknown>) =>
        base.map((stop, at) => (at === index ? { ...stop, ...change } : stop));
      const cases: [unknown[], string, string][] = [
        [
          replace(1, { fare_share_bp: 0, running_minutes: 75 }).reverse(),
          'FIRST_STOP_RUNNING_TIME',
          'stops.0.running_minutes',
        ],
        [replace(2, { fare_share_bp: 9000 }), 'FARE_SHARE_INVALID', 'stops.2.fare_share_bp'],
        [replace(1, { running_minutes: 0 }), 'RUNNING_TIME_INVALID', 'stops.1.running_minutes'],
        [replace(2, { dwell_minutes: 5 }), 'END_STOP_DWELL', 'stops.2.dwell_minutes'],
        [replace(1, { stop_id: depot.id }), 'ROUTE_STOP_NOT_ALLOWED', 'stops.1.stop_id'],
        [replace(1, { stop_id: foreignStop.id }), 'ROUTE_STOP_NOT_ALLOWED', 'stops.1.stop_id'],
        [replace(1, { stop_id: randomUUID() }), 'ROUTE_STOP_NOT_ALLOWED', 'stops.1.stop_id'],
      ];
      const before = await planningSnapshot(app.db, world.companyId);
      for (const [stops, code, path] of cases) {
        const response = await dashboard(app, owner(), 'POST', '/routes', { stops });
        expect([response.status, response.body.errorCode], code).toEqual([400, code]);
        expect(response.body.details.issues, code).toContainEqual(expect.objectContaining({ path }));
      }
      const oneCity = await dashboard(app, owner(), 'POST', '/routes', {
        stops: [
          { stop_id: world.originStop.id, fare_share_bp: 0 },
          { stop_id: sameCity.id, running_minutes: 20, fare_share_bp: 10_000 },
        ],
      });
      expect([oneCity.status, oneCity.body.errorCode]).toEqual([400, 'ROUTE_CITIES_MUST_DIFFER']);
      for (const body of [
        { stops: base.slice(0, 1) },
        { stops: base, company_id: other.companyId },
        { stops: [{ stop_id: 'x' }] },
        { stops: base, name_en: '\u202Eetuor' },
        { stops: base, name_ar: 'خط\u2066سريع' },
      ]) {
        expect((await dashboard(app, owner(), 'POST', '/routes', body)).status).toBe(400);
      }
      expect(
        (await dashboard(app, world.sessions.ACCOUNTANT, 'POST', '/routes', { stops: base })).status,
      ).toBe(403);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('refuses a stop priced the same as the one before (FARE_SHARE_INVALID), a lower one staying FARE_SHARE_DECREASES', async () => {
      // Two cities the company prices alike: the leg between them would cost nothing.
      const secondStop = await createStop(app.db, (await createCity(app.db)).id);
      const stops = [
        { stop_id: world.originStop.id, fare_share_bp: 0 },
        { stop_id: world.middleStop.id, running_minutes: 60, dwell_minutes: 5, fare_share_bp: 5000 },
        { stop_id: secondStop.id, running_minutes: 40, dwell_minutes: 5, fare_share_bp: 5000 },
        { stop_id: world.destinationStop.id, running_minutes: 60, fare_share_bp: 10_000 },
      ];
      const before = await planningSnapshot(app.db, world.companyId);
      const equal = await dashboard(app, owner(), 'POST', '/routes', { stops });
      expect([equal.status, equal.body.errorCode]).toEqual([400, 'FARE_SHARE_INVALID']);
      expect(equal.body.details.issues).toEqual([
        {
          path: 'stops.2.fare_share_bp',
          code: 'FARE_SHARE_INVALID',
          message: 'fare shares rise at every stop',
        },
      ]);
      const lower = stops.map((stop, at) => (at === 2 ? { ...stop, fare_share_bp: 4000 } : stop));
      const decreasing = await dashboard(app, owner(), 'POST', '/routes', { stops: lower });
      expect([decreasing.status, decreasing.body.errorCode]).toEqual([400, 'FARE_SHARE_DECREASES']);
      const lastEqual = stops.map((stop, at) => (at === 2 ? { ...stop, fare_share_bp: 10_000 } : stop));
      const endsEqual = await dashboard(app, owner(), 'POST', '/routes', { stops: lastEqual });
      expect(endsEqual.body.details.issues).toContainEqual(
        expect.objectContaining({ path: 'stops.3.fare_share_bp', code: 'FARE_SHARE_INVALID' }),
      );
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('refuses a DISPATCHER demoted to STAFF while the route waits for the company 403 ROLE_NOT_ALLOWED, making none', async () => {
      const w = await planningWorld(app);
      const dispatcher = await staffSession(app.db, app.config, w.companyId, 'DISPATCHER');
      const before = await planningSnapshot(app.db, w.companyId);
      const refused = await demotedWhileWriting(app.db, w.companyId, dispatcher.membershipId, 'STAFF', () =>
        dashboard(app, dispatcher, 'POST', '/routes', { stops: stopsBody(w), distance_km: 240 }),
      );
      expect([refused.status, refused.body?.errorCode, refused.body?.details], refused.text).toEqual([
        403,
        'ROLE_NOT_ALLOWED',
        { role: 'STAFF', allowedRoles: ['OWNER', 'ADMIN', 'DISPATCHER'] },
      ]);
      const after = await planningSnapshot(app.db, w.companyId);
      expect({ ...after, members: undefined }).toEqual({ ...before, members: undefined });
      expect(after.members).toContainEqual(
        expect.objectContaining({ id: dispatcher.membershipId, role: 'STAFF' }),
      );
    });

    it("keeps the total of the company's routes on a page past the end", async () => {
      const companyId = (await createCompany(app.db)).id;
      const session = await staffSession(app.db, app.config, companyId, 'OWNER');
      for (let i = 0; i < 3; i += 1) {
        const from = await createStop(app.db, (await createCity(app.db)).id);
        const to = await createStop(app.db, (await createCity(app.db)).id);
        await createPlannedRoute(app.db, companyId, [
          [from, 0, 0, 0],
          [to, 60, 0, 10_000],
        ]);
      }
      const first = await dashboard(app, session, 'GET', '/routes?limit=2&offset=0');
      expect(first.body.pagination, first.text).toEqual({ limit: 2, offset: 0, total: 3 });
      const past = await dashboard(app, session, 'GET', '/routes?limit=2&offset=4');
      expect(past.body, past.text).toMatchObject({ data: [], pagination: { limit: 2, offset: 4, total: 3 } });
    });
  });

  describe('pickup locations', () => {
    it("lists the city's public points and the company's own, never another company's or a depot", async () => {
      const mine = await createStop(app.db, world.origin.id, {
        companyId: world.companyId,
        kind: 'BOARDING_POINT',
      });
      const theirs = await createStop(app.db, world.origin.id, {
        companyId: other.companyId,
        kind: 'BOARDING_POINT',
      });
      const depot = await createStop(app.db, world.origin.id, { companyId: world.companyId, kind: 'DEPOT' });
      const disabled = await createStop(app.db, world.origin.id, { enabled: false });
      const response = await dashboard(
        app,
        world.sessions.STAFF,
        'GET',
        `/pickup-locations?city_id=${world.origin.id}`,
      );
      expect(response.status).toBe(200);
      const points = response.body.data as { id: string; scope: string }[];
      expect(points.map((point) => point.id)).toEqual(
        expect.arrayContaining([world.originStop.id, world.originStop2.id, mine.id]),
      );
      expect(points.find((point) => point.id === mine.id)?.scope).toBe('COMPANY');
      expect(points.find((point) => point.id === world.originStop.id)).toMatchObject({
        scope: 'PUBLIC',
        nameEn: world.originStop.nameEn,
        address: expect.any(String),
        latitude: expect.any(Number),
      });
      for (const hidden of [theirs, depot, disabled])
        expect(points.map((point) => point.id)).not.toContain(hidden.id);
      expect((await dashboard(app, owner(), 'GET', '/pickup-locations')).status).toBe(400);
      expect((await dashboard(app, owner(), 'GET', '/pickup-locations?city_id=damascus')).status).toBe(400);
    });

    it("lists the company's default pickup point first, as trip planning offers it, then public stations, then its own points", async () => {
      const company = await createCompany(app.db);
      const session = await staffSession(app.db, app.config, company.id, 'OWNER');
      const city = await createCity(app.db);
      const station = await createStop(app.db, city.id, { name: 'Aaa public station' });
      const point = async (nameEn: string) => {
        const made = await dashboard(app, session, 'POST', '/pickup-locations', {
          city_id: city.id,
          name: 'موقف الشركة',
          nameEn,
          address: 'عنوان الموقف',
          latitude: 33.51,
          longitude: 36.29,
        });
        expect(made.status, made.text).toBe(201);
        return made.body.data.id as string;
      };
      const other = await point('Bbb company point');
      const preferred = await point('Zzz company point');
      const set = await dashboard(app, session, 'PATCH', '/settings', { defaultPickupLocationId: preferred });
      expect(set.status, set.text).toBe(200);
      const listed = await dashboard(app, session, 'GET', `/pickup-locations?city_id=${city.id}`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.map((row: { id: string }) => row.id)).toEqual([preferred, station.id, other]);
    });

    it('adds a company point near the city that trips may then pick up from', async () => {
      const response = await dashboard(app, world.sessions.DISPATCHER, 'POST', '/pickup-locations', {
        city_id: world.origin.id,
        name: 'موقف الجامعة',
        nameEn: 'University stop',
        address: 'أمام البوابة الرئيسية',
        addressEn: 'In front of the main gate',
        directions: 'قرب الجسر',
        latitude: 33.52,
        longitude: 36.31,
      });
      expect(response.status, response.text).toBe(201);
      expect(response.body.data).toMatchObject({
        name: 'موقف الجامعة',
        nameEn: 'University stop',
        directionsEn: 'قرب الجسر',
        kind: 'BOARDING_POINT',
        scope: 'COMPANY',
        city_id: world.origin.id,
      });
      const trip = await dashboard(app, owner(), 'POST', '/trips', {
        route_id: world.routeId,
        bus_id: world.bus.id,
        pickup_stop_id: response.body.data.id,
        departure_at: new Date(Date.now() + 20 * 86_400_000).toISOString(),
        price_base: 25_000,
      });
      expect(trip.status, trip.text).toBe(201);
      expect(trip.body.data.pickupLocation.id).toBe(response.body.data.id);
      const theirs = await dashboard(
        app,
        other.sessions.OWNER,
        'GET',
        `/pickup-locations?city_id=${world.origin.id}`,
      );
      expect(theirs.body.data.map((point: { id: string }) => point.id)).not.toContain(response.body.data.id);
    });

    it('refuses a point far from its city, bad names, addresses or coordinates, an unknown city; adds nothing', async () => {
      const good = {
        city_id: world.origin.id,
        name: 'موقف',
        address: 'شارع بغداد',
        latitude: 33.51,
        longitude: 36.3,
      };
      const before = await planningSnapshot(app.db, world.companyId);
      const cases: [unknown, number, string][] = [
        [{ ...good, latitude: 34.9 }, 400, 'PICKUP_TOO_FAR_FROM_CITY'],
        [{ ...good, latitude: 133 }, 400, 'VALIDATION_FAILED'],
        [{ ...good, name: 'x' }, 400, 'VALIDATION_FAILED'],
        [{ ...good, name: '\u202Eموقف' }, 400, 'VALIDATION_FAILED'],
        [{ ...good, nameEn: 'Stop\u0085 one' }, 400, 'VALIDATION_FAILED'],
        [{ ...good, address: '' }, 400, 'VALIDATION_FAILED'],
        [{ ...good, kind: 'DEPOT' }, 400, 'VALIDATION_FAILED'],
        [{ ...good, city_id: randomUUID() }, 404, 'CITY_NOT_FOUND'],
        [{ ...good, company_id: other.companyId }, 400, 'SESSION_FIELD_REFUSED'],
      ];
      for (const [body, status, code] of cases) {
        const response = await dashboard(app, owner(), 'POST', '/pickup-locations', body);
        expect([response.status, response.body.errorCode], JSON.stringify(body)).toEqual([status, code]);
      }
      expect((await dashboard(app, world.sessions.STAFF, 'POST', '/pickup-locations', good)).status).toBe(
        403,
      );
      expect(
        (await dashboard(app, owner(), 'POST', '/pickup-locations', good, { Cookie: owner().cookie })).status,
      ).toBe(403);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('refuses control or override characters in the address and directions, as in names; adds nothing', async () => {
      // Travellers see these texts as the trip's pickupLocation: "\u202E21" would show as "12".
      const good = {
        city_id: world.origin.id,
        name: 'موقف',
        address: 'شارع بغداد',
        latitude: 33.51,
        longitude: 36.3,
      };
      const before = await planningSnapshot(app.db, world.companyId);
      for (const change of [
        { address: '\u202E21 شارع بغداد' },
        { addressEn: 'Baghdad \u202Eteerts' },
        { directions: 'قرب\u0007 الجسر' },
        { directionsEn: 'Near the\u2066 bridge' },
        { directions: 'قرب\u0085 الجسر' },
      ]) {
        const response = await dashboard(app, owner(), 'POST', '/pickup-locations', { ...good, ...change });
        expect([response.status, response.body.errorCode], JSON.stringify(change)).toEqual([
          400,
          'VALIDATION_FAILED',
        ]);
      }
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
      // Directions stay optional: empty ones are still accepted.
      const accepted = await dashboard(app, owner(), 'POST', '/pickup-locations', {
        ...good,
        directions: '',
        directionsEn: '',
      });
      expect(accepted.status, accepted.text).toBe(201);
      expect(accepted.body.data).toMatchObject({ directions: '', directionsEn: '' });
    });

    it("refuses a suspended company's additions", async () => {
      const suspended = await createCompany(app.db, { status: 'SUSPENDED' });
      const suspendedOwner = await staffSession(app.db, app.config, suspended.id, 'OWNER');
      const city = await createCity(app.db);
      for (const [path, body] of [
        [
          '/pickup-locations',
          { city_id: city.id, name: 'موقف', address: 'شارع', latitude: 33.5, longitude: 36.3 },
        ],
        [
          '/cities',
          { name_ar: `معلقة ${city.nameEn}x`, name_en: `${city.nameEn}x`, latitude: 33, longitude: 36 },
        ],
        [
          '/routes',
          {
            stops: [
              { stop_id: randomUUID(), fare_share_bp: 0 },
              { stop_id: randomUUID(), running_minutes: 30, fare_share_bp: 10_000 },
            ],
          },
        ],
      ] as const) {
        const response = await dashboard(app, suspendedOwner, 'POST', path, body);
        expect([response.status, response.body.errorCode], path).toEqual([403, 'COMPANY_SUSPENDED']);
      }
      expect((await planningSnapshot(app.db, suspended.id)).stops).toEqual([]);
    });
  });
});
