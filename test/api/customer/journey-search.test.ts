import { describe, expect, it } from 'vitest';
import type { Database } from '../../../db/orm.js';
import { MAX_JOURNEYS } from '../../../domain/journey-search.js';
import { legFare } from '../../../domain/pricing.js';
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
import { useTestApp, type TestApp } from '../../support/harness.js';

interface StopIdentityBody {
  stop_call_id: string;
  stop_id: string;
  id: string;
  name_ar: string;
  name_en: string;
  city_id: string;
  departure_at: string;
  arrival_at: string;
}

interface LegBody {
  sequence: number;
  trip_id: string;
  company_id: string;
  company: { id: string; name_ar: string; name_en: string };
  departure_at: string;
  arrival_at: string;
  duration_minutes: number;
  price: number;
  price_vip: number | null;
  currency: string;
  free_seats: number;
  board: StopIdentityBody;
  alight: StopIdentityBody;
}

interface JourneyBody {
  journey_key: string;
  departure_at: string;
  arrival_at: string;
  duration_minutes: number;
  transfers: number;
  total_price: number;
  currency: string;
  free_seats: number;
  legs: LegBody[];
  transfer: { kind: string; city_id: string; wait_minutes: number } | null;
}

const search = (
  app: TestApp,
  body: Record<string, unknown>,
  init: { token?: string; headers?: Record<string, string> } = {},
) => app.request('/api/journeys/search', { method: 'POST', json: body, ...init });

const journeysOf = (response: { body: { data: { journeys: JourneyBody[] } } }) => response.body.data.journeys;
const tripsOf = (response: { body: { data: { journeys: JourneyBody[] } } }) =>
  journeysOf(response).map((j) => j.legs.map((l) => l.trip_id));

/** A company of the given kind with a bus of `rows` rows of four seats, the last VIP class. */
async function operator(
  db: Database,
  options: {
    scope?: CompanyScopeKind;
    status?: 'ACTIVE' | 'SUSPENDED';
    published?: boolean;
    rows?: number;
  } = {},
) {
  const company = await createCompany(db, options);
  const rows = options.rows ?? 10;
  const bus = await createBus(db, company.id, { rows, pattern: '2+2', vipRows: [rows - 1] });
  return { company, bus };
}

/** Two cities with one bus station each. */
async function cityPair(db: Database) {
  const from = await createCity(db);
  const to = await createCity(db);
  return { from, to, fromStop: await createStop(db, from.id), toStop: await createStop(db, to.id) };
}

describe('POST /journeys/search', () => {
  // The limiter is exercised by its own suite below; here it would only count these requests.
  const app = useTestApp({ SEARCH_RATE_LIMIT_PER_MINUTE: 0 });

  it('finds a direct trip between two stops with the stop-call identity of boarding and alighting', async () => {
    const world = await createCorridor(app.db, { date: futureDay(3), bus: VIP_ROW_COACH });
    const response = await search(app, {
      origin_stop_id: world.originStop.id,
      destination_stop_id: world.destinationStop.id,
      departure_date: world.date,
      passengers: 2,
    });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    const [journey, ...others] = journeysOf(response);
    expect(others).toEqual([]);
    const leg = journey!.legs[0]!;
    expect(leg.board).toMatchObject({
      stop_call_id: world.trip.stopCallIds[0],
      id: world.trip.stopCallIds[0],
      stop_id: world.originStop.id,
      name_en: world.originStop.nameEn,
      name_ar: `موقف ${world.originStop.nameEn}`,
      city_id: world.origin.id,
      departure_at: atDamascus(world.date, '08:00').toISOString(),
    });
    expect(leg.alight).toMatchObject({
      stop_call_id: world.trip.stopCallIds[2],
      id: world.trip.stopCallIds[2],
      stop_id: world.destinationStop.id,
      name_en: world.destinationStop.nameEn,
      city_id: world.destination.id,
      arrival_at: atDamascus(world.date, '11:00').toISOString(),
    });
    // Fare shares of the four calls: 0, 3333, 6667, 10000 basis points.
    expect(leg).toMatchObject({
      sequence: 1,
      trip_id: world.trip.id,
      company_id: world.company.id,
      company: { id: world.company.id, name_en: world.company.nameEn },
      duration_minutes: 180,
      price: legFare(10_000, 0, 6667),
      price_vip: legFare(15_000, 0, 6667),
      currency: 'SYP',
      free_seats: 40,
    });
    expect(journey).toMatchObject({
      journey_key: `${world.trip.id}:${world.trip.stopCallIds[0]}:${world.trip.stopCallIds[2]}`,
      departure_at: leg.departure_at,
      arrival_at: leg.arrival_at,
      duration_minutes: 180,
      transfers: 0,
      total_price: leg.price,
      currency: 'SYP',
      free_seats: 40,
      transfer: null,
    });
    expect(response.body.data.search).toEqual({
      origin_stop_id: world.originStop.id,
      destination_stop_id: world.destinationStop.id,
      departure_date: world.date,
      passengers: 2,
      locale: 'ar',
      currency: 'SYP',
      fromType: 'stop',
      toType: 'stop',
    });
  });

  it('a city search covers every public stop of the city and offers each trip once, boarding first', async () => {
    const world = await createCorridor(app.db, { date: futureDay(3) });
    const byCity = await search(app, {
      origin_city_id: world.origin.id.toUpperCase(),
      destination_city_id: world.destination.id,
      departure_date: world.date,
      passengers: 1,
      locale: 'en',
    });
    expect(byCity.status).toBe(200);
    expect(journeysOf(byCity)).toHaveLength(1);
    const leg = journeysOf(byCity)[0]!.legs[0]!;
    expect([leg.board.stop_id, leg.alight.stop_id]).toEqual([world.originStop.id, world.destinationStop.id]);
    expect(byCity.body.data.search).toMatchObject({
      origin_city_id: world.origin.id,
      fromType: 'city',
      toType: 'city',
      locale: 'en',
    });

    const fromSecondStop = await search(app, {
      origin_stop_id: world.originStop2.id,
      destination_city_id: world.destination.id,
      departure_date: world.date,
      passengers: 1,
    });
    const second = journeysOf(fromSecondStop)[0]!.legs[0]!;
    expect(second.board).toMatchObject({
      stop_call_id: world.trip.stopCallIds[1],
      stop_id: world.originStop2.id,
    });
    expect(second.departure_at).toBe(atDamascus(world.date, '08:25').toISOString());
  });

  it('never boards or alights at a depot, and a depot or disabled stop is not a search end', async () => {
    const date = futureDay(4);
    const { from, to, toStop } = await cityPair(app.db);
    const depot = await createStop(app.db, from.id, { kind: 'DEPOT' });
    const disabled = await createStop(app.db, from.id, { enabled: false });
    const { company, bus } = await operator(app.db);
    await createTrip(app.db, {
      companyId: company.id,
      busId: bus.id,
      departAt: atDamascus(date, '09:00'),
      calls: [
        { stop: depot, at: 0 },
        { stop: disabled, at: 30 },
        { stop: toStop, at: 120 },
      ],
    });
    const byCity = await search(app, {
      origin_city_id: from.id,
      destination_city_id: to.id,
      departure_date: date,
      passengers: 1,
    });
    expect(byCity.status).toBe(200);
    expect(journeysOf(byCity)).toEqual([]);
    for (const stop of [depot, disabled]) {
      const byStop = await search(app, {
        origin_stop_id: stop.id,
        destination_city_id: to.id,
        departure_date: date,
        passengers: 1,
      });
      expect(byStop.status).toBe(404);
      expect(byStop.body.errorCode).toBe('LOCATION_NOT_FOUND');
    }
  });

  describe('connections', () => {
    /** A → B by one company, B → C by another; `second` says where and when the second leg boards. */
    async function twoCompanies(second: { sameStop: boolean; departs: string }) {
      const date = futureDay(5);
      const [a, b, c] = [await createCity(app.db), await createCity(app.db), await createCity(app.db)];
      const aStop = await createStop(app.db, a.id);
      const bStop = await createStop(app.db, b.id);
      const bOtherStop = await createStop(app.db, b.id, { kind: 'PARKING_POINT' });
      const cStop = await createStop(app.db, c.id);
      const first = await operator(app.db);
      const other = await operator(app.db);
      const leg1 = await createTrip(app.db, {
        companyId: first.company.id,
        busId: first.bus.id,
        departAt: atDamascus(date, '07:00'),
        calls: [
          { stop: aStop, at: 0 },
          { stop: bStop, at: 180 },
        ],
      });
      const leg2 = await createTrip(app.db, {
        companyId: other.company.id,
        busId: other.bus.id,
        departAt: atDamascus(date, second.departs),
        priceBase: 4_000,
        priceVip: null,
        calls: [
          { stop: second.sameStop ? bStop : bOtherStop, at: 0 },
          { stop: cStop, at: 90 },
        ],
      });
      return { date, a, b, c, first, other, leg1, leg2, bStop, bOtherStop };
    }

    it('joins two trips of different companies at the same stop when no direct trip exists', async () => {
      const world = await twoCompanies({ sameStop: true, departs: '10:30' });
      const response = await search(app, {
        origin_city_id: world.a.id,
        destination_city_id: world.c.id,
        departure_date: world.date,
        passengers: 2,
      });
      expect(response.status).toBe(200);
      const [journey, ...others] = journeysOf(response);
      expect(others).toEqual([]);
      expect(journey).toMatchObject({
        transfers: 1,
        transfer: { kind: 'SAME_STOP', city_id: world.b.id, wait_minutes: 30 },
        departure_at: atDamascus(world.date, '07:00').toISOString(),
        arrival_at: atDamascus(world.date, '12:00').toISOString(),
        duration_minutes: 300,
        total_price: 10_000 + 4_000,
        free_seats: 40,
      });
      expect(journey!.legs.map((leg) => [leg.sequence, leg.trip_id, leg.company_id, leg.price_vip])).toEqual([
        [1, world.leg1.id, world.first.company.id, 15_000],
        [2, world.leg2.id, world.other.company.id, null],
      ]);
      expect(journey!.legs[0]!.alight.stop_id).toBe(world.bStop.id);
      expect(journey!.legs[1]!.board.stop_call_id).toBe(world.leg2.stopCallIds[0]);
      expect(journey!.journey_key).toBe(
        `${world.leg1.id}:${world.leg1.stopCallIds[0]}:${world.leg1.stopCallIds[1]}+${world.leg2.id}:${world.leg2.stopCallIds[0]}:${world.leg2.stopCallIds[1]}`,
      );
    });

    it('changes between two stops of the same city with the longer minimum', async () => {
      const world = await twoCompanies({ sameStop: false, departs: '11:00' });
      const response = await search(app, {
        origin_city_id: world.a.id,
        destination_city_id: world.c.id,
        departure_date: world.date,
        passengers: 1,
      });
      expect(journeysOf(response).map((j) => j.transfer)).toEqual([
        { kind: 'SAME_CITY', city_id: world.b.id, wait_minutes: 60 },
      ]);
    });

    it('refuses a change shorter than the minimum for its kind', async () => {
      for (const second of [
        { sameStop: true, departs: '10:10' },
        { sameStop: false, departs: '10:45' },
      ]) {
        const world = await twoCompanies(second);
        const response = await search(app, {
          origin_city_id: world.a.id,
          destination_city_id: world.c.id,
          departure_date: world.date,
          passengers: 1,
        });
        expect(response.status).toBe(200);
        expect(journeysOf(response)).toEqual([]);
      }
    });

    it('refuses a wait longer than the maximum', async () => {
      const world = await twoCompanies({ sameStop: true, departs: '16:01' });
      const response = await search(app, {
        origin_city_id: world.a.id,
        destination_city_id: world.c.id,
        departure_date: world.date,
        passengers: 1,
      });
      expect(journeysOf(response)).toEqual([]);
    });

    it("measures the change from the first leg's expected arrival: its planned arrival plus its announced delay", async () => {
      // The first leg reaches B at 10:00 as planned; stop-call times stay planned after MARK_DELAYED.
      const delayed = async (departs: string, delayMinutes: number) => {
        const world = await twoCompanies({ sameStop: true, departs });
        await app.db.query(`update trips set status = 'DELAYED', delay_minutes = $2 where id = $1`, [
          world.leg1.id,
          delayMinutes,
        ]);
        const response = await search(app, {
          origin_city_id: world.a.id,
          destination_city_id: world.c.id,
          departure_date: world.date,
          passengers: 1,
        });
        expect(response.status).toBe(200);
        return { world, journeys: journeysOf(response) };
      };
      // 10:30 after a 20-minute delay: a 10-minute change, under the same-stop minimum of 20.
      expect((await delayed('10:30', 20)).journeys).toEqual([]);
      // After a 5-minute delay the change is 25 minutes, and that is the wait shown.
      const short = await delayed('10:30', 5);
      expect(short.journeys.map((j) => [j.legs.map((l) => l.trip_id), j.transfer])).toEqual([
        [
          [short.world.leg1.id, short.world.leg2.id],
          { kind: 'SAME_STOP', city_id: short.world.b.id, wait_minutes: 25 },
        ],
      ]);
      // 16:30 is more than the longest wait (360 minutes) after the planned arrival, not after the expected one.
      const late = await delayed('16:30', 60);
      expect(late.journeys.map((j) => [j.legs.map((l) => l.trip_id), j.transfer])).toEqual([
        [
          [late.world.leg1.id, late.world.leg2.id],
          { kind: 'SAME_STOP', city_id: late.world.b.id, wait_minutes: 330 },
        ],
      ]);
    });

    it('offers every pair of connecting trips, once each, however many stop combinations a pair has', async () => {
      // Cities of 2, 3 and 2 stops: each pair of trips has up to 24 stop combinations, and the cap
      // of 50 counts pairs (before, the first pairs' combinations filled it: 4 of 10 were offered).
      const date = futureDay(6);
      const [o, x, d] = [await createCity(app.db), await createCity(app.db), await createCity(app.db)];
      const oStops = [
        await createStop(app.db, o.id),
        await createStop(app.db, o.id, { kind: 'PARKING_POINT' }),
      ];
      const xStops = [
        await createStop(app.db, x.id),
        await createStop(app.db, x.id, { kind: 'PARKING_POINT' }),
        await createStop(app.db, x.id, { kind: 'AIRPORT' }),
      ];
      const dStops = [await createStop(app.db, d.id), await createStop(app.db, d.id, { kind: 'AIRPORT' })];
      const company = await createCompany(app.db);
      const bus = await createBus(app.db, company.id, { rows: 10, pattern: '2+2' });
      const at = (hour: number) => atDamascus(date, `${String(hour).padStart(2, '0')}:00`);
      const firsts: string[] = [];
      const seconds: string[] = [];
      for (let k = 0; k < 4; k += 1) {
        const first = await createTrip(app.db, {
          companyId: company.id,
          busId: bus.id,
          departAt: at(6 + k),
          calls: [
            { stop: oStops[0]!, at: 0 },
            { stop: oStops[1]!, at: 10, dwell: 2 },
            { stop: xStops[0]!, at: 120, dwell: 2 },
            { stop: xStops[1]!, at: 130, dwell: 2 },
            { stop: xStops[2]!, at: 140 },
          ],
        });
        firsts.push(first.id);
        const second = await createTrip(app.db, {
          companyId: company.id,
          busId: bus.id,
          departAt: at(9 + k),
          calls: [
            { stop: xStops[0]!, at: 0 },
            { stop: xStops[1]!, at: 10, dwell: 2 },
            { stop: xStops[2]!, at: 20, dwell: 2 },
            { stop: dStops[0]!, at: 120, dwell: 2 },
            { stop: dStops[1]!, at: 130 },
          ],
        });
        seconds.push(second.id);
      }
      const response = await search(app, {
        origin_city_id: o.id,
        destination_city_id: d.id,
        departure_date: date,
        passengers: 1,
      });
      expect(response.status).toBe(200);
      const pairs = journeysOf(response).map((journey) => journey.legs.map((leg) => leg.trip_id).join('+'));
      // First trip i (in X from 08:00 + i h) meets every second trip j >= i (09:00 + j h) within the longest wait.
      const expected = firsts.flatMap((first, i) => seconds.slice(i).map((second) => `${first}+${second}`));
      expect([...pairs].sort()).toEqual([...expected].sort());
    });
  });

  describe('free seats', () => {
    /** A trip A → B → C on a four-seat bus. */
    async function smallBus() {
      const date = futureDay(6);
      const [a, b, c] = [await createCity(app.db), await createCity(app.db), await createCity(app.db)];
      const stops = [
        await createStop(app.db, a.id),
        await createStop(app.db, b.id),
        await createStop(app.db, c.id),
      ];
      const { company, bus } = await operator(app.db, { rows: 1 });
      const trip = await createTrip(app.db, {
        companyId: company.id,
        busId: bus.id,
        departAt: atDamascus(date, '09:00'),
        calls: stops.map((stop, index) => ({ stop, at: index * 60 })),
      });
      return { date, a, b, c, trip };
    }

    const allocate = (
      tripId: string,
      seatId: string,
      status: string,
      interval: [number, number],
      expiresInMinutes: number | null,
    ) =>
      app.db.query(
        `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, expires_at)
         values ($1, $2, $3, $4, $5, case when $6::int is null then null else now() + make_interval(mins => $6::int) end)`,
        [tripId, seatId, interval[0], interval[1], status, expiresInMinutes],
      );

    it('counts confirmed seats and live holds on the ridden part, not expired holds or other parts', async () => {
      const world = await smallBus();
      await allocate(world.trip.id, 'd1-r1-c1', 'CONFIRMED', [0, 2], null);
      await allocate(world.trip.id, 'd1-r1-c2', 'HELD', [0, 1], 10);
      await allocate(world.trip.id, 'd1-r1-c4', 'HELD', [0, 2], -1);
      await allocate(world.trip.id, 'd1-r1-c5', 'CONFIRMED', [1, 2], null);
      const ab = (passengers: number) =>
        search(app, {
          origin_city_id: world.a.id,
          destination_city_id: world.b.id,
          departure_date: world.date,
          passengers,
        });
      expect(journeysOf(await ab(2)).map((j) => j.free_seats)).toEqual([2]);
      expect(journeysOf(await ab(3))).toEqual([]);
      const ac = await search(app, {
        origin_city_id: world.a.id,
        destination_city_id: world.c.id,
        departure_date: world.date,
        passengers: 1,
      });
      expect(journeysOf(ac).map((j) => j.free_seats)).toEqual([1]);
    });

    it(`offers a connection with seats for the party after ${MAX_JOURNEYS} earlier connections without them`, async () => {
      // MAX_JOURNEYS + 1 first legs A → B a minute apart on four-seat buses, all but the last with
      // one seat left, then one B → C leg with every seat free: the cap counts offered journeys only.
      const date = futureDay(6);
      const [a, b, c] = [await createCity(app.db), await createCity(app.db), await createCity(app.db)];
      const [aStop, bStop, cStop] = [
        await createStop(app.db, a.id),
        await createStop(app.db, b.id),
        await createStop(app.db, c.id),
      ];
      const small = await operator(app.db, { rows: 1 });
      const firsts: string[] = [];
      for (let i = 0; i <= MAX_JOURNEYS; i += 1) {
        const trip = await createTrip(app.db, {
          companyId: small.company.id,
          busId: small.bus.id,
          departAt: new Date(atDamascus(date, '06:00').getTime() + i * 60_000),
          calls: [
            { stop: aStop, at: 0 },
            { stop: bStop, at: 180 },
          ],
        });
        firsts.push(trip.id);
        if (i < MAX_JOURNEYS) {
          for (const seat of ['d1-r1-c1', 'd1-r1-c2', 'd1-r1-c4']) {
            await allocate(trip.id, seat, 'CONFIRMED', [0, 1], null);
          }
        }
      }
      const { company, bus } = await operator(app.db);
      const second = await createTrip(app.db, {
        companyId: company.id,
        busId: bus.id,
        departAt: atDamascus(date, '10:30'),
        calls: [
          { stop: bStop, at: 0 },
          { stop: cStop, at: 90 },
        ],
      });
      const response = await search(app, {
        origin_city_id: a.id,
        destination_city_id: c.id,
        departure_date: date,
        passengers: 2,
      });
      expect(response.status).toBe(200);
      expect(tripsOf(response)).toEqual([[firsts[MAX_JOURNEYS], second.id]]);
    });

    it(`offers the first ${MAX_JOURNEYS} connections by the departure each offers, not by a sold-out earlier boarding`, async () => {
      // A first leg boards O1 at 07:00 (every seat taken as far as O2) and O2 at 09:00 (free); then
      // MAX_JOURNEYS first legs board O1 at 07:01, 07:02... All meet one second leg in X. The first
      // is offered from 09:00 only, after the MAX_JOURNEYS others, and so falls outside the cap.
      const date = futureDay(5);
      const [o, x, d] = [await createCity(app.db), await createCity(app.db), await createCity(app.db)];
      const [o1, o2] = [
        await createStop(app.db, o.id),
        await createStop(app.db, o.id, { kind: 'PARKING_POINT' }),
      ];
      const [x1, d1] = [await createStop(app.db, x.id), await createStop(app.db, d.id)];
      const small = await operator(app.db, { rows: 1 });
      const soldOutFirst = await createTrip(app.db, {
        companyId: small.company.id,
        busId: small.bus.id,
        departAt: atDamascus(date, '07:00'),
        calls: [
          { stop: o1, at: 0 },
          { stop: o2, at: 120 },
          { stop: x1, at: 180 },
        ],
      });
      for (const seat of ['d1-r1-c1', 'd1-r1-c2', 'd1-r1-c4', 'd1-r1-c5']) {
        await allocate(soldOutFirst.id, seat, 'CONFIRMED', [0, 1], null);
      }
      const { company, bus } = await operator(app.db);
      const firsts: string[] = [];
      for (let i = 1; i <= MAX_JOURNEYS; i += 1) {
        const trip = await createTrip(app.db, {
          companyId: company.id,
          busId: bus.id,
          departAt: new Date(atDamascus(date, '07:00').getTime() + i * 60_000),
          calls: [
            { stop: o1, at: 0 },
            { stop: x1, at: 60 },
          ],
        });
        firsts.push(trip.id);
      }
      const second = await createTrip(app.db, {
        companyId: company.id,
        busId: bus.id,
        departAt: atDamascus(date, '10:30'),
        calls: [
          { stop: x1, at: 0 },
          { stop: d1, at: 90 },
        ],
      });
      const between = () =>
        search(app, { origin_city_id: o.id, destination_city_id: d.id, departure_date: date, passengers: 1 });
      const response = await between();
      expect(response.status).toBe(200);
      expect(tripsOf(response)).toEqual(firsts.map((first) => [first, second.id]));
      expect(journeysOf(response).map((journey) => journey.departure_at)).toEqual(
        firsts.map((_, i) => new Date(atDamascus(date, '07:00').getTime() + (i + 1) * 60_000).toISOString()),
      );

      // With one of the earlier connections gone, the first is offered, last, from 09:00.
      await app.db.query(`update trips set status = 'CANCELLED' where id = $1`, [firsts[0]]);
      const fewer = await between();
      expect(tripsOf(fewer)).toEqual(
        [...firsts.slice(1), soldOutFirst.id].map((first) => [first, second.id]),
      );
      expect(journeysOf(fewer).at(-1)).toMatchObject({
        departure_at: atDamascus(date, '09:00').toISOString(),
        legs: [{ board: { stop_id: o2.id } }, {}],
      });
    });
  });

  describe('a leg between two calls of the same fare share (stored before routes refused them)', () => {
    /**
     * A → B → C → D whose calls in B and C share half the fare each (B to C costs nothing), an
     * earlier trip E → B of another company and a later one C → F: a connection may use either.
     */
    async function equalShares() {
      const date = futureDay(9);
      const city = () => createCity(app.db);
      const [a, b, c, d, e, f] = await Promise.all([city(), city(), city(), city(), city(), city()]);
      const [aStop, bStop, cStop, dStop, eStop, fStop] = await Promise.all(
        [a, b, c, d, e, f].map((city) => createStop(app.db, city.id)),
      );
      const main = await operator(app.db);
      const feeder = await operator(app.db);
      const trip = await createTrip(app.db, {
        companyId: main.company.id,
        busId: main.bus.id,
        departAt: atDamascus(date, '08:00'),
        calls: [
          { stop: aStop!, at: 0 },
          { stop: bStop!, at: 60, dwell: 5 },
          { stop: cStop!, at: 120, dwell: 5 },
          { stop: dStop!, at: 180 },
        ],
      });
      await app.db.query(`update trip_stop_calls set fare_share_bp = 5000 where id = any ($1::uuid[])`, [
        trip.stopCallIds.slice(1, 3),
      ]);
      const into = await createTrip(app.db, {
        companyId: feeder.company.id,
        busId: feeder.bus.id,
        departAt: atDamascus(date, '07:00'),
        calls: [
          { stop: eStop!, at: 0 },
          { stop: bStop!, at: 90 },
        ],
      });
      const onward = await createTrip(app.db, {
        companyId: feeder.company.id,
        busId: feeder.bus.id,
        departAt: atDamascus(date, '10:40'),
        calls: [
          { stop: cStop!, at: 0 },
          { stop: fStop!, at: 60 },
        ],
      });
      const between = (from: { id: string }, to: { id: string }) =>
        search(app, {
          origin_city_id: from.id,
          destination_city_id: to.id,
          departure_date: date,
          passengers: 1,
        });
      return { a, b, c, d, e, f, trip, into, onward, between };
    }

    it('is not offered direct, and the trip is still offered on the legs that cost something', async () => {
      const world = await equalShares();
      const unsold = await world.between(world.b, world.c);
      expect(unsold.status, unsold.text).toBe(200);
      expect(journeysOf(unsold)).toEqual([]);
      for (const [from, to] of [
        [world.a, world.c],
        [world.b, world.d],
      ] as const) {
        const response = await world.between(from, to);
        expect(tripsOf(response)).toEqual([[world.trip.id]]);
        expect(journeysOf(response)[0]!.legs[0]).toMatchObject({ price: 5_000, price_vip: 7_500 });
      }
    });

    it('is not offered as either leg of a connection', async () => {
      const world = await equalShares();
      for (const [from, to] of [
        [world.e, world.c],
        [world.b, world.f],
      ] as const) {
        const response = await world.between(from, to);
        expect(response.status, response.text).toBe(200);
        expect(journeysOf(response)).toEqual([]);
      }
      // The same trips connect on the legs that cost something.
      expect(tripsOf(await world.between(world.e, world.d))).toEqual([[world.into.id, world.trip.id]]);
      expect(tripsOf(await world.between(world.a, world.f))).toEqual([[world.trip.id, world.onward.id]]);
    });
  });

  it('hides departed, cancelled and already-left trips', async () => {
    const { from, to, fromStop, toStop } = await cityPair(app.db);
    const { company, bus } = await operator(app.db);
    const date = futureDay(7);
    const trip = (status: string, departAt: Date) =>
      createTrip(app.db, {
        companyId: company.id,
        busId: bus.id,
        departAt,
        status,
        calls: [
          { stop: fromStop, at: 0 },
          { stop: toStop, at: 60 },
        ],
      });
    const visible = await trip('DELAYED', atDamascus(date, '06:00'));
    await trip('DEPARTED', atDamascus(date, '07:00'));
    await trip('CANCELLED', atDamascus(date, '08:00'));
    const response = await search(app, {
      origin_city_id: from.id,
      destination_city_id: to.id,
      departure_date: date,
      passengers: 1,
    });
    expect(tripsOf(response)).toEqual([[visible.id]]);

    const today = futureDay(0);
    const left = await trip('SCHEDULED', new Date(Date.now() - 5 * 60_000));
    const todays = await search(app, {
      origin_city_id: from.id,
      destination_city_id: to.id,
      departure_date: today,
      passengers: 1,
    });
    expect(todays.status).toBe(200);
    expect(tripsOf(todays).flat()).not.toContain(left.id);
  });

  it('orders by departure, then duration, then price', async () => {
    const { from, to, fromStop, toStop } = await cityPair(app.db);
    const { company, bus } = await operator(app.db);
    const date = futureDay(8);
    const trip = (time: string, minutes: number, priceBase: number) =>
      createTrip(app.db, {
        companyId: company.id,
        busId: bus.id,
        departAt: atDamascus(date, time),
        priceBase,
        calls: [
          { stop: fromStop, at: 0 },
          { stop: toStop, at: minutes },
        ],
      });
    const late = await trip('10:00', 60, 1_000);
    const slow = await trip('08:00', 120, 1_000);
    const dear = await trip('08:00', 60, 9_000);
    const best = await trip('08:00', 60, 5_000);
    const response = await search(app, {
      origin_city_id: from.id,
      destination_city_id: to.id,
      departure_date: date,
      passengers: 1,
    });
    expect(tripsOf(response)).toEqual([[best.id], [dear.id], [slow.id], [late.id]]);
  });

  describe('inventory scope', () => {
    it('shows each caller only its own inventory', async () => {
      const { from, to, fromStop, toStop } = await cityPair(app.db);
      const date = futureDay(9);
      const tripOf = async (options: Parameters<typeof operator>[1]) => {
        const { company, bus } = await operator(app.db, options);
        const trip = await createTrip(app.db, {
          companyId: company.id,
          busId: bus.id,
          departAt: atDamascus(date, '09:00'),
          calls: [
            { stop: fromStop, at: 0 },
            { stop: toStop, at: 60 },
          ],
        });
        return { companyId: company.id, tripId: trip.id };
      };
      const production = await tripOf({ scope: 'PRODUCTION' });
      const internal = await tripOf({ scope: 'INTERNAL' });
      const demo = await tripOf({ scope: 'DEMO' });
      const otherDemo = await tripOf({ scope: 'DEMO' });
      await tripOf({ scope: 'PRODUCTION', status: 'SUSPENDED' });
      await tripOf({ scope: 'PRODUCTION', published: false });

      const seen = async (token?: string) =>
        tripsOf(
          await search(
            app,
            { origin_city_id: from.id, destination_city_id: to.id, departure_date: date, passengers: 1 },
            { token },
          ),
        ).flat();
      expect(await seen()).toEqual([production.tripId]);
      expect(await seen(await app.tokenFor({ kind: 'PRODUCTION' }))).toEqual([production.tripId]);
      expect(await seen(await app.tokenFor({ kind: 'INTERNAL' }))).toEqual([internal.tripId]);
      expect(await seen(await app.tokenFor({ kind: 'DEMO', companyId: demo.companyId }))).toEqual([
        demo.tripId,
      ]);
      expect(await seen(await app.tokenFor({ kind: 'DEMO', companyId: otherDemo.companyId }))).toEqual([
        otherDemo.tripId,
      ]);
    });

    it('answers an invalid or expired credential with 401, never with public data', async () => {
      const world = await createCorridor(app.db, { date: futureDay(3) });
      const body = {
        origin_city_id: world.origin.id,
        destination_city_id: world.destination.id,
        departure_date: world.date,
        passengers: 1,
      };
      const expired = await app.tokenFor({ kind: 'PRODUCTION' }, { ttlSeconds: -60 });
      const credentials: { token?: string; headers?: Record<string, string> }[] = [
        { token: 'not-a-token' },
        { token: expired },
        { headers: { Authorization: 'Basic abc' } },
        { headers: { Cookie: 'bb_access=garbage' } },
      ];
      for (const init of credentials) {
        const response = await search(app, body, init);
        expect(response.status).toBe(401);
        expect(response.body.success).toBe(false);
        expect(response.body.data).toBeUndefined();
      }
    });
  });

  it('is read-only: a cookie-authenticated web traveller searches without a CSRF header', async () => {
    const world = await createCorridor(app.db, { date: futureDay(3) });
    const web = await app.signIn();
    const response = await search(
      app,
      {
        origin_city_id: world.origin.id,
        destination_city_id: world.destination.id,
        departure_date: world.date,
        passengers: 1,
      },
      { headers: { Cookie: web.cookie } },
    );
    expect(response.status).toBe(200);
    expect(tripsOf(response)).toEqual([[world.trip.id]]);
  });

  it('answers privately: Cache-Control private, no-store and Vary on the identity headers', async () => {
    const world = await createCorridor(app.db, { date: futureDay(3) });
    const response = await search(app, {
      origin_city_id: world.origin.id,
      destination_city_id: world.destination.id,
      departure_date: world.date,
      passengers: 1,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('vary')).toContain('Origin, Authorization, Cookie');
  });

  describe('refuses bad input with a stable errorCode', () => {
    /** The operation's prose in the OpenAPI document: a client reads there what each errorCode means. */
    let contract: Promise<string> | undefined;
    const searchContract = () =>
      (contract ??= app
        .request('/api/openapi.json')
        .then((document) => document.body.paths['/api/journeys/search'].post.description as string));
    const valid = () => ({
      origin_city_id: crypto.randomUUID(),
      destination_city_id: crypto.randomUUID(),
      departure_date: futureDay(2),
      passengers: 1,
    });

    it.each([
      ['both origin city and stop', { origin_stop_id: crypto.randomUUID() }, 'EXACTLY_ONE_ORIGIN'],
      ['no origin', { origin_city_id: undefined }, 'EXACTLY_ONE_ORIGIN'],
      [
        'both destination city and stop',
        { destination_stop_id: crypto.randomUUID() },
        'EXACTLY_ONE_DESTINATION',
      ],
      ['no destination', { destination_city_id: undefined }, 'EXACTLY_ONE_DESTINATION'],
      ['a malformed UUID', { origin_city_id: '1234' }, 'VALIDATION_FAILED'],
      ['an unknown field', { from: 'Damascus' }, 'VALIDATION_FAILED'],
      ['passengers as text', { passengers: '2' }, 'VALIDATION_FAILED'],
      ['no passengers', { passengers: 0 }, 'VALIDATION_FAILED'],
      ['too many passengers', { passengers: 21 }, 'VALIDATION_FAILED'],
      ['a fractional passenger count', { passengers: 1.5 }, 'VALIDATION_FAILED'],
      ['an impossible date', { departure_date: '2026-02-30' }, 'VALIDATION_FAILED'],
      ['a date in the past', { departure_date: futureDay(-2) }, 'DEPARTURE_DATE_IN_PAST'],
      ['another currency', { currency: 'USD' }, 'VALIDATION_FAILED'],
      ['another locale', { locale: 'fr' }, 'VALIDATION_FAILED'],
    ])('%s', async (_name, change, errorCode) => {
      const response = await search(app, { ...valid(), ...change });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, errorCode });
      expect(await searchContract(), `${errorCode} is named in the OpenAPI operation`).toContain(errorCode);
    });

    it('the same origin and destination, by id or by city', async () => {
      const world = await createCorridor(app.db, { date: futureDay(3) });
      const date = world.date;
      for (const body of [
        { origin_city_id: world.origin.id, destination_city_id: world.origin.id },
        { origin_stop_id: world.originStop.id, destination_stop_id: world.originStop.id },
        { origin_stop_id: world.originStop.id, destination_stop_id: world.originStop2.id },
        { origin_stop_id: world.originStop.id, destination_city_id: world.origin.id },
      ]) {
        const response = await search(app, { ...body, departure_date: date, passengers: 1 });
        expect(response.status).toBe(400);
        expect(response.body.errorCode).toBe('SAME_ORIGIN_AND_DESTINATION');
      }
      expect(await searchContract()).toContain('SAME_ORIGIN_AND_DESTINATION');
    });

    it("a stop of a company outside the caller's inventory scope is 404 LOCATION_NOT_FOUND, as an unknown one", async () => {
      const { from, to, toStop } = await cityPair(app.db);
      const internal = await createCompany(app.db, { scope: 'INTERNAL' });
      const internalStop = await createStop(app.db, from.id, { companyId: internal.id });
      const { company, bus } = await operator(app.db, { scope: 'INTERNAL' });
      const date = futureDay(3);
      const trip = await createTrip(app.db, {
        companyId: company.id,
        busId: bus.id,
        departAt: atDamascus(date, '09:00'),
        calls: [
          { stop: internalStop, at: 0 },
          { stop: toStop, at: 60 },
        ],
      });
      const body = { departure_date: date, passengers: 1 };
      for (const ends of [
        { origin_stop_id: internalStop.id, destination_city_id: to.id },
        { origin_city_id: to.id, destination_stop_id: internalStop.id },
      ]) {
        const response = await search(app, { ...ends, ...body });
        expect([response.status, response.body.errorCode]).toEqual([404, 'LOCATION_NOT_FOUND']);
      }
      // The company's own scope finds it.
      const own = await search(
        app,
        { origin_stop_id: internalStop.id, destination_city_id: to.id, ...body },
        { token: await app.tokenFor({ kind: 'INTERNAL' }) },
      );
      expect(own.status).toBe(200);
      expect(tripsOf(own)).toEqual([[trip.id]]);
    });

    it('an unknown city or stop is 404 LOCATION_NOT_FOUND', async () => {
      const world = await createCorridor(app.db, { date: futureDay(3) });
      for (const body of [
        { origin_city_id: crypto.randomUUID(), destination_city_id: world.destination.id },
        { origin_city_id: world.origin.id, destination_stop_id: crypto.randomUUID() },
        { origin_stop_id: world.origin.id, destination_city_id: world.destination.id },
      ]) {
        const response = await search(app, { ...body, departure_date: world.date, passengers: 1 });
        expect(response.status).toBe(404);
        expect(response.body.errorCode).toBe('LOCATION_NOT_FOUND');
      }
      expect(await searchContract()).toContain('LOCATION_NOT_FOUND');
    });
  });
});

describe('POST /journeys/search rate limit', () => {
  const app = useTestApp({ SEARCH_RATE_LIMIT_PER_MINUTE: 3 });

  it('answers 429 RATE_LIMITED with Retry-After once a client IP is over its limit', async () => {
    const body = {
      origin_city_id: crypto.randomUUID(),
      destination_city_id: crypto.randomUUID(),
      departure_date: futureDay(2),
      passengers: 1,
    };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await search(app, body)).status);
    expect(statuses).toEqual([404, 404, 404]);
    const limited = await search(app, body);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, errorCode: 'RATE_LIMITED' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Invalid requests count too, and are refused before they are read.
    expect((await search(app, { nonsense: true })).status).toBe(429);
  });
});
