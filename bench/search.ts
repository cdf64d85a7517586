/**
 * npm run bench:search — POST /journeys/search and GET /journey-locations under load on a large
 * catalogue (bench/catalogue.ts), and in the same run the raw SQL of the search executed directly
 * through pg at the same concurrency. Prints requests/s, p50 and p99 of each and the API/raw ratio.
 *
 * The API runs in its own process with the production configuration, its JSON request log
 * written to /dev/null, and the search rate limit off (all load comes from one address). It is
 * measured twice: as configured (identical searches answered from memory for SEARCH_CACHE_SECONDS)
 * and with that cache off, which is the figure to compare with the raw SQL. The raw baseline sends
 * the same named prepared statement the endpoint sends, on a pool of the same size. Load comes from
 * wrk (a C load generator) so that the two cores go to the server, not to the load generator.
 * The cache-off API runs with API_PROCESSES=1 and again with 2 (how throughput grows with a second
 * process); the as-configured API runs API_PROCESSES processes (default one per core).
 */
import pg from 'pg';
import { prepareSearch, type JourneySearchInput } from '../db/queries/search.js';
import { PUBLIC_SCOPE } from '../domain/inventory-scope.js';
import { ensureBenchCatalogue } from './catalogue.js';
import { printTable, runLoops, runWrk, type LoadResult } from './lib/load.js';
import { measureProcessScaling } from './lib/process-scaling.js';
import { figure, recordFigures } from './lib/results.js';
import { startBenchStack } from './lib/stack.js';

const CONCURRENCY = 32;
// Database connections of the API and of the raw baseline alike.
const POOL = Number(process.env.BENCH_POOL ?? 6);
// BENCH_SCALE=0.2 measures each phase for a fifth of the time (at least 2 s).
const SECONDS = Number(
  process.env.BENCH_SECONDS ?? Math.max(2, Math.round(15 * Number(process.env.BENCH_SCALE ?? 1))),
);
const log = (message: string) => console.log(`[bench] ${message}`);

interface Sample {
  origin: { kind: 'city' | 'stop'; id: string };
  destination: { kind: 'city' | 'stop'; id: string };
  date: string;
}

async function main() {
  const stack = await startBenchStack({
    database: 'busbooking_bench_v1',
    prepare: (db) => ensureBenchCatalogue(db, log),
    env: { SEARCH_RATE_LIMIT_PER_MINUTE: '0', DATABASE_POOL_MAX: String(POOL) },
  });
  try {
    // Searches people make: pairs served by a trip (4 in 5 by city, 1 in 5 by stop) on the next 30 days.
    const rows = await stack.db.query<{ ob: string; oc: string; db_: string; dc: string; date: string }>(
      `select b.stop_id as ob, b.city_id as oc, a.stop_id as db_, a.city_id as dc,
              to_char((b.departure_at at time zone 'Asia/Damascus')::date, 'YYYY-MM-DD') as date
       from (select id from trips where departure_at between now() + interval '1 day' and now() + interval '30 days'
             order by md5(id::text) limit 400) t
       join trip_stop_calls b on b.trip_id = t.id join trip_stop_calls a on a.trip_id = t.id and a.sequence > b.sequence
       order by md5(b.id::text || a.id::text) limit 400`,
    );
    const samples: Sample[] = rows.map((row, index) =>
      index % 5 === 4
        ? { origin: { kind: 'stop', id: row.ob }, destination: { kind: 'stop', id: row.db_ }, date: row.date }
        : { origin: { kind: 'city', id: row.oc }, destination: { kind: 'city', id: row.dc }, date: row.date },
    );
    const bodies = samples.map((sample) =>
      JSON.stringify({
        [`origin_${sample.origin.kind}_id`]: sample.origin.id,
        [`destination_${sample.destination.kind}_id`]: sample.destination.id,
        departure_date: sample.date,
        passengers: 1 + (sample.date.charCodeAt(9) % 3),
        locale: 'ar',
        currency: 'SYP',
      }),
    );
    const check = await fetch(`${stack.apiUrl}/api/journeys/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodies[0],
    });
    const answer = (await check.json()) as { data?: { journeys?: unknown[] } };
    log(`sample search answered ${check.status} with ${answer.data?.journeys?.length ?? 0} journeys`);

    const results: LoadResult[] = [];
    const searchRequests = bodies.map((body) => ({
      method: 'POST' as const,
      path: '/api/journeys/search',
      body,
    }));
    // Cache off, with API_PROCESSES=1 (the figure compared with the raw SQL) and then 2.
    const scaling = await measureProcessScaling(
      stack,
      { SEARCH_CACHE_SECONDS: '0' },
      async (url, processes) => {
        await runWrk('warm-up', { url, concurrency: CONCURRENCY, seconds: 3, requests: searchRequests });
        const label = `POST /journeys/search (API, cache off, API_PROCESSES=${processes})`;
        return runWrk(label, { url, concurrency: CONCURRENCY, seconds: SECONDS, requests: searchRequests });
      },
    );
    const uncached = scaling.one;
    results.push(scaling.one, scaling.two);
    await runWrk('warm-up', {
      url: stack.apiUrl,
      concurrency: CONCURRENCY,
      seconds: 3,
      requests: searchRequests,
    });
    const api = await runWrk('POST /journeys/search (API, as configured)', {
      url: stack.apiUrl,
      concurrency: CONCURRENCY,
      seconds: SECONDS,
      requests: searchRequests,
    });
    results.push(api);

    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: POOL });
    const statements = samples.map((sample) => {
      const input: JourneySearchInput = {
        scope: PUBLIC_SCOPE,
        origin: sample.origin,
        destination: sample.destination,
        departure_date: sample.date,
        passengers: 1 + (sample.date.charCodeAt(9) % 3),
        transfer: { minSameStopMinutes: 20, minSameCityMinutes: 60, maxWaitMinutes: 360 },
      };
      return prepareSearch(input);
    });
    await runLoops('warm-up', { concurrency: CONCURRENCY, seconds: 2 }, (i) =>
      pool.query(statements[i % statements.length]!),
    );
    const raw = await runLoops(
      'search SQL through pg (raw)',
      { concurrency: CONCURRENCY, seconds: SECONDS },
      (i) => pool.query(statements[i % statements.length]!),
    );
    results.push(raw);
    await pool.end();

    const locations = await runWrk('GET /journey-locations (API)', {
      url: stack.apiUrl,
      concurrency: CONCURRENCY,
      seconds: Math.min(SECONDS, 10),
      // As browsers and the mobile app ask for it: compressed.
      requests: [{ method: 'GET', path: '/api/journey-locations', headers: { 'accept-encoding': 'gzip' } }],
    });
    results.push(locations);

    printTable(results);
    const ratio = uncached.perSecond / raw.perSecond;
    console.log(
      `API (cache off)/raw throughput ratio: ${ratio.toFixed(2)} (target ≥ 0.50); ` +
        `API as configured/raw: ${(api.perSecond / raw.perSecond).toFixed(2)}`,
    );
    console.log(
      `targets (as configured; cache off in brackets): search p99 ${api.p99.toFixed(1)} ms [${uncached.p99.toFixed(1)}] ` +
        `(< 40) ${api.p99 < 40 ? 'met' : 'MISSED'} [${uncached.p99 < 40 ? 'met' : 'MISSED'}]; ` +
        `search ${Math.round(api.perSecond)} req/s [${Math.round(uncached.perSecond)}] (≥ 800) ` +
        `${api.perSecond >= 800 ? 'met' : 'MISSED'} [${uncached.perSecond >= 800 ? 'met' : 'MISSED'}]; ` +
        `journey-locations ${Math.round(locations.perSecond)} req/s (≥ 4000) ${locations.perSecond >= 4000 ? 'met' : 'MISSED'}; ` +
        `ratio ${ratio >= 0.5 ? 'met' : 'MISSED'}`,
    );
    recordFigures('search', [
      figure('search as configured', api.perSecond, 'req/s', { op: '>=', value: 800 }),
      figure('search as configured p99', api.p99, 'ms', { op: '<', value: 40 }),
      figure('search cache off, 1 process', uncached.perSecond, 'req/s'),
      figure('search cache off, 1 process p99', uncached.p99, 'ms'),
      figure('search cache off, 2 processes', scaling.two.perSecond, 'req/s'),
      figure('search cache off, 2 / 1 processes', scaling.ratio, '×'),
      figure('search SQL raw (baseline)', raw.perSecond, 'req/s'),
      figure('search cache off / raw', ratio, '×', { op: '>=', value: 0.5 }),
      figure('journey-locations', locations.perSecond, 'req/s', { op: '>=', value: 4000 }),
    ]);
    if (api.errors || uncached.errors || locations.errors) {
      console.log(`non-2xx or errors: search ${api.errors + uncached.errors}, locations ${locations.errors}`);
    }
  } finally {
    await stack.close();
  }
}

await main();
process.exit(0);
