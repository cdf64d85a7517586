import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../db/orm.js';
import { saveBusLayout } from '../../../db/writes/catalogue.js';
import { coachLayout } from '../../../domain/layout-templates.js';
import { damascusDate } from '../../../domain/time.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createCorridor,
  VIP_ROW_COACH,
  createStop,
  createTrip,
  futureDay,
  type CompanyScopeKind,
} from '../../support/factories.js';
import { DAY_ROOM_MINUTES, dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { useTestApp } from '../../support/harness.js';
import { announceDelay, operationsWorld } from '../../support/operations.js';

interface TripResult {
  id: string;
  trip_id: string;
  company_id: string;
  price: number;
  available_seats: number;
  total_seats: number;
  board_stop_call_id: string;
  alight_stop_call_id: string;
  board: { stop_call_id: string; stop_id: string; id: string };
  alight: { stop_call_id: string; stop_id: string };
  pickupLocation: Record<string, unknown>;
  [field: string]: unknown;
}

interface Seat {
  seat_id: string;
  seat_number: string;
  available: boolean;
  price: number;
  seat_class: string;
}

async function allocate(
  db: Database,
  allocation: {
    tripId: string;
    seatId: string;
    board: number;
    alight: number;
    status: 'HELD' | 'CONFIRMED';
    expiresInMinutes?: number;
  },
) {
  await db.query(
    `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, expires_at)
     values ($1, $2, $3, $4, $5, case when $6::int is null then null else now() + make_interval(mins => $6::int) end)`,
    [
      allocation.tripId,
      allocation.seatId,
      allocation.board,
      allocation.alight,
      allocation.status,
      allocation.expiresInMinutes ?? null,
    ],
  );
}

async function stopRow(db: Database, stopId: string) {
  const [row] = await db.query<Record<string, unknown>>(`select * from stops where id = $1`, [stopId]);
  return row!;
}

const tripIds = (body: { data: TripResult[] }) => body.data.map((trip) => trip.id);

/**
 * A trip through four cities whose two middle calls have the same fare share, as routes saved
 * before the dashboard refused equal shares left them: the leg between those calls costs nothing.
 */
async function tripWithEqualShares(db: Database, date: string) {
  const cities = await Promise.all(Array.from({ length: 4 }, () => createCity(db)));
  const stops = await Promise.all(cities.map((city) => createStop(db, city.id)));
  const company = await createCompany(db);
  const bus = await createBus(db, company.id, VIP_ROW_COACH);
  const trip = await createTrip(db, {
    companyId: company.id,
    busId: bus.id,
    departAt: atDamascus(date, '08:00'),
    calls: [
      { stop: stops[0]!, at: 0 },
      { stop: stops[1]!, at: 60, dwell: 5 },
      { stop: stops[2]!, at: 120, dwell: 5 },
      { stop: stops[3]!, at: 180 },
    ],
  });
  await db.query(`update trip_stop_calls set fare_share_bp = 5000 where id = any ($1::uuid[])`, [
    trip.stopCallIds.slice(1, 3),
  ]);
  return { trip, cities };
}

/**
 * Some searches ask for the Damascus day of a trip that left 5 minutes ago, as today's: in the first
 * minutes of a day that instant is still yesterday, a past day the search refuses.
 */
const MINUTES_AGO_ON_TODAY = 6;
beforeAll(
  async () => {
    await dayWithRoom(DAY_ROOM_MINUTES, {}, MINUTES_AGO_ON_TODAY);
  },
  dayWithRoomTimeout(DAY_ROOM_MINUTES, MINUTES_AGO_ON_TODAY),
);

describe('GET /trips (legacy search)', () => {
  const app = useTestApp();
  let corridor: Awaited<ReturnType<typeof createCorridor>>;
  let query: string;

  beforeAll(async () => {
    corridor = await createCorridor(app.db, { bus: VIP_ROW_COACH });
    query = `date=${corridor.date}`;
  });

  it('gives the same answer under old and new parameter names', async () => {
    const { origin, destination } = corridor;
    const spellings = [
      `from=${origin.id}&to=${destination.id}`,
      `origin=${origin.id}&dest=${destination.id}`,
      `origin_city_id=${origin.id}&dest_city_id=${destination.id}`,
      `origin_city_id=${origin.id}&destination_city_id=${destination.id}`,
      `from=${origin.id}&origin_city_id=${origin.id.toUpperCase()}&to=${destination.id}&destination_city_id=${destination.id}`,
    ];
    const answers = await Promise.all(
      spellings.map((spelling) => app.request(`/api/trips?${spelling}&${query}`)),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(tripIds(answers[0]!.body)).toEqual([corridor.trip.id]);
    for (const answer of answers.slice(1)) expect(answer.body).toEqual(answers[0]!.body);
  });

  it('returns the trip boarding at the first call in the origin city, priced and handed out over the whole trip POST /bookings sells', async () => {
    const res = await app.request(
      `/api/trips?from=${corridor.origin.id}&to=${corridor.destination.id}&${query}`,
    );
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const [trip] = res.body.data as TripResult[];
    const [boardCall, , alightCall, lastCall] = corridor.trip.stopCallIds;
    expect(trip).toMatchObject({
      id: corridor.trip.id,
      trip_id: corridor.trip.id,
      company_id: corridor.company.id,
      company: { id: corridor.company.id, name_en: corridor.company.nameEn },
      route_id: corridor.trip.routeId,
      status: 'SCHEDULED',
      departure_time: atDamascus(corridor.date, '08:00').toISOString(),
      arrival_time: atDamascus(corridor.date, '11:00').toISOString(),
      // A seat lock covers the whole trip (call 0 to call 3): the full fare, not the two thirds to call 2.
      price: 10_000,
      price_vip: 15_000,
      currency: 'SYP',
      available_seats: 40,
      total_seats: 40,
      board_stop_call_id: boardCall,
      alight_stop_call_id: lastCall,
      board: { stop_call_id: boardCall, id: boardCall, stop_id: corridor.originStop.id },
      alight: { stop_call_id: alightCall, stop_id: corridor.destinationStop.id },
      bus: { id: corridor.bus.id, model: 'Test coach', amenities: [] },
    });
  });

  it('carries pickupLocation and the flat pickup_* fields from the pickup stop, not the city', async () => {
    const res = await app.request(
      `/api/trips?from=${corridor.origin.id}&to=${corridor.destination.id}&${query}`,
    );
    const [trip] = res.body.data as TripResult[];
    const stop = await stopRow(app.db, corridor.originStop.id);
    const expected = {
      id: stop.id,
      name: stop.name_ar,
      nameEn: stop.name_en,
      address: stop.address_ar,
      addressEn: stop.address_en,
      latitude: stop.latitude,
      longitude: stop.longitude,
      directions: stop.directions_ar,
      directionsEn: stop.directions_en,
    };
    expect(trip!.pickupLocation).toEqual(expected);
    expect(trip!.pickupLocation.latitude).not.toBe(33.5);
    expect(trip).toMatchObject({
      pickup_location_id: expected.id,
      pickup_name: expected.name,
      pickup_name_en: expected.nameEn,
      pickup_address: expected.address,
      pickup_address_en: expected.addressEn,
      pickup_latitude: expected.latitude,
      pickup_longitude: expected.longitude,
      pickup_directions: expected.directions,
      pickup_directions_en: expected.directionsEn,
    });
  });

  it('lists a trip only from the city of its first call, where POST /bookings boards: A → B → C for A → B and A → C, not B → C', async () => {
    const [a, b, c] = [await createCity(app.db), await createCity(app.db), await createCity(app.db)];
    const [stopA, stopB, stopC] = [
      await createStop(app.db, a.id),
      await createStop(app.db, b.id),
      await createStop(app.db, c.id),
    ];
    const company = await createCompany(app.db);
    const bus = await createBus(app.db, company.id);
    const trip = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(corridor.date, '09:00'),
      calls: [
        { stop: stopA, at: 0 },
        { stop: stopB, at: 60, dwell: 10 },
        { stop: stopC, at: 120 },
      ],
    });
    for (const to of [b, c]) {
      const fromA = await app.request(`/api/trips?from=${a.id}&to=${to.id}&${query}`);
      expect(fromA.body.data as TripResult[]).toMatchObject([
        {
          id: trip.id,
          board: { stop_call_id: trip.stopCallIds[0], stop_id: stopA.id },
          board_stop_call_id: trip.stopCallIds[0],
          alight_stop_call_id: trip.stopCallIds[2],
          pickup_location_id: stopA.id,
          pickupLocation: { id: stopA.id },
        },
      ]);
    }
    // The booking would board at A (its pickup, ticket and cut-offs): journey search sells the stretch from B.
    const fromB = await app.request(`/api/trips?from=${b.id}&to=${c.id}&${query}`);
    expect(fromB.status, fromB.text).toBe(200);
    expect(fromB.body.data).toEqual([]);
  });

  it('lists a trip on the date it leaves its first call, not on the next when it calls again in the origin city after midnight', async () => {
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const station = await createStop(app.db, a.id, { name: 'Main station' });
    const parking = await createStop(app.db, a.id, { kind: 'PARKING_POINT', name: 'Ring road parking' });
    const end = await createStop(app.db, b.id);
    const company = await createCompany(app.db);
    const bus = await createBus(app.db, company.id);
    // Leaves the main station (its pickup stop) at 23:40 and calls at the ring road after midnight:
    // the next day's search boards at the ring road.
    const departAt = atDamascus(corridor.date, '23:40');
    const trip = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt,
      calls: [
        { stop: station, at: 0 },
        { stop: parking, at: 30 },
        { stop: end, at: 150 },
      ],
    });
    const date = damascusDate(new Date(departAt.getTime() + 30 * 60_000));
    const res = await app.request(`/api/trips?from=${a.id}&to=${b.id}&date=${date}`);
    expect(res.status, res.text).toBe(200);
    expect(tripIds(res.body)).not.toContain(trip.id);
    const sameDay = await app.request(`/api/trips?from=${a.id}&to=${b.id}&${query}`);
    const found = (sameDay.body.data as TripResult[]).find((result) => result.id === trip.id);
    expect(found).toMatchObject({ board: { stop_id: station.id }, pickup_location_id: station.id });
    expect(found!.pickupLocation.id).toBe(station.id);
  });

  it('uses a pickup point the trip does not call at in the city of its first call, where the bus picks up before leaving', async () => {
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const company = await createCompany(app.db);
    const [station, parking, end] = [
      await createStop(app.db, a.id),
      await createStop(app.db, a.id, { kind: 'PARKING_POINT' }),
      await createStop(app.db, b.id),
    ];
    const office = await createStop(app.db, a.id, { kind: 'BOARDING_POINT', companyId: company.id });
    const bus = await createBus(app.db, company.id);
    const calls = [
      { stop: station, at: 0 },
      { stop: parking, at: 30 },
      { stop: end, at: 150 },
    ];
    const ahead = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(corridor.date, '07:00'),
      calls,
    });
    // Calls at the parking after midnight: the next day's search boards there, not at its first call in a.
    const lateDepartAt = atDamascus(corridor.date, '23:40');
    const late = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: lateDepartAt,
      calls,
    });
    await app.db.query(`update trips set pickup_stop_id = $2 where id = any($1::uuid[])`, [
      [ahead.id, late.id],
      office.id,
    ]);
    const aheadRes = await app.request(`/api/trips?from=${a.id}&to=${b.id}&${query}`);
    expect(aheadRes.body.data as TripResult[]).toMatchObject([
      { id: ahead.id, board: { stop_id: station.id }, pickup_location_id: office.id },
      { id: late.id, board: { stop_id: station.id }, pickup_location_id: office.id },
    ]);
  });

  it('leaves out a trip that has left its first call, though it calls later in the origin city: the seat lock refuses it', async () => {
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const [station, parking, end] = [
      await createStop(app.db, a.id),
      await createStop(app.db, a.id, { kind: 'PARKING_POINT' }),
      await createStop(app.db, b.id),
    ];
    const company = await createCompany(app.db);
    const bus = await createBus(app.db, company.id);
    const left = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: new Date(Date.now() - 10 * 60_000),
      calls: [
        { stop: station, at: 0 },
        { stop: parking, at: 30 },
        { stop: end, at: 150 },
      ],
    });
    const date = damascusDate(new Date(Date.now() + 20 * 60_000));
    const res = await app.request(`/api/trips?from=${a.id}&to=${b.id}&date=${date}`);
    expect(res.status, res.text).toBe(200);
    expect(tripIds(res.body)).not.toContain(left.id);
  });

  it('hides a trip without enough free seats for the party on the segment', async () => {
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const [stopA, stopB] = [await createStop(app.db, a.id), await createStop(app.db, b.id)];
    const company = await createCompany(app.db);
    const smallBus = await createBus(app.db, company.id, { rows: 1, pattern: '2+1' });
    const trip = await createTrip(app.db, {
      companyId: company.id,
      busId: smallBus.id,
      departAt: atDamascus(corridor.date, '10:00'),
      calls: [
        { stop: stopA, at: 0 },
        { stop: stopB, at: 90 },
      ],
    });
    const search = (passengers: number) =>
      app.request(`/api/trips?from=${a.id}&to=${b.id}&${query}&passengers=${passengers}`);
    expect(tripIds((await search(3)).body)).toEqual([trip.id]);
    expect(tripIds((await search(4)).body)).toEqual([]);

    await allocate(app.db, {
      tripId: trip.id,
      seatId: 'd1-r1-c1',
      board: 0,
      alight: 1,
      status: 'HELD',
      expiresInMinutes: 10,
    });
    await allocate(app.db, {
      tripId: trip.id,
      seatId: 'd1-r1-c2',
      board: 0,
      alight: 1,
      status: 'HELD',
      expiresInMinutes: -10,
    });
    expect(tripIds((await search(3)).body)).toEqual([]);
    const two = await search(2);
    expect(tripIds(two.body)).toEqual([trip.id]);
    expect((two.body.data as TripResult[])[0]!.available_seats).toBe(2);
  });

  it('hides cancelled trips, trips already departed and boarding only at a depot', async () => {
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const [stopA, depotA, stopB] = [
      await createStop(app.db, a.id),
      await createStop(app.db, a.id, { kind: 'DEPOT' }),
      await createStop(app.db, b.id),
    ];
    const company = await createCompany(app.db);
    const bus = await createBus(app.db, company.id);
    const calls = (from: { id: string; cityId: string }) => [
      { stop: from, at: 0 },
      { stop: stopB, at: 90 },
    ];
    const departed = new Date(Date.now() - 5 * 60_000);
    await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: departed,
      calls: calls(stopA),
    });
    await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(corridor.date, '07:00'),
      calls: calls(stopA),
      status: 'CANCELLED',
    });
    await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(corridor.date, '07:30'),
      calls: calls(depotA),
    });
    for (const date of [damascusDate(departed), corridor.date]) {
      const res = await app.request(`/api/trips?from=${a.id}&to=${b.id}&date=${date}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    }
  });

  it('does not offer a segment whose two calls have the same fare share, and prices the others over the whole trip', async () => {
    const { trip, cities } = await tripWithEqualShares(app.db, corridor.date);
    const [a, b, c, d] = cities.map((city) => city.id);
    const between = (from: string, to: string) => app.request(`/api/trips?from=${from}&to=${to}&${query}`);
    // b to c costs nothing; neither is from the trip's first call (journey search sells those).
    for (const [from, to] of [
      [b!, c!],
      [b!, d!],
    ]) {
      const unsold = await between(from!, to!);
      expect(unsold.status, unsold.text).toBe(200);
      expect(unsold.body.data).toEqual([]);
    }
    for (const [from, to, board, alight] of [
      [a!, b!, 0, 1],
      [a!, c!, 0, 2],
      [a!, d!, 0, 3],
    ] as const) {
      const [found, ...others] = (await between(from, to)).body.data as TripResult[];
      expect(others).toEqual([]);
      expect(found).toMatchObject({
        id: trip.id,
        // Whichever cities, POST /bookings sells the whole trip: call 0 to call 3.
        board: { stop_call_id: trip.stopCallIds[board] },
        alight: { stop_call_id: trip.stopCallIds[alight] },
        board_stop_call_id: trip.stopCallIds[0],
        alight_stop_call_id: trip.stopCallIds[3],
        price: 10_000,
        price_vip: 15_000,
      });
    }
    // From the first call too: once it shares the fare share of the next two, a to b and a to c cost nothing.
    await app.db.query(`update trip_stop_calls set fare_share_bp = 5000 where id = $1`, [
      trip.stopCallIds[0],
    ]);
    for (const to of [b!, c!]) expect((await between(a!, to)).body.data).toEqual([]);
    expect(tripIds((await between(a!, d!)).body)).toEqual([trip.id]);
  });

  it('refuses unknown parameters, conflicting aliases, missing and malformed values with 400', async () => {
    const { origin, destination } = corridor;
    const cases: [string, string][] = [
      [`from=${origin.id}&to=${destination.id}&${query}&colour=red`, 'VALIDATION_FAILED'],
      [
        `from=${origin.id}&origin_city_id=${destination.id}&to=${destination.id}&${query}`,
        'CONFLICTING_PARAMETERS',
      ],
      [`from=${origin.id}&to=${destination.id}&dest=${origin.id}&${query}`, 'CONFLICTING_PARAMETERS'],
      [`from=${origin.id}&${query}`, 'CITY_IDS_REQUIRED'],
      [`to=${destination.id}&${query}`, 'CITY_IDS_REQUIRED'],
      // An empty value is what a form sends for a city left unchosen: a missing city, as on /favorites.
      [`from=&to=${destination.id}&${query}`, 'CITY_IDS_REQUIRED'],
      [`origin_city_id=${origin.id}&destination_city_id=&${query}`, 'CITY_IDS_REQUIRED'],
      [`from=${origin.id}&to=${destination.id}`, 'VALIDATION_FAILED'],
      [`from=${origin.id}&to=${destination.id}&date=2026-02-30`, 'VALIDATION_FAILED'],
      [`from=damascus&to=${destination.id}&${query}`, 'INVALID_CITY_ID'],
      [`from=${origin.id}&to=${destination.id}&${query}&passengers=0`, 'VALIDATION_FAILED'],
      // Only decimal digits are a number: Number() would read these as 2.
      [`from=${origin.id}&to=${destination.id}&${query}&passengers=0x2`, 'VALIDATION_FAILED'],
      [`from=${origin.id}&to=${destination.id}&${query}&passengers=2.0`, 'VALIDATION_FAILED'],
    ];
    for (const [search, errorCode] of cases) {
      const res = await app.request(`/api/trips?${search}`);
      expect(res.status, search).toBe(400);
      expect(res.body, search).toMatchObject({ success: false, errorCode });
    }
  });

  it('reads an empty alias beside a filled one as not sent: the search answers as without it', async () => {
    const { origin, destination } = corridor;
    const plain = await app.request(`/api/trips?from=${origin.id}&to=${destination.id}&${query}`);
    const withEmpty = await app.request(
      `/api/trips?from=${origin.id}&origin=&to=${destination.id}&dest_city_id=&${query}`,
    );
    expect(plain.status, plain.text).toBe(200);
    expect(tripIds(plain.body)).not.toEqual([]);
    expect({ status: withEmpty.status, trips: tripIds(withEmpty.body) }).toEqual({
      status: 200,
      trips: tripIds(plain.body),
    });
  });

  it('refuses the same city as origin and destination with 400 ROUTE_CITIES_MUST_DIFFER (journey search refuses it too)', async () => {
    // The corridor's trip calls twice in its origin city: a search there to there would offer that hop.
    const { origin } = corridor;
    for (const search of [
      `from=${origin.id}&to=${origin.id}`,
      `origin_city_id=${origin.id}&destination_city_id=${origin.id.toUpperCase()}`,
    ]) {
      const res = await app.request(`/api/trips?${search}&${query}`);
      expect({ status: res.status, errorCode: res.body.errorCode, data: res.body.data }, search).toEqual({
        status: 400,
        errorCode: 'ROUTE_CITIES_MUST_DIFFER',
        data: undefined,
      });
    }
  });
});

describe('GET /trips rate limit', () => {
  // A limit no other test file uses: the files of a run share one database, and so the counters of a limit.
  const app = useTestApp({ SEARCH_RATE_LIMIT_PER_MINUTE: 5 });

  it("counts against the journey search's per-IP limit: one budget for both paths, then 429 RATE_LIMITED with Retry-After", async () => {
    const corridor = await createCorridor(app.db);
    const { origin, destination, date } = corridor;
    const legacy = (search = `from=${origin.id}&to=${destination.id}&date=${date}`) =>
      app.request(`/api/trips?${search}`);
    const journeySearch = () =>
      app.request('/api/journeys/search', {
        method: 'POST',
        json: {
          origin_city_id: origin.id,
          destination_city_id: destination.id,
          departure_date: date,
          passengers: 1,
        },
      });
    const statuses: number[] = [];
    for (const request of [legacy, journeySearch, legacy, journeySearch])
      statuses.push((await request()).status);
    // Invalid requests count too, as on the journey search.
    statuses.push((await legacy(`from=${origin.id}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 400]);

    const limited = await legacy();
    expect({ status: limited.status, body: limited.body }).toMatchObject({
      status: 429,
      body: { success: false, errorCode: 'RATE_LIMITED' },
    });
    expect(limited.body.data).toBeUndefined();
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await journeySearch()).status).toBe(429);
    expect((await legacy(`from=${origin.id}`)).status).toBe(429);
  });
});

describe('GET /trips inventory scope', () => {
  const app = useTestApp();
  const tripOf = {} as Record<CompanyScopeKind | 'otherDemo', string>;
  const demoCompany = {} as { id: string };
  let search: string;

  beforeAll(async () => {
    const date = futureDay(4);
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const [stopA, stopB] = [await createStop(app.db, a.id), await createStop(app.db, b.id)];
    const scopes: [keyof typeof tripOf, CompanyScopeKind][] = [
      ['PRODUCTION', 'PRODUCTION'],
      ['INTERNAL', 'INTERNAL'],
      ['DEMO', 'DEMO'],
      ['otherDemo', 'DEMO'],
    ];
    for (const [name, scope] of scopes) {
      const company = await createCompany(app.db, { scope });
      if (name === 'DEMO') demoCompany.id = company.id;
      const bus = await createBus(app.db, company.id);
      const trip = await createTrip(app.db, {
        companyId: company.id,
        busId: bus.id,
        departAt: atDamascus(date, '08:00'),
        calls: [
          { stop: stopA, at: 0 },
          { stop: stopB, at: 120 },
        ],
      });
      tripOf[name] = trip.id;
    }
    search = `/api/trips?from=${a.id}&to=${b.id}&date=${date}`;
  });

  it('shows guests and regular accounts production companies only', async () => {
    expect(tripIds((await app.request(search)).body)).toEqual([tripOf.PRODUCTION]);
    const regular = await app.request(search, { token: await app.tokenFor({ kind: 'PRODUCTION' }) });
    expect(tripIds(regular.body)).toEqual([tripOf.PRODUCTION]);
  });

  it('shows an internal account internal inventory only', async () => {
    const res = await app.request(search, { token: await app.tokenFor({ kind: 'INTERNAL' }) });
    expect(tripIds(res.body)).toEqual([tripOf.INTERNAL]);
  });

  it('shows a demo persona its own demo company only', async () => {
    const res = await app.request(search, {
      token: await app.tokenFor({ kind: 'DEMO', companyId: demoCompany.id }),
    });
    expect(tripIds(res.body)).toEqual([tripOf.DEMO]);
  });

  it('answers an invalid or expired credential with 401 and no data', async () => {
    const expired = await app.tokenFor({ kind: 'PRODUCTION' }, { ttlSeconds: -60 });
    for (const token of ['garbage', expired]) {
      const res = await app.request(search, { token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, errorCode: 'INVALID_CREDENTIAL' });
      expect(res.body.data).toBeUndefined();
    }
  });
});

describe('GET /trips/{id}', () => {
  const app = useTestApp();
  let corridor: Awaited<ReturnType<typeof createCorridor>>;
  let internalTrip: string;
  let demoTrip: string;

  beforeAll(async () => {
    corridor = await createCorridor(app.db, { bus: VIP_ROW_COACH });
    internalTrip = (await createCorridor(app.db, { scope: 'INTERNAL' })).trip.id;
    demoTrip = (await createCorridor(app.db, { scope: 'DEMO' })).trip.id;
  });

  it('gives the trip at the top of data and the same object under data.trip', async () => {
    const res = await app.request(`/api/trips/${corridor.trip.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const { trip, ...top } = res.body.data as Record<string, unknown>;
    expect(top).toEqual(trip);
    const stop = await stopRow(app.db, corridor.originStop.id);
    expect(top).toMatchObject({
      id: corridor.trip.id,
      company: { id: corridor.company.id, name_en: corridor.company.nameEn },
      route: {
        id: corridor.trip.routeId,
        origin_city: { id: corridor.origin.id, name_en: corridor.origin.nameEn },
        destination_city: { id: corridor.destination.id, name_en: corridor.destination.nameEn },
      },
      status: 'SCHEDULED',
      departure_time: atDamascus(corridor.date, '08:00').toISOString(),
      arrival_time: atDamascus(corridor.date, '11:40').toISOString(),
      price: 10_000,
      price_vip: 15_000,
      currency: 'SYP',
      total_seats: 40,
      available_seats: 40,
      bus: { id: corridor.bus.id },
      pickupLocation: {
        id: stop.id,
        name: stop.name_ar,
        latitude: stop.latitude,
        directionsEn: stop.directions_en,
      },
    });
    const calls = top.stop_calls as { stop_call_id: string; stop_id: string; sequence: number }[];
    expect(calls.map((call) => call.stop_call_id)).toEqual(corridor.trip.stopCallIds);
    expect(calls.map((call) => call.stop_id)).toEqual([
      corridor.originStop.id,
      corridor.originStop2.id,
      corridor.destinationStop.id,
      corridor.destinationStop2.id,
    ]);
  });

  it('gives the pickupLocation a traveller of the whole trip gets, as the search does', async () => {
    const [a, b] = [await createCity(app.db), await createCity(app.db)];
    const company = await createCompany(app.db);
    const [station, parking, end] = [
      await createStop(app.db, a.id),
      await createStop(app.db, a.id, { kind: 'PARKING_POINT' }),
      await createStop(app.db, b.id),
    ];
    const office = await createStop(app.db, a.id, { kind: 'BOARDING_POINT', companyId: company.id });
    const bus = await createBus(app.db, company.id);
    const trip = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(corridor.date, '07:00'),
      calls: [
        { stop: station, at: 0 },
        { stop: parking, at: 30 },
        { stop: end, at: 150 },
      ],
    });
    // The pickup stop is a later call: the whole trip boards at the station, before the bus gets there.
    // A pickup point the trip does not call at is where its first call in the city picks up.
    for (const [pickupStop, expected] of [
      [parking.id, station.id],
      [office.id, office.id],
    ]) {
      await app.db.query(`update trips set pickup_stop_id = $2 where id = $1`, [trip.id, pickupStop]);
      const detail = await app.request(`/api/trips/${trip.id}`);
      const search = await app.request(`/api/trips?from=${a.id}&to=${b.id}&date=${corridor.date}`);
      expect(
        {
          detail: detail.body.data.pickupLocation.id,
          search: (search.body.data as TripResult[])[0]!.pickupLocation.id,
        },
        pickupStop,
      ).toEqual({ detail: expected, search: expected });
    }
  });

  it('counts seats free over the whole trip', async () => {
    const other = await createCorridor(app.db);
    await allocate(app.db, {
      tripId: other.trip.id,
      seatId: 'd1-r1-c1',
      board: 2,
      alight: 3,
      status: 'CONFIRMED',
    });
    const res = await app.request(`/api/trips/${other.trip.id}`);
    expect(res.body.data.available_seats).toBe(39);
  });

  it('reports no free seat on a trip that can no longer be booked: cancelled, or left its first stop', async () => {
    const cancelled = await createCorridor(app.db);
    await app.db.query(`update trips set status = 'CANCELLED' where id = $1`, [cancelled.trip.id]);
    // Still SCHEDULED (nobody sent DEPART yet), but it left an hour ago.
    const departed = await createTrip(app.db, {
      companyId: cancelled.company.id,
      busId: cancelled.bus.id,
      departAt: new Date(Date.now() - 60 * 60_000),
      calls: [
        { stop: cancelled.originStop, at: 0 },
        { stop: cancelled.destinationStop, at: 180 },
      ],
    });
    for (const tripId of [cancelled.trip.id, departed.id]) {
      const res = await app.request(`/api/trips/${tripId}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ total_seats: 40, available_seats: 0 });
      expect(res.body.data.trip.available_seats).toBe(0);
    }
  });

  it('shows the delay the company announced and the departure it announced, top level and under trip', async () => {
    const world = await operationsWorld(app);
    const shown = async () => {
      const res = await app.request(`/api/trips/${world.trip.tripId}`);
      expect(res.status, res.text).toBe(200);
      const pick = (trip: any) => ({
        status: trip.status,
        departure_time: trip.departure_time,
        delay_minutes: trip.delay_minutes,
        expected_departure_at: trip.expected_departure_at,
      });
      return { top: pick(res.body.data), trip: pick(res.body.data.trip) };
    };
    const planned = world.trip.departAt.toISOString();
    const onTime = {
      status: 'SCHEDULED',
      departure_time: planned,
      delay_minutes: 0,
      expected_departure_at: planned,
    };
    expect(await shown()).toEqual({ top: onTime, trip: onTime });

    // A delay the operations room refuses (no delay_minutes) announces nothing; then 90 minutes.
    await announceDelay(app, world.dispatcher, world.trip.tripId, 90, async () => {
      expect(await shown()).toEqual({ top: onTime, trip: onTime });
    });
    const late = {
      status: 'DELAYED',
      departure_time: planned,
      delay_minutes: 90,
      expected_departure_at: new Date(world.trip.departAt.getTime() + 90 * 60_000).toISOString(),
    };
    expect(await shown()).toEqual({ top: late, trip: late });
  });

  it('answers a trip of another inventory scope exactly like one that does not exist', async () => {
    const internalToken = await app.tokenFor({ kind: 'INTERNAL' });
    const demoToken = await app.tokenFor({ kind: 'DEMO', companyId: crypto.randomUUID() });
    const missing = await app.request(`/api/trips/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    const shape = (res: { status: number; body: Record<string, unknown> }) => {
      const { requestId: _requestId, ...rest } = res.body;
      return { status: res.status, body: rest };
    };
    const guesses = [
      await app.request(`/api/trips/${internalTrip}`),
      await app.request(`/api/trips/${demoTrip}`),
      await app.request(`/api/trips/${corridor.trip.id}`, { token: internalToken }),
      await app.request(`/api/trips/${demoTrip}`, { token: demoToken }),
      await app.request(`/api/trips/${internalTrip}/seats`),
    ];
    for (const guess of guesses) expect(shape(guess)).toEqual(shape(missing));
    expect(shape(missing).body).toEqual({
      success: false,
      errorCode: 'TRIP_NOT_FOUND',
      message: 'No such trip',
    });

    const own = await app.request(`/api/trips/${internalTrip}`, { token: internalToken });
    expect(own.status).toBe(200);
  });

  it('refuses a malformed id with 400', async () => {
    for (const path of ['/api/trips/not-a-uuid', '/api/trips/12345/seats']) {
      const res = await app.request(path);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, errorCode: 'INVALID_TRIP_ID' });
    }
  });
});

describe('GET /trips/{id}/seats', () => {
  const app = useTestApp();
  let corridor: Awaited<ReturnType<typeof createCorridor>>;

  beforeAll(async () => {
    corridor = await createCorridor(app.db);
  });

  const seatsOf = async (tripId: string, query = '') => {
    const res = await app.request(`/api/trips/${tripId}/seats${query}`);
    expect(res.status).toBe(200);
    return res.body.data as {
      trip_id: string;
      seats: Seat[];
      summary: { total: number; available: number };
      layout: unknown;
    };
  };
  const seat = (seats: Seat[], seatId: string) => seats.find((entry) => entry.seat_id === seatId)!;

  it('marks seats with a live hold or a confirmation taken, and expired holds free', async () => {
    const trip = (await createCorridor(app.db)).trip;
    await allocate(app.db, {
      tripId: trip.id,
      seatId: 'd1-r1-c1',
      board: 0,
      alight: 3,
      status: 'HELD',
      expiresInMinutes: 15,
    });
    await allocate(app.db, { tripId: trip.id, seatId: 'd1-r1-c2', board: 0, alight: 3, status: 'CONFIRMED' });
    await allocate(app.db, {
      tripId: trip.id,
      seatId: 'd1-r1-c4',
      board: 0,
      alight: 3,
      status: 'HELD',
      expiresInMinutes: -1,
    });
    const map = await seatsOf(trip.id);
    expect(map.trip_id).toBe(trip.id);
    expect(seat(map.seats, 'd1-r1-c1').available).toBe(false);
    expect(seat(map.seats, 'd1-r1-c2').available).toBe(false);
    expect(seat(map.seats, 'd1-r1-c4').available).toBe(true);
    expect(seat(map.seats, 'd1-r1-c5').available).toBe(true);
    expect(map.summary).toEqual({ total: 40, available: 38 });
    expect(seat(map.seats, 'd1-r1-c5')).toEqual({
      seat_id: 'd1-r1-c5',
      seat_number: '4',
      deck: 1,
      seat_class: 'STANDARD',
      price: 10_000,
      available: true,
    });
  });

  it('frees a seat held on the first half of the trip for the second half', async () => {
    const trip = (await createCorridor(app.db)).trip;
    const [call0, call1, call2, call3] = trip.stopCallIds;
    await allocate(app.db, {
      tripId: trip.id,
      seatId: 'd1-r2-c1',
      board: 0,
      alight: 2,
      status: 'HELD',
      expiresInMinutes: 15,
    });
    const segment = (board: string, alight: string) =>
      `?board_stop_call_id=${board}&alight_stop_call_id=${alight}`;
    expect(seat((await seatsOf(trip.id, segment(call2!, call3!))).seats, 'd1-r2-c1').available).toBe(true);
    expect(seat((await seatsOf(trip.id, segment(call1!, call3!))).seats, 'd1-r2-c1').available).toBe(false);
    expect(seat((await seatsOf(trip.id, segment(call0!, call1!))).seats, 'd1-r2-c1').available).toBe(false);
    const secondHalf = await seatsOf(trip.id, segment(call2!, call3!));
    // The last leg holds a third of the fare (calls share it evenly).
    expect(seat(secondHalf.seats, 'd1-r2-c1').price).toBe(3_333);
  });

  it("shows the company's own seat labels and hides management notes", async () => {
    const document = coachLayout({ rows: 3, pattern: '2+2', labels: 'letters', vipRows: [0] });
    const seatElement = document.elements.find((element) => element.type === 'seat')!;
    seatElement.notes = 'Broken recliner, internal note';
    const company = await createCompany(app.db);
    const bus = await createBus(app.db, company.id);
    await app.db.transaction((client) =>
      saveBusLayout(client, { busId: bus.id, document, saveMode: 'active' }),
    );
    const trip = await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(corridor.date, '12:00'),
      calls: [
        { stop: corridor.originStop, at: 0 },
        { stop: corridor.destinationStop, at: 180 },
      ],
    });
    const res = await app.request(`/api/trips/${trip.id}/seats`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('Broken recliner');
    expect(res.text).not.toContain('"notes"');
    const map = res.body.data as { seats: Seat[]; layout: { elements: { seatNumber?: string }[] } };
    expect(map.seats.map((entry) => entry.seat_number)).toEqual([
      'A1',
      'A2',
      'A3',
      'A4',
      'B1',
      'B2',
      'B3',
      'B4',
      'C1',
      'C2',
      'C3',
      'C4',
    ]);
    expect(seat(map.seats, 'd1-r1-c1')).toMatchObject({
      seat_number: 'A1',
      seat_class: 'VIP',
      price: 15_000,
    });
    expect(
      map.layout.elements.filter((element) => element.seatNumber).map((element) => element.seatNumber),
    ).toContain('C4');
  });

  it('refuses a segment that is not board-before-alight on this trip with 400', async () => {
    const [call0, , call2] = corridor.trip.stopCallIds;
    const otherTripCall = (await createCorridor(app.db)).trip.stopCallIds[0]!;
    for (const query of [
      `?board_stop_call_id=${call2}&alight_stop_call_id=${call0}`,
      `?board_stop_call_id=${call2}&alight_stop_call_id=${call2}`,
      `?board_stop_call_id=${otherTripCall}`,
      `?board_stop_call_id=nope`,
      `?seat=1`,
    ]) {
      const res = await app.request(`/api/trips/${corridor.trip.id}/seats${query}`);
      expect(res.status, query).toBe(400);
      expect(['INVALID_SEGMENT', 'VALIDATION_FAILED']).toContain(res.body.errorCode);
    }
    const reversed = await app.request(
      `/api/trips/${corridor.trip.id}/seats?board_stop_call_id=${call2}&alight_stop_call_id=${call0}`,
    );
    expect(reversed.body.errorCode).toBe('INVALID_SEGMENT');
  });

  it('refuses a segment whose two calls have the same fare share like any segment it does not sell (400 INVALID_SEGMENT)', async () => {
    const { trip } = await tripWithEqualShares(app.db, corridor.date);
    const [call0, call1, call2, call3] = trip.stopCallIds;
    const segment = (board: string, alight: string) =>
      `/api/trips/${trip.id}/seats?board_stop_call_id=${board}&alight_stop_call_id=${alight}`;
    const unsold = await app.request(segment(call1!, call2!));
    expect([unsold.status, unsold.body.errorCode], unsold.text).toEqual([400, 'INVALID_SEGMENT']);
    for (const [board, alight] of [
      [call0!, call2!],
      [call1!, call3!],
      [call0!, call1!],
    ] as const) {
      const res = await app.request(segment(board, alight));
      expect(res.status, res.text).toBe(200);
      expect(seat(res.body.data.seats, 'd1-r1-c5').price).toBe(5_000);
    }
  });

  it('shows no seat available when its boarding call has left, though the trip is still SCHEDULED', async () => {
    // It left its first stop an hour ago and reaches the second in an hour; nobody sent DEPART.
    const trip = await createTrip(app.db, {
      companyId: corridor.company.id,
      busId: corridor.bus.id,
      departAt: new Date(Date.now() - 60 * 60_000),
      calls: [
        { stop: corridor.originStop, at: 0 },
        { stop: corridor.destinationStop, at: 120 },
        { stop: corridor.destinationStop2, at: 240 },
      ],
    });
    const traveller = await app.signIn();
    const lock = await app.request('/api/seat-locks', {
      method: 'POST',
      headers: traveller.writeHeaders,
      json: { trip_id: trip.id, seat_numbers: ['1'] },
    });
    expect([lock.status, lock.body.errorCode]).toEqual([409, 'TRIP_NOT_BOOKABLE']);

    const whole = await seatsOf(trip.id);
    expect(whole.summary).toEqual({ total: 40, available: 0 });
    expect(whole.seats.every((entry) => !entry.available)).toBe(true);
    const [, call1, call2] = trip.stopCallIds;
    const ahead = await seatsOf(trip.id, `?board_stop_call_id=${call1}&alight_stop_call_id=${call2}`);
    expect(ahead.summary).toEqual({ total: 40, available: 40 });
  });

  it('shows no seat available on a cancelled trip', async () => {
    const cancelled = await createCorridor(app.db);
    await app.db.query(`update trips set status = 'CANCELLED' where id = $1`, [cancelled.trip.id]);
    expect((await seatsOf(cancelled.trip.id)).summary).toEqual({ total: 40, available: 0 });
  });

  it('answers 409 LAYOUT_NOT_AVAILABLE when the bus has no active valid layout', async () => {
    const other = await createCorridor(app.db);
    await app.db.query(`update bus_layouts set status = 'archived' where bus_id = $1`, [other.bus.id]);
    const res = await app.request(`/api/trips/${other.trip.id}/seats`);
    expect(res.status).toBe(409);
    expect(res.body.errorCode).toBe('LAYOUT_NOT_AVAILABLE');
  });
});
