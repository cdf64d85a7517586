/**
 * npm run bench:schedules — a 180-day trip schedule of 6 departures a day on a route of 6 stops
 * (1,080 trips, 6,480 stop calls), committed through the real API (its own process, production
 * configuration) and the trip-schedule workflow on a real worker, and in the same run the same
 * trips and stop calls inserted as one bare SQL batch (db/writes/catalogue.ts insertTrips, the
 * statements the batches run, in one transaction, no checks). Then the preview of the same
 * schedule (commit: false) BENCH_PREVIEWS times, one after the other.
 *
 * Prints trips/s and total time of both, their ratio and the preview latency. Targets: the commit
 * under 10 s, at least 0.3× the bare insert rate, preview p99 under 300 ms. BENCH_SCALE shrinks
 * the number of days (BENCH_SCALE=0.1: 18 days, 108 trips) for a quick run; the benchmark
 * database is dropped and rebuilt at every run.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/orm.js';
import { insertTrips, saveBusLayout } from '../db/writes/catalogue.js';
import { BUS_TEMPLATES, coachLayout } from '../domain/layout-templates.js';
import { tripStopCalls, type RouteStopPlan } from '../domain/route-plan.js';
import { damascusDate } from '../domain/time.js';
import { expandTimetable } from '../domain/trip-schedules.js';
import { benchOwnerSession } from './lib/company.js';
import { percentile } from './lib/load.js';
import { runOnBenchStack, type BenchStack } from './lib/stack.js';
import { figure, recordFigures } from './lib/results.js';
import { benchSetting, log } from './lib/settings.js';

const DATABASE = 'busbooking_bench_schedules';
const SCALE = benchSetting('BENCH_SCALE', 1);
const DAYS = Math.max(1, Math.round(180 * SCALE));
const DEPARTURES = ['06:00', '09:00', '12:00', '15:00', '18:00', '21:00'];
const STOPS = 6;
const PREVIEWS = benchSetting('BENCH_PREVIEWS', 50);

interface World {
  companyId: string;
  routeId: string;
  stops: RouteStopPlan[];
  /** Two coaches: one for the API, one for the bare insert. */
  busIds: [string, string];
  headers: Record<string, string>;
}

/** A company with an OWNER session, a route of six stops in six cities, two coaches. */
async function createWorld(db: Database): Promise<World> {
  const tag = randomUUID().slice(0, 6);
  const [company] = await db.query<{ id: string }>(
    `insert into companies (name_ar, name_en, slug, status, verified, published)
     values ('جداول', 'Schedule Lines', $1, 'ACTIVE', true, true) returning id`,
    [`schedule-lines-${tag}`],
  );
  const companyId = company!.id;
  const stops: RouteStopPlan[] = [];
  for (let index = 0; index < STOPS; index++) {
    const [city] = await db.query<{ id: string }>(
      `insert into cities (name_ar, name_en, latitude, longitude) values ($1, $2, $3, 36.3) returning id`,
      [`مدينة ${tag} ${index}`, `City ${tag} ${index}`, 33 + index * 0.4],
    );
    const [stop] = await db.query<{ id: string }>(
      `insert into stops (city_id, kind, name_ar, name_en, latitude, longitude)
       values ($1, 'BUS_STATION', 'موقف', 'Station', $2, 36.3) returning id`,
      [city!.id, 33 + index * 0.4],
    );
    const last = index === STOPS - 1;
    stops.push({
      stopId: stop!.id,
      cityId: city!.id,
      runningMinutes: index === 0 ? 0 : 30,
      dwellMinutes: index === 0 || last ? 0 : 5,
      fareShareBp: Math.round((10_000 * index) / (STOPS - 1)),
    });
  }
  const [route] = await db.query<{ id: string }>(
    `insert into routes (company_id, origin_city_id, destination_city_id, name_ar, name_en)
     values ($1, $2, $3, 'خط', 'Six stops') returning id`,
    [companyId, stops[0]!.cityId, stops[STOPS - 1]!.cityId],
  );
  for (const [sequence, stop] of stops.entries()) {
    await db.query(
      `insert into route_stops (route_id, sequence, stop_id, city_id, running_minutes, dwell_minutes, fare_share_bp)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [
        route!.id,
        sequence,
        stop.stopId,
        stop.cityId,
        stop.runningMinutes,
        stop.dwellMinutes,
        stop.fareShareBp,
      ],
    );
  }
  const busIds = await db.transaction(async (client) => {
    const ids: string[] = [];
    for (const plate of ['SCH-1', 'SCH-2']) {
      const { rows } = await client.query<{ id: string }>(
        `insert into buses (company_id, plate_number) values ($1, $2) returning id`,
        [companyId, plate],
      );
      await saveBusLayout(client, {
        busId: rows[0]!.id,
        document: coachLayout(BUS_TEMPLATES.standard.options),
        saveMode: 'active',
      });
      ids.push(rows[0]!.id);
    }
    return ids;
  });
  return {
    companyId,
    routeId: route!.id,
    stops,
    busIds: [busIds[0]!, busIds[1]!],
    headers: await ownerHeaders(db, companyId),
  };
}

async function ownerHeaders(db: Database, companyId: string): Promise<Record<string, string>> {
  const session = await benchOwnerSession(db, companyId);
  return {
    'content-type': 'application/json',
    cookie: `bb_staff=${session.token}; bb_staff_csrf=${session.csrfToken}`,
    'x-csrf-token': session.csrfToken,
  };
}

const firstDate = () => damascusDate(new Date(Date.now() + 2 * 86_400_000));
const lastDate = () => damascusDate(new Date(Date.now() + (1 + DAYS) * 86_400_000));

const scheduleBody = (world: World, commit: boolean) => ({
  route_id: world.routeId,
  pickup_stop_id: world.stops[0]!.stopId,
  bus_id: world.busIds[0],
  start_date: firstDate(),
  end_date: lastDate(),
  departure_time: DEPARTURES,
  days_of_week: [0, 1, 2, 3, 4, 5, 6],
  price_base: 30_000,
  commit,
});

/** What the bench reads of a schedule answer (201, 202 or GET). */
interface ScheduleAnswer {
  data: { id: string; status: string; progress: { trips_created: number } };
}

async function post(stack: BenchStack, world: World, path: string, body?: unknown) {
  const response = await fetch(`${stack.apiUrl}/dashboard/api${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: world.headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ScheduleAnswer };
}

/** POST commit: true, then (after a 202) the progress until the schedule completes. */
async function commitThroughApi(stack: BenchStack, world: World) {
  const started = performance.now();
  const answer = await post(stack, world, '/trip-schedules', scheduleBody(world, true));
  if (answer.status !== 201 && answer.status !== 202)
    throw new Error(`commit → ${answer.status} ${JSON.stringify(answer.body)}`);
  let schedule = answer.body.data;
  while (schedule.status === 'COMMITTING') {
    await new Promise((resolve) => setTimeout(resolve, 25));
    schedule = (await post(stack, world, `/trip-schedules/${schedule.id}`)).body.data;
  }
  const seconds = (performance.now() - started) / 1000;
  if (schedule.status !== 'COMPLETED') throw new Error(`the schedule ended ${schedule.status}`);
  return { seconds, trips: schedule.progress.trips_created, answeredWith: answer.status };
}

/** The same trips and stop calls, on the second coach, as one bare SQL batch in one transaction. */
async function insertBare(db: Database, world: World) {
  const departures = expandTimetable({
    startDate: firstDate(),
    endDate: lastDate(),
    departureTimes: DEPARTURES,
    daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
    durationMinutes: 170,
    notBefore: Date.now(),
  });
  const trips = departures.map((departure) => ({
    id: randomUUID(),
    companyId: world.companyId,
    routeId: world.routeId,
    busId: world.busIds[1],
    pickupStopId: world.stops[0]!.stopId,
    priceBase: 30_000,
    calls: tripStopCalls(world.stops, departure.departureAt, 170),
  }));
  const started = performance.now();
  const inserted = await db.transaction((client) => insertTrips(client, trips));
  return {
    seconds: (performance.now() - started) / 1000,
    trips: inserted.trips,
    stopCalls: inserted.stopCalls,
  };
}

async function previews(stack: BenchStack, world: World) {
  const latencies: number[] = [];
  for (let index = 0; index < PREVIEWS; index++) {
    const started = performance.now();
    const answer = await post(stack, world, '/trip-schedules', scheduleBody(world, false));
    if (answer.status !== 200) throw new Error(`preview → ${answer.status}`);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * One small schedule far ahead on the second coach, repeated until the worker (which bundles the
 * workflow code as it starts) answers: the timed commit must not wait for it.
 */
async function warmUp(stack: BenchStack, world: World) {
  const day = damascusDate(new Date(Date.now() + (DAYS + 30) * 86_400_000));
  const until = Date.now() + 180_000;
  for (;;) {
    const answer = await post(stack, world, '/trip-schedules', {
      ...scheduleBody(world, true),
      bus_id: world.busIds[1],
      start_date: day,
      end_date: day,
    });
    if (answer.status === 201 || answer.status === 202) return;
    if (Date.now() > until) throw new Error(`warm-up → ${answer.status} ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function measure(stack: BenchStack, world: World) {
  log('warming up: the worker starts and answers a small schedule');
  await warmUp(stack, world);
  log(`preview: ${PREVIEWS} previews of ${DAYS} days × ${DEPARTURES.length} departures`);
  const preview = await previews(stack, world);
  log('commit through the API and the workflow');
  const api = await commitThroughApi(stack, world);
  log('the same inserts as one bare SQL batch');
  const bare = await insertBare(stack.db, world);
  const apiRate = api.trips / api.seconds;
  const bareRate = bare.trips / bare.seconds;
  console.table([
    {
      path: `API + workflow (answered ${api.answeredWith})`,
      trips: api.trips,
      'total s': Number(api.seconds.toFixed(2)),
      'trips/s': Math.round(apiRate),
    },
    {
      path: 'bare SQL batch',
      trips: bare.trips,
      'total s': Number(bare.seconds.toFixed(2)),
      'trips/s': Math.round(bareRate),
    },
  ]);
  log(
    `stop calls per run: ${bare.stopCalls}; preview p50 ${preview.p50.toFixed(1)} ms, p99 ${preview.p99.toFixed(1)} ms`,
  );
  log(
    `targets: commit < 10 s: ${api.seconds.toFixed(2)} s; API/bare rate ≥ 0.3: ${(apiRate / bareRate).toFixed(2)}; ` +
      `preview p99 < 300 ms: ${preview.p99.toFixed(1)} ms`,
  );
  recordFigures('schedules', [
    figure('schedules commit through API', api.seconds, 's', { op: '<', value: 10 }),
    figure('schedules commit rate', apiRate, 'trips/s'),
    figure('schedules bare batch (baseline)', bareRate, 'trips/s'),
    figure('schedules API / bare rate', apiRate / bareRate, '×', { op: '>=', value: 0.3 }),
    figure('schedules preview p99', preview.p99, 'ms', { op: '<', value: 300 }),
  ]);
}

async function main() {
  await runOnBenchStack(
    { database: DATABASE, fresh: true, withWorker: true, env: { LOG_LEVEL: 'warn' }, prepare: createWorld },
    measure,
  );
}

await main();
process.exit(0);
