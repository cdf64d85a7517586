/**
 * npm run bench:insight — a company with 500,000 bookings over the last year (BENCH_SCALE scales
 * the bookings; 2 routes, a trip per route and day) against the real API in its own process:
 *   1. GET /dashboard/api/analytics (daily, weekly, monthly in turn) and /analytics/advanced
 *      (days 7..30 in turn), one client at a time for BENCH_SECONDS each: p50, p99. Baseline in
 *      the same run: the daily series, monthly series and route performance counted straight from
 *      the bookings (no statistics roll-up), the work the endpoint would do without one.
 *   2. GET /dashboard/api/reports?type=bookings&format=csv over the last 37 days (a tenth of the
 *      year: 50,000 rows at full scale): time to the last byte, rows, and the API process's resident
 *      memory before and at its peak during the download (sampled from /proc every 10 ms).
 *      Baseline: the same report SQL read whole into this process (what a non-streaming export
 *      holds), its time and this process's heap growth.
 * Targets (full scale): analytics p99 < 300 ms, advanced p99 < 1 s; the CSV's memory independent of
 * its length. The statistics are folded first, as the analytics-rollup schedule does.
 * Settings: BENCH_SCALE (default 1), BENCH_SECONDS (default 10).
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Database } from '../db/orm.js';
import { foldBookingStats, recountTravelFrequency } from '../db/writes/analytics-rollup.js';
import { addDays } from '../domain/analytics.js';
import { damascusDate, damascusDayStart } from '../domain/time.js';
import {
  atDamascus,
  createBus,
  createCity,
  createCompany,
  createRoute,
  createStop,
  createTrip,
} from '../test/support/factories.js';
import { runLoops, type LoadResult } from './lib/load.js';
import { startBenchStack } from './lib/stack.js';
import { benchOwnerSession } from './lib/company.js';
import { figure, recordFigures } from './lib/results.js';
import { benchSetting, log } from './lib/settings.js';

const DATABASE = 'busbooking_bench_insight';
const SCALE = benchSetting('BENCH_SCALE', 1);
const SECONDS = benchSetting('BENCH_SECONDS', 10);
const BOOKINGS = Math.round(500_000 * SCALE);
const DAYS = 365;
const CSV_DAYS = 37;
const today = damascusDate(new Date());

/** The company, its two routes with a trip per day of the last year, travellers, and the bookings. */
async function createWorld(db: Database): Promise<string> {
  const companyId = (await createCompany(db, { name: 'Insight Lines' })).id;
  const tripIds: string[] = [];
  for (const route of [0, 1]) {
    const from = await createStop(db, (await createCity(db)).id);
    const to = await createStop(db, (await createCity(db)).id);
    const bus = await createBus(db, companyId, { rows: 10, pattern: '2+2' });
    const routeId = (await createRoute(db, companyId, from.cityId, to.cityId)).id;
    for (let day = 0; day < DAYS; day += 1) {
      const trip = await createTrip(db, {
        companyId,
        busId: bus.id,
        routeId,
        departAt: atDamascus(addDays(today, -day), route ? '14:00' : '08:00'),
        calls: [
          { stop: from, at: 0 },
          { stop: to, at: 180 },
        ],
        status: day === 0 ? 'SCHEDULED' : 'COMPLETED',
      });
      tripIds.push(trip.id);
    }
  }
  const passengers = await db.query<{ id: string }>(
    `insert into passengers (phone, name)
     select '+9639' || lpad(n::text, 8, '0'), 'Traveller ' || n from generate_series(1, 5000) n returning id`,
  );
  log(`${tripIds.length} trips, ${passengers.length} travellers; inserting ${BOOKINGS} bookings...`);
  const started = performance.now();
  // Spread evenly over the year by creation time; 10% cancelled, 5% no-shows, 3% pending.
  await db.query(
    `insert into bookings (booking_code, company_id, trip_id, passenger_id, passenger_name, passenger_phone, seats_count,
                           seat_numbers, status, payment_status, total_price, discount, created_at)
     select 'BI' || lpad(n::text, 8, '0'), $1, ($2::uuid[])[1 + n % array_length($2::uuid[], 1)],
            ($3::uuid[])[1 + n % array_length($3::uuid[], 1)], 'Traveller ' || (n % 5000), '+963944000000',
            1 + n % 3, array[(1 + n % 40)::text],
            case when n % 100 < 10 then 'CANCELLED' when n % 100 < 15 then 'NO_SHOW' when n % 100 < 18 then 'PENDING_CONFIRMATION'
                 else 'COMPLETED' end,
            case when n % 2 = 0 then 'PAID' else 'UNPAID' end, 10000 * (1 + n % 3), case when n % 7 = 0 then 1000 else 0 end,
            $4::timestamptz - (n::float8 / $5 * interval '${DAYS} days')
       from generate_series(1, $5) n`,
    [companyId, tripIds, passengers.map((row) => row.id), damascusDayStart(addDays(today, 1)), BOOKINGS],
  );
  log(
    `bookings inserted in ${((performance.now() - started) / 1000).toFixed(1)} s; folding the statistics...`,
  );
  await foldBookingStats(db, [companyId]);
  await recountTravelFrequency(db, [companyId], today);
  await db.query('analyze');
  return companyId;
}

/** The analytics endpoint's figures counted straight from bookings: daily and monthly series, route performance. */
function baselineAnalytics(db: Database, companyId: string): () => Promise<unknown> {
  const sold = `b.status in ('CONFIRMED', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW')`;
  return () =>
    Promise.all([
      db.query(
        `select (b.created_at at time zone 'Asia/Damascus')::date as day, count(*), count(*) filter (where ${sold}),
                sum(b.total_price) filter (where ${sold})
           from bookings b where b.company_id = $1 and b.created_at >= $2 group by 1`,
        [companyId, damascusDayStart(addDays(today, -30))],
      ),
      db.query(
        `select date_trunc('month', b.created_at at time zone 'Asia/Damascus') as month, count(*),
                sum(b.total_price) filter (where ${sold})
           from bookings b where b.company_id = $1 and b.created_at >= $2 group by 1`,
        [companyId, damascusDayStart(addDays(today, -DAYS))],
      ),
      db.query(
        `select t.route_id, count(*), sum(b.seats_count) filter (where ${sold}), sum(b.total_price) filter (where ${sold})
           from bookings b join trips t on t.id = b.trip_id
          where b.company_id = $1 and t.operating_date between $2::date and $3::date group by 1`,
        [companyId, addDays(today, -30), today],
      ),
    ]);
}

function report(result: LoadResult): void {
  log(
    `${result.label}: ${result.requests} requests, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ` +
      `errors ${result.errors}`,
  );
}

const residentKb = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

/** Downloads the CSV while sampling the API's resident memory. */
async function csvDownload(url: string, cookie: string, apiPid: number) {
  const before = residentKb(apiPid, 'VmRSS');
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, residentKb(apiPid, 'VmRSS'))), 10);
  const started = performance.now();
  const response = await fetch(url, { headers: { Cookie: cookie } });
  let bytes = 0;
  let rows = -1; // the header line
  for await (const chunk of response.body!) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) rows += 1;
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  return { status: response.status, ms, bytes, rows, beforeMb: before / 1024, peakMb: peak / 1024 };
}

async function main(): Promise<void> {
  log(
    `${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}; scale ${SCALE} (${BOOKINGS} bookings), ${SECONDS} s per phase`,
  );
  let companyId = '';
  const stack = await startBenchStack({
    database: DATABASE,
    fresh: true,
    prepare: async (db) => void (companyId = await createWorld(db)),
    env: { REPORT_RATE_LIMIT_PER_MINUTE: '0', ANALYTICS_RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' },
  });
  try {
    const session = await benchOwnerSession(stack.db, companyId);
    const cookie = `bb_staff=${session.token}; bb_staff_csrf=${session.csrfToken}`;
    const get = async (path: string) => {
      const response = await fetch(`${stack.apiUrl}/dashboard/api${path}`, { headers: { Cookie: cookie } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    };
    const periods = ['daily', 'weekly', 'monthly'];
    for (let index = 0; index < 6; index += 1) await get(`/analytics?period=${periods[index % 3]}`);
    const analytics = await runLoops('GET /analytics', { concurrency: 1, seconds: SECONDS }, (i) =>
      get(`/analytics?period=${periods[i % 3]}`),
    );
    report(analytics);
    const advanced = await runLoops('GET /analytics/advanced', { concurrency: 1, seconds: SECONDS }, (i) =>
      get(`/analytics/advanced?days=${7 + (i % 24)}`),
    );
    report(advanced);
    const baseline = await runLoops(
      'baseline: series and routes from bookings',
      { concurrency: 1, seconds: SECONDS },
      baselineAnalytics(stack.db, companyId),
    );
    report(baseline);
    log(`analytics vs baseline p99: ${(baseline.p99 / analytics.p99).toFixed(1)}× faster`);
    log(
      `targets (analytics p99 < 300 ms, advanced p99 < 1000 ms): ` +
        `${analytics.p99 < 300 && advanced.p99 < 1000 && !analytics.errors && !advanced.errors ? 'met' : 'NOT met'}` +
        (SCALE < 1 ? ` (at scale ${SCALE}; the targets are for scale 1)` : ''),
    );
    recordFigures('insight', [
      figure('insight analytics p99', analytics.p99, 'ms', { op: '<', value: 300 }),
      figure('insight advanced analytics p99', advanced.p99, 'ms', { op: '<', value: 1000 }),
      figure('insight baseline from bookings p99', baseline.p99, 'ms'),
    ]);
    await csvPhase(stack, companyId, cookie);
  } finally {
    await stack.close();
  }
}

async function csvPhase(
  stack: Awaited<ReturnType<typeof startBenchStack>>,
  companyId: string,
  cookie: string,
) {
  const from = addDays(today, -CSV_DAYS);
  const query = `type=bookings&format=csv&locale=ar&fromDate=${from}&toDate=${addDays(today, -1)}`;
  const csv = await csvDownload(`${stack.apiUrl}/dashboard/api/reports?${query}`, cookie, stack.apiPid);
  log(
    `CSV bookings report over HTTP: ${csv.rows} rows, ${(csv.bytes / 1e6).toFixed(1)} MB in ${(csv.ms / 1000).toFixed(2)} s ` +
      `(status ${csv.status}); API RSS ${csv.beforeMb.toFixed(0)} MB before, peak ${csv.peakMb.toFixed(0)} MB ` +
      `(+${(csv.peakMb - csv.beforeMb).toFixed(0)} MB)`,
  );
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const rows = await stack.db.query(
    `select b.booking_code, b.created_at, t.operating_date, b.passenger_name, b.seats_count, b.seat_numbers, b.status,
            b.payment_status, b.channel, b.subtotal, b.discount, b.total_price, r.name_ar
       from bookings b join trips t on t.id = b.trip_id join routes r on r.id = t.route_id
      where b.company_id = $1 and b.created_at >= $2 and b.created_at < $3 order by b.created_at, b.id`,
    [companyId, damascusDayStart(from), damascusDayStart(today)],
  );
  const ms = performance.now() - started;
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  log(
    `baseline: the same rows read whole in process: ${rows.length} rows in ${(ms / 1000).toFixed(2)} s, heap +${heapMb.toFixed(0)} MB`,
  );
  log(
    `CSV over HTTP / whole read: ${(csv.ms / ms).toFixed(1)}× the time; rows ${csv.rows === rows.length ? 'match' : 'DIFFER'}`,
  );
}

await main();
