import { describe, expect, it } from 'vitest';
import type { Database } from '../../../db/orm.js';
import { insertTrip } from '../../../db/writes/catalogue.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createRoute,
  createStop,
  futureDay,
} from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';

/**
 * Differential test: small random catalogues (a fixed seed, so every run builds the same ones), and
 * what a traveller sees of them compared with a reference computed here from the same rows, following
 * README "Search and catalogue": POST /journeys/search (direct journeys, else connections; seats for
 * the party, fares, change rules, order, one journey per sequence of trips), each offered journey's
 * quote (its price, a VIP seat, a chosen seat, one traveller too many) and seat map, and GET /trips.
 *
 * Knobs (environment): SEARCH_DIFFERENTIAL_SEED (385), SEARCH_DIFFERENTIAL_WORLDS (40 catalogues),
 * SEARCH_DIFFERENTIAL_STOPS (at most 2 stops a city), SEARCH_DIFFERENTIAL_TRIPS (at most 10 trips),
 * SEARCH_DIFFERENTIAL_CALLS (at most 5 calls a trip); SEARCH_DIFFERENTIAL_DUMP=1 prints the first
 * catalogue that disagrees, with its mismatches, and stops there.
 */
const knob = (name: string, fallback: number) =>
  Number(process.env[`SEARCH_DIFFERENTIAL_${name}`] ?? fallback);
const KNOBS = {
  seed: knob('SEED', 385),
  worlds: knob('WORLDS', 40),
  stops: knob('STOPS', 2),
  trips: knob('TRIPS', 10),
  calls: knob('CALLS', 5),
  dump: Boolean(process.env.SEARCH_DIFFERENTIAL_DUMP),
};

// ---------- seeded random (mulberry32) ----------
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
type Rng = () => number;
const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;

// ---------- world model ----------
interface StopM {
  id: string;
  cityId: string;
  public: boolean;
}
interface CallM {
  id: string;
  seq: number;
  stop: StopM;
  arrivalMs: number;
  departureMs: number;
  bp: number;
}
interface AllocM {
  seat: string;
  b: number;
  a: number;
  live: boolean;
}
interface TripM {
  id: string;
  companyId: string;
  inScope: boolean;
  status: string;
  delay: number;
  priceBase: number;
  priceVip: number | null;
  vipOffered: boolean;
  seatsTotal: number;
  calls: CallM[];
  allocs: AllocM[];
}
interface World {
  date: string;
  cities: string[];
  stops: StopM[];
  trips: TripM[];
}

const MIN = 60_000;
// The fare up to each call rounded half up, a leg the difference (README, domain legFare).
const fareUpToRef = (full: number, bp: number) => Math.round((full * bp) / 10_000);
const legFareRef = (full: number, b: number, a: number) => fareUpToRef(full, a) - fareUpToRef(full, b);
const bookable = (t: TripM) => ['SCHEDULED', 'BOARDING', 'DELAYED'].includes(t.status);
function freeSeats(t: TripM, b: number, a: number) {
  const taken = new Set(t.allocs.filter((x) => x.live && x.b < a && x.a > b).map((x) => x.seat));
  return t.seatsTotal - taken.size;
}

async function buildWorld(db: Database, r: Rng, date: string): Promise<World> {
  const cities: string[] = [];
  const stops: StopM[] = [];
  for (let c = 0; c < 4; c++) {
    const city = await createCity(db);
    cities.push(city.id);
    const n = int(r, 1, KNOBS.stops);
    for (let s = 0; s < n; s++) {
      const hidden = r() < 0.12;
      const kind =
        hidden && r() < 0.5 ? 'DEPOT' : pick(r, ['BUS_STATION', 'PARKING_POINT', 'AIRPORT'] as const);
      const enabled = !(hidden && kind !== 'DEPOT');
      const stop = await createStop(db, city.id, { kind, enabled });
      stops.push({ id: stop.id, cityId: city.id, public: !hidden });
    }
  }
  const inScopeCo = await createCompany(db);
  const outCo = await createCompany(db, { published: false });
  const companies = [
    { id: inScopeCo.id, inScope: true },
    { id: inScopeCo.id, inScope: true },
    { id: outCo.id, inScope: false },
  ];
  const buses = new Map<string, { id: string; seats: string[]; vip: boolean; total: number }[]>();
  for (const co of [inScopeCo.id, outCo.id]) {
    const list = [];
    for (const vip of [true, false]) {
      const rows = int(r, 2, 3);
      const bus = await createBus(db, co, { rows, pattern: '2+2', ...(vip ? { vipRows: [rows - 1] } : {}) });
      const seats = await db.query<{ seat_id: string }>(
        `select seat_id from layout_seats where layout_id = $1 order by seat_id`,
        [bus.layoutId],
      );
      list.push({ id: bus.id, seats: seats.map((s) => s.seat_id), vip, total: bus.seatCount });
    }
    buses.set(co, list);
  }
  const dayStart = atDamascus(date, '00:00').getTime();
  const trips: TripM[] = [];
  const nTrips = int(r, 6, KNOBS.trips);
  for (let i = 0; i < nTrips; i++) {
    const co = pick(r, companies);
    const bus = pick(r, buses.get(co.id)!);
    const nCalls = int(r, 2, KNOBS.calls);
    // distinct stops, random order
    const pool = [...stops].sort(() => r() - 0.5);
    const chosen = pool.slice(0, Math.min(nCalls, pool.length));
    if (chosen.length < 2) continue;
    // start between 20:00 the day before and 02:00 the day after (Damascus)
    let t = dayStart + int(r, -4 * 60, 26 * 60) * MIN;
    const nowAtBuild = Date.now();
    const bps: number[] = [0];
    for (let k = 1; k < chosen.length; k++) {
      const prev = bps[k - 1]!;
      bps.push(r() < 0.1 ? prev : Math.min(10_000, prev + int(r, 1, Math.floor(10_000 / chosen.length) * 2)));
    }
    bps[bps.length - 1] = Math.max(bps[bps.length - 1]!, r() < 0.9 ? 10_000 : bps[bps.length - 1]!);
    const callsIn = chosen.map((stop, k) => {
      const arrival = t;
      const dwell = k === 0 || k === chosen.length - 1 ? 0 : int(r, 0, 15);
      let departure = arrival + dwell * MIN;
      t = departure + int(r, 15, 200) * MIN;
      // keep calls away from the moment of the searches (today's worlds), so the reference's clock cannot race the server's
      if (departure > nowAtBuild - 2 * MIN && departure < nowAtBuild + 8 * MIN) {
        departure = nowAtBuild + 8 * MIN + (departure - arrival);
        t = departure + int(r, 15, 200) * MIN;
        return { stop, arrivalMs: departure - dwell * MIN, departureMs: departure, bp: bps[k]! };
      }
      return { stop, arrivalMs: arrival, departureMs: departure, bp: bps[k]! };
    });
    const status = pick(r, [
      'SCHEDULED',
      'SCHEDULED',
      'SCHEDULED',
      'DELAYED',
      'BOARDING',
      'CANCELLED',
    ] as const);
    const delay = status === 'DELAYED' ? int(r, 5, 150) : 0;
    const priceBase = int(r, 1, 400) * 25 + (r() < 0.5 ? int(r, 0, 24) : 0);
    const priceVip = r() < 0.3 ? null : priceBase + int(r, 1, 100) * 10 + 5;
    const routeEnd =
      chosen[chosen.length - 1]!.cityId !== chosen[0]!.cityId
        ? chosen[chosen.length - 1]!.cityId
        : cities.find((c) => c !== chosen[0]!.cityId)!;
    const route = await createRoute(db, co.id, chosen[0]!.cityId, routeEnd);
    const { tripId, stopCallIds } = await db.transaction((client) =>
      insertTrip(client, {
        companyId: co.id,
        routeId: route.id,
        busId: bus.id,
        pickupStopId: chosen[0]!.id,
        priceBase,
        priceVip,
        status,
        calls: callsIn.map((c) => ({
          stopId: c.stop.id,
          cityId: c.stop.cityId,
          arrivalAt: new Date(c.arrivalMs),
          departureAt: new Date(c.departureMs),
          fareShareBp: c.bp,
        })),
      }),
    );
    if (delay) await db.query(`update trips set delay_minutes = $2 where id = $1`, [tripId, delay]);
    const calls: CallM[] = callsIn.map((c, k) => ({ ...c, id: stopCallIds[k]!, seq: k }));
    const allocs: AllocM[] = [];
    const nAlloc = int(r, 0, bus.seats.length + 2);
    for (let k = 0; k < nAlloc; k++) {
      const seat = pick(r, bus.seats);
      const b = int(r, 0, calls.length - 2);
      const a = int(r, b + 1, calls.length - 1);
      if (allocs.some((x) => x.seat === seat && x.b < a && x.a > b)) continue;
      const kind = pick(r, ['CONFIRMED', 'HELD_LIVE', 'HELD_EXPIRED', 'RELEASED'] as const);
      const status2 = kind === 'HELD_LIVE' || kind === 'HELD_EXPIRED' ? 'HELD' : kind;
      const expires =
        kind === 'HELD_LIVE'
          ? new Date(Date.now() + 3_600_000)
          : kind === 'HELD_EXPIRED'
            ? new Date(Date.now() - 60_000)
            : null;
      await db.query(
        `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, expires_at, owner_kind)
         values ($1, $2, $3, $4, $5, $6, 'JOURNEY')`,
        [tripId, seat, b, a, status2, expires],
      );
      // RELEASED and expired holds block nothing; keep them out of the overlap bookkeeping
      if (kind === 'CONFIRMED' || kind === 'HELD_LIVE') allocs.push({ seat, b, a, live: true });
      else if (kind === 'HELD_EXPIRED') allocs.push({ seat, b, a, live: false });
    }
    trips.push({
      id: tripId,
      companyId: co.id,
      inScope: co.inScope,
      status,
      delay,
      priceBase,
      priceVip,
      vipOffered: priceVip !== null && bus.vip,
      seatsTotal: bus.total,
      calls,
      allocs,
    });
  }
  return { date, cities, stops, trips };
}

// ---------- reference ----------
interface Place {
  kind: 'city' | 'stop';
  id: string;
}
interface RefLeg {
  trip: TripM;
  board: CallM;
  alight: CallM;
}
interface RefJourney {
  key: string;
  departureMs: number;
  arrivalMs: number;
  price: number;
  free: number;
  legs: RefLeg[];
  transfer: { kind: string; wait: number } | null;
}
const TRANSFER = { sameStop: 20, sameCity: 60, maxWait: 360 };

const covers = (place: Place, stop: StopM) =>
  stop.public && (place.kind === 'city' ? stop.cityId === place.id : stop.id === place.id);
const keyOf = (legs: RefLeg[]) => legs.map((l) => `${l.trip.id}:${l.board.id}:${l.alight.id}`).join('+');
function cmp(a: RefJourney, b: RefJourney) {
  return (
    a.departureMs - b.departureMs ||
    a.arrivalMs - a.departureMs - (b.arrivalMs - b.departureMs) ||
    a.price - b.price ||
    (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
  );
}
function legsOf(
  t: TripM,
  fromMs: number,
  toMs: number,
  passengers: number,
  fromCheck: (c: CallM) => boolean,
  toCheck: (c: CallM) => boolean,
) {
  const out: RefLeg[] = [];
  for (const b of t.calls) {
    if (!fromCheck(b)) continue;
    if (b.departureMs < fromMs || b.departureMs >= toMs) continue;
    for (const a of t.calls) {
      if (a.seq <= b.seq || !toCheck(a) || a.bp <= b.bp) continue;
      if (freeSeats(t, b.seq, a.seq) < passengers) continue;
      out.push({ trip: t, board: b, alight: a });
    }
  }
  return out;
}
const cityOfPlace = (w: World, p: Place) =>
  p.kind === 'city' ? p.id : w.stops.find((s) => s.id === p.id)!.cityId;

function reference(w: World, from: Place, to: Place, passengers: number, nowMs: number): RefJourney[] {
  const dayStart = atDamascus(w.date, '00:00').getTime();
  const fromMs = Math.max(dayStart, nowMs);
  const toMs = dayStart + 24 * 60 * MIN;
  const trips = w.trips.filter((t) => t.inScope && bookable(t));
  const best = new Map<string, RefJourney>();
  const offer = (j: RefJourney) => {
    const k = j.legs.map((l) => l.trip.id).join('+');
    const cur = best.get(k);
    if (!cur || cmp(j, cur) < 0) best.set(k, j);
  };
  for (const t of trips) {
    for (const leg of legsOf(
      t,
      fromMs,
      toMs,
      passengers,
      (c) => covers(from, c.stop),
      (c) => covers(to, c.stop),
    )) {
      offer({
        key: keyOf([leg]),
        departureMs: leg.board.departureMs,
        arrivalMs: leg.alight.arrivalMs,
        price: legFareRef(t.priceBase, leg.board.bp, leg.alight.bp),
        free: freeSeats(t, leg.board.seq, leg.alight.seq),
        legs: [leg],
        transfer: null,
      });
    }
  }
  if (best.size === 0) {
    const ends = [cityOfPlace(w, from), cityOfPlace(w, to)];
    for (const t1 of trips) {
      const firsts = legsOf(
        t1,
        fromMs,
        toMs,
        passengers,
        (c) => covers(from, c.stop),
        (c) => c.stop.public && !ends.includes(c.stop.cityId),
      );
      for (const l1 of firsts) {
        const expected = l1.alight.arrivalMs + t1.delay * MIN;
        for (const t2 of trips) {
          if (t2.id === t1.id) continue;
          const seconds = legsOf(
            t2,
            -Infinity,
            Infinity,
            passengers,
            (c) => c.stop.public && c.stop.cityId === l1.alight.stop.cityId,
            (c) => covers(to, c.stop),
          );
          for (const l2 of seconds) {
            const same = l2.board.stop.id === l1.alight.stop.id;
            const wait = l2.board.departureMs - expected;
            if (wait < (same ? TRANSFER.sameStop : TRANSFER.sameCity) * MIN || wait > TRANSFER.maxWait * MIN)
              continue;
            offer({
              key: keyOf([l1, l2]),
              departureMs: l1.board.departureMs,
              arrivalMs: l2.alight.arrivalMs,
              price:
                legFareRef(t1.priceBase, l1.board.bp, l1.alight.bp) +
                legFareRef(t2.priceBase, l2.board.bp, l2.alight.bp),
              free: Math.min(
                freeSeats(t1, l1.board.seq, l1.alight.seq),
                freeSeats(t2, l2.board.seq, l2.alight.seq),
              ),
              legs: [l1, l2],
              transfer: { kind: same ? 'SAME_STOP' : 'SAME_CITY', wait: Math.round(wait / MIN) },
            });
          }
        }
      }
    }
  }
  return [...best.values()].sort(cmp).slice(0, 50);
}

function describeRef(j: RefJourney) {
  return {
    journey_key: j.key,
    departure_at: new Date(j.departureMs).toISOString(),
    arrival_at: new Date(j.arrivalMs).toISOString(),
    total_price: j.price,
    free_seats: j.free,
    transfers: j.legs.length - 1,
    legs: j.legs.map((l) => ({
      trip_id: l.trip.id,
      price: legFareRef(l.trip.priceBase, l.board.bp, l.alight.bp),
      price_vip: l.trip.vipOffered ? legFareRef(l.trip.priceVip!, l.board.bp, l.alight.bp) : null,
      free_seats: freeSeats(l.trip, l.board.seq, l.alight.seq),
    })),
    transfer: j.transfer ? { kind: j.transfer.kind, wait_minutes: j.transfer.wait } : null,
  };
}
function describeGot(j: any) {
  return {
    journey_key: j.journey_key,
    departure_at: j.departure_at,
    arrival_at: j.arrival_at,
    total_price: j.total_price,
    free_seats: j.free_seats,
    transfers: j.transfers,
    legs: j.legs.map((l: any) => ({
      trip_id: l.trip_id,
      price: l.price,
      price_vip: l.price_vip,
      free_seats: l.free_seats,
    })),
    transfer: j.transfer ? { kind: j.transfer.kind, wait_minutes: j.transfer.wait_minutes } : null,
  };
}

function tripsReference(w: World, fromCity: string, toCity: string, passengers: number, nowMs: number) {
  const dayStart = atDamascus(w.date, '00:00').getTime();
  const dayEnd = dayStart + 24 * 60 * MIN;
  const out = [];
  for (const t of w.trips) {
    if (!t.inScope || !bookable(t)) continue;
    const first = t.calls[0]!;
    const last = t.calls[t.calls.length - 1]!;
    if (first.stop.cityId !== fromCity || !first.stop.public) continue;
    if (first.departureMs < dayStart || first.departureMs >= dayEnd || first.departureMs <= nowMs) continue;
    const alight = t.calls.find(
      (c) => c.seq > 0 && c.stop.cityId === toCity && c.bp > first.bp && c.stop.public,
    );
    if (!alight || !last.stop.public || last.bp <= first.bp) continue;
    const free = freeSeats(t, 0, last.seq);
    if (free < passengers) continue;
    out.push({
      id: t.id,
      departure_time: new Date(first.departureMs).toISOString(),
      arrival_time: new Date(alight.arrivalMs).toISOString(),
      price: legFareRef(t.priceBase, first.bp, last.bp),
      price_vip: t.vipOffered ? legFareRef(t.priceVip!, first.bp, last.bp) : null,
      available_seats: free,
    });
  }
  return out.sort((a, b) =>
    a.departure_time < b.departure_time ? -1 : a.departure_time > b.departure_time ? 1 : a.id < b.id ? -1 : 1,
  );
}

const legsBodyOf = (journey: any) =>
  journey.legs.map((l: any) => ({
    trip_id: l.trip_id,
    board_stop_call_id: l.board.stop_call_id,
    alight_stop_call_id: l.alight.stop_call_id,
  }));

const quote = (app: TestApp, journey: any, partySize: number, resources: unknown[], key: string) =>
  app.request('/api/journeys/quote', {
    method: 'POST',
    json: { party_size: partySize, legs: legsBodyOf(journey), resources, idempotency_key: key },
  });

/**
 * What a traveller can do with an offered journey agrees with the search: the quote prices the
 * party at the search's total, each leg's seat map shows its free seats at its prices, a VIP seat on
 * every leg is priced at the VIP fares (or refused when none is free), a chosen seat is priced at its
 * class (or refused when taken), and one traveller more than the short leg's free seats is refused.
 */
async function checkJourney(app: TestApp, j: any, passengers: number, tag: string, mismatches: unknown[]) {
  let checks = 0;
  const q = await quote(
    app,
    j,
    passengers,
    j.legs.map((_: unknown, i: number) => ({
      leg_sequence: i + 1,
      resource_code: 'SEAT',
      quantity: passengers,
      assignments: [],
    })),
    `q-${tag}-${j.journey_key.slice(0, 8)}`,
  );
  checks++;
  if (q.status !== 200 || q.body.data.total_price !== j.total_price * passengers)
    mismatches.push({
      quoteOf: j.journey_key,
      passengers,
      status: q.status,
      total: q.body?.data?.total_price,
      text: q.status === 200 ? undefined : q.text,
      expected: j.total_price * passengers,
    });
  // the seat map of each leg's stretch: its free seats and prices agree with the search
  const maps: any[] = [];
  for (const l of j.legs) {
    const m = await app.request(
      `/api/trips/${l.trip_id}/seats?board_stop_call_id=${l.board.stop_call_id}&alight_stop_call_id=${l.alight.stop_call_id}`,
    );
    checks++;
    const seats = m.body?.data?.seats as any[] | undefined;
    maps.push(seats);
    if (m.status !== 200 || !seats) {
      mismatches.push({ seatMapOf: l.trip_id, status: m.status, text: m.text });
      continue;
    }
    const available = seats.filter((x) => x.available).length;
    const badPrice = seats.filter(
      (x) => x.price !== (x.seat_class === 'VIP' && l.price_vip !== null ? l.price_vip : l.price),
    );
    if (available !== l.free_seats || badPrice.length)
      mismatches.push({
        seatMapOf: l.trip_id,
        available,
        free: l.free_seats,
        badPrice: badPrice.slice(0, 2),
        leg: { price: l.price, price_vip: l.price_vip },
      });
  }
  // a VIP seat on every leg: the VIP fares, or INSUFFICIENT_SEATS where no VIP seat is free
  if (j.legs.every((l: any) => l.price_vip !== null) && maps.every(Boolean)) {
    const vq = await quote(
      app,
      j,
      1,
      j.legs.map((_: unknown, i: number) => ({
        leg_sequence: i + 1,
        resource_code: 'VIP_SEAT',
        quantity: 1,
        assignments: [],
      })),
      `q-vip-${tag}`,
    );
    checks++;
    const vipFree = maps.every((m) => m.some((x: any) => x.seat_class === 'VIP' && x.available));
    const want = j.legs.reduce((sum: number, l: any) => sum + l.price_vip, 0);
    if (
      vipFree
        ? vq.status !== 200 || vq.body.data.total_price !== want
        : vq.status !== 409 || vq.body.errorCode !== 'INSUFFICIENT_SEATS'
    )
      mismatches.push({ vipQuoteOf: j.journey_key, vipFree, want, status: vq.status, body: vq.body });
  }
  // a chosen seat: taken anywhere on the stretch is SEAT_OCCUPIED, free is priced at its class
  if (maps[0]) {
    for (const seat of [maps[0].find((x: any) => !x.available), maps[0].find((x: any) => x.available)]) {
      if (!seat) continue;
      const aq = await quote(
        app,
        j,
        1,
        j.legs.map((_: unknown, i: number) => ({
          leg_sequence: i + 1,
          resource_code: 'SEAT',
          quantity: 1,
          assignments: i === 0 ? [seat.seat_number] : [],
        })),
        `q-seat-${tag}-${seat.seat_number}`,
      );
      checks++;
      const want = seat.price + j.legs.slice(1).reduce((sum: number, l: any) => sum + l.price, 0);
      if (
        seat.available
          ? aq.status !== 200 || aq.body.data.total_price !== want
          : aq.status !== 409 || aq.body.errorCode !== 'SEAT_OCCUPIED'
      )
        mismatches.push({ seatQuoteOf: j.journey_key, seat, want, status: aq.status, body: aq.body });
    }
  }
  // one more traveller than the stretch has free seats: refused, naming the free seats of the short leg
  const minFree = Math.min(...j.legs.map((l: any) => l.free_seats));
  if (minFree + 1 <= 10 && minFree + 1 > passengers) {
    const over = await quote(
      app,
      j,
      minFree + 1,
      j.legs.map((_: unknown, i: number) => ({
        leg_sequence: i + 1,
        resource_code: 'SEAT',
        quantity: minFree + 1,
        assignments: [],
      })),
      `q-over-${tag}`,
    );
    checks++;
    if (
      over.status !== 409 ||
      over.body.errorCode !== 'INSUFFICIENT_SEATS' ||
      over.body.details?.free_seats !== minFree
    )
      mismatches.push({ overQuoteOf: j.journey_key, minFree, status: over.status, body: over.body });
  }
  return checks;
}

describe('journey search, quotes, seat maps and GET /trips agree with a reference over random catalogues', () => {
  const app = useTestApp({
    SEARCH_RATE_LIMIT_PER_MINUTE: 0,
    SEARCH_CACHE_SECONDS: 0,
    TRANSFER_MIN_SAME_STOP_MINUTES: TRANSFER.sameStop,
    TRANSFER_MIN_SAME_CITY_MINUTES: TRANSFER.sameCity,
    TRANSFER_MAX_WAIT_MINUTES: TRANSFER.maxWait,
  });

  /** Searches between two stops or cities of world `wi`: the answer is the reference's, and each of its first two journeys checks out. */
  async function checkSearch(
    wi: number,
    w: World,
    from: Place,
    to: Place,
    passengers: number,
    mismatches: unknown[],
  ) {
    const body = {
      [`origin_${from.kind}_id`]: from.id,
      [`destination_${to.kind}_id`]: to.id,
      departure_date: w.date,
      passengers,
    };
    const now = Date.now();
    const res = await app.request('/api/journeys/search', { method: 'POST', json: body });
    let checks = 1;
    if (res.status !== 200) {
      mismatches.push({ world: wi, body, status: res.status, text: res.text });
      return checks;
    }
    const got = (res.body.data.journeys as any[]).map(describeGot);
    const want = reference(w, from, to, passengers, now).map(describeRef);
    if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push({ world: wi, body, got, want });
    for (const [k, j] of (res.body.data.journeys as any[]).slice(0, 2).entries()) {
      const found: unknown[] = [];
      checks += await checkJourney(
        app,
        j,
        passengers,
        `${wi}-${from.id.slice(0, 8)}-${to.id.slice(0, 8)}-${passengers}-${k}`,
        found,
      );
      mismatches.push(...found.map((m) => ({ world: wi, ...(m as object) })));
    }
    return checks;
  }

  /** GET /trips between two cities of world `wi` lists the reference's trips. */
  async function checkTrips(
    wi: number,
    w: World,
    fromCity: string,
    toCity: string,
    passengers: number,
    mismatches: unknown[],
  ) {
    const now = Date.now();
    const res = await app.request(
      `/api/trips?from=${fromCity}&to=${toCity}&date=${w.date}&passengers=${passengers}`,
    );
    if (res.status !== 200) {
      mismatches.push({ world: wi, trips: true, status: res.status, text: res.text });
      return;
    }
    const got = (res.body.data as any[]).map((t) => ({
      id: t.id,
      departure_time: t.departure_time,
      arrival_time: t.arrival_time,
      price: t.price,
      price_vip: t.price_vip,
      available_seats: t.available_seats,
    }));
    const want = tripsReference(w, fromCity, toCity, passengers, now);
    if (JSON.stringify(got) !== JSON.stringify(want))
      mismatches.push({ world: wi, trips: { fromCity, toCity, date: w.date, passengers }, got, want });
  }

  it(
    'answers every search between the cities and stops of each catalogue as the reference does',
    { timeout: 600_000 },
    async () => {
      const r = mulberry32(KNOBS.seed);
      const mismatches: unknown[] = [];
      let checks = 0;
      for (let wi = 0; wi < KNOBS.worlds; wi++) {
        const date = wi % 3 === 0 ? futureDay(0) : futureDay(int(r, 1, 3));
        const w = await buildWorld(app.db, r, date);
        for (const fromCity of w.cities) {
          for (const toCity of w.cities) {
            if (fromCity === toCity) continue;
            const passengers = pick(r, [1, 1, 2, 4, 7]);
            const places: [Place, Place][] = [
              [
                { kind: 'city', id: fromCity },
                { kind: 'city', id: toCity },
              ],
            ];
            const fromStops = w.stops.filter((s) => s.cityId === fromCity && s.public);
            const toStops = w.stops.filter((s) => s.cityId === toCity && s.public);
            if (fromStops.length && toStops.length && r() < 0.5)
              places.push([
                { kind: 'stop', id: pick(r, fromStops).id },
                { kind: r() < 0.5 ? 'city' : 'stop', id: r() < 0.5 ? toCity : pick(r, toStops).id },
              ]);
            for (const [from, to] of places) {
              if (to.kind === 'city' && to.id !== toCity) continue;
              if (to.kind === 'stop' && !toStops.some((s) => s.id === to.id)) continue;
              checks += await checkSearch(wi, w, from, to, passengers, mismatches);
            }
            await checkTrips(wi, w, fromCity, toCity, passengers, mismatches);
            checks++;
          }
        }
        if (KNOBS.dump && mismatches.length) {
          console.log(JSON.stringify({ world: w, mismatches }, null, 1));
          break;
        }
      }
      expect(checks).toBeGreaterThan(KNOBS.worlds * 12);
      expect(mismatches.slice(0, 5)).toEqual([]);
    },
  );
});
