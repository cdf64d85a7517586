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
 *
 * The catalogue is vacuumed and analyzed first, as pgbench does before a run, and the raw SQL warmed
 * up for as long as a phase. Then the raw SQL, the HTTP floor (the same statements behind a bare
 * node:http server that writes the rows as JSON, lib/search-floor-server.ts: the most any Node
 * endpoint over this SQL reaches here) and the uncached API are measured in turn, BENCH_ROUNDS (3)
 * slices each with the order turning (lib/interleave.ts): the machine's speed drifts by up to a fifth
 * within minutes, and measured one after the other the three met different machines. The API
 * (cache off) is read against both.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { prepareSearch } from '../db/queries/search.js';
import { PUBLIC_SCOPE } from '../domain/inventory-scope.js';
import { BENCH_CATALOGUE_DATABASE, ensureBenchCatalogue } from './catalogue.js';
import { printTable, runLoops, runWrk, type LoadResult } from './lib/load.js';
import { interleave, type Interleaved } from './lib/interleave.js';
import { processScaling } from './lib/process-scaling.js';
import { figure, recordFigures } from './lib/results.js';
import { meanAnswerBytes, startSearchFloor } from './lib/search-floor.js';
import { startBenchStack } from './lib/stack.js';
import { benchSearches } from './search-samples.js';
import { benchSetting, log } from './lib/settings.js';
import { autovacuumPasses, vacuumAnalyze } from './lib/vacuum.js';

const CONCURRENCY = 32;
// Database connections of the API and of the raw baseline alike.
const POOL = benchSetting('BENCH_POOL', 6);
// Slices of the raw SQL, the floor and the uncached API, in turn (bench/lib/interleave.ts).
const ROUNDS = benchSetting('BENCH_ROUNDS', 3);
// BENCH_SCALE=0.2 measures each phase for a fifth of the time (at least 2 s).
const SECONDS = benchSetting('BENCH_SECONDS', Math.max(2, Math.round(15 * benchSetting('BENCH_SCALE', 1))));

async function main() {
  const stack = await startBenchStack({
    database: BENCH_CATALOGUE_DATABASE,
    prepare: (db) => ensureBenchCatalogue(db, log),
    env: { SEARCH_RATE_LIMIT_PER_MINUTE: '0', DATABASE_POOL_MAX: String(POOL) },
  });
  try {
    // A catalogue built moments ago sets off an autovacuum pass of its 900,000 rows, which would share
    // the machine with whichever phases it overlaps: vacuumed first, as pgbench does before a run.
    await vacuumAnalyze(stack.db);
    const passesBefore = await autovacuumPasses(stack.db);
    const searches = await benchSearches(stack.db);
    const bodies = searches.map((search) => JSON.stringify(search.body));
    const check = await fetch(`${stack.apiUrl}/api/journeys/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodies[0],
    });
    const answer = (await check.json()) as { data?: { journeys?: unknown[] } };
    log(`sample search answered ${check.status} with ${answer.data?.journeys?.length ?? 0} journeys`);
    const apiAnswerBytes = await meanAnswerBytes(`${stack.apiUrl}/api/journeys/search`, bodies);
    // The same catalogue and day give the same searches: the digest shows it from run to run.
    const digest = createHash('sha256').update(bodies.join('\n')).digest('hex').slice(0, 12);
    log(`the ${bodies.length} searches (sha256 ${digest}): answers of ${apiAnswerBytes} bytes on average`);

    const results: LoadResult[] = [];
    const searchRequests = bodies.map((body) => ({
      method: 'POST' as const,
      path: '/api/journeys/search',
      body,
    }));

    // A warm-up as long as a phase: the catalogue comes off disk into PostgreSQL's cache here, not in
    // whichever slice happens to run first.
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: POOL });
    const statements = searches.map((search) => prepareSearch({ ...search.input, scope: PUBLIC_SCOPE }));
    const rawLoad = (label: string, seconds: number) =>
      runLoops(label, { concurrency: CONCURRENCY, seconds }, (i) =>
        pool.query(statements[i % statements.length]!),
      );
    await rawLoad('warm-up', SECONDS);

    // The raw SQL, the HTTP floor (a bare node:http endpoint over the same statements, in its own
    // process) and the API with the cache off and API_PROCESSES=1 (the figure compared with the raw
    // SQL), measured in turn in ROUNDS slices each, so the machine's drift weighs on all three alike.
    const floorServer = await startSearchFloor(
      stack.databaseUrl,
      POOL,
      bodies.map((body, i) => ({ body, statement: statements[i]! })),
    );
    const uncachedUrl = await stack.startApi({ SEARCH_CACHE_SECONDS: '0', API_PROCESSES: '1' });
    const wrkLoad = (url: string) => (label: string, seconds: number) =>
      runWrk(label, { url, concurrency: CONCURRENCY, seconds, requests: searchRequests });
    const loads = {
      'raw SQL': rawLoad,
      'HTTP floor': wrkLoad(floorServer.url),
      'API, cache off': wrkLoad(uncachedUrl),
    };
    let measured: Map<string, Interleaved>;
    try {
      await loads['HTTP floor']('warm-up', 3);
      await loads['API, cache off']('warm-up', 3);
      measured = await interleave(
        Object.entries(loads).map(([name, load]) => ({ name, run: (seconds) => load(name, seconds) })),
        { seconds: SECONDS, rounds: ROUNDS, warmUpSeconds: 1 },
      );
    } finally {
      await floorServer.stop();
    }
    await pool.end();
    const phase = (name: keyof typeof loads, label: string) => ({
      ...measured.get(name)!.result,
      label,
    });
    const raw = phase('raw SQL', 'search SQL through pg (raw)');
    const floor = phase('HTTP floor', 'search SQL behind bare node:http (floor)');
    const uncached = phase('API, cache off', 'POST /journeys/search (API, cache off, API_PROCESSES=1)');
    const cpuRows = Object.fromEntries([...measured].map(([name, { cpu }]) => [name, cpu]));

    // How throughput grows with a second process: the same load against API_PROCESSES=2.
    const twoUrl = await stack.startApi({ SEARCH_CACHE_SECONDS: '0', API_PROCESSES: '2' });
    await wrkLoad(twoUrl)('warm-up', 3);
    const two = await wrkLoad(twoUrl)('POST /journeys/search (API, cache off, API_PROCESSES=2)', SECONDS);
    const scaling = processScaling(uncached, two);
    results.push(raw, floor, uncached, two);

    await wrkLoad(stack.apiUrl)('warm-up', 3);
    const api = await wrkLoad(stack.apiUrl)('POST /journeys/search (API, as configured)', SECONDS);
    results.push(api);

    const locations = await runWrk('GET /journey-locations (API)', {
      url: stack.apiUrl,
      concurrency: CONCURRENCY,
      seconds: Math.min(SECONDS, 10),
      // As browsers and the mobile app ask for it: compressed.
      requests: [{ method: 'GET', path: '/api/journey-locations', headers: { 'accept-encoding': 'gzip' } }],
    });
    results.push(locations);

    printTable(results);
    log(
      `autovacuum and autoanalyze passes during the phases: ${(await autovacuumPasses(stack.db)) - passesBefore}`,
    );
    console.log(
      'CPU ms per answer, by part of the stack (the load generator is this process for the raw SQL; wrk is not counted):',
    );
    console.table(cpuRows);
    // Node CPU per answer: the API's over its 1-process slices, the raw pg client's (this process).
    const uncachedCpu = cpuRows['API, cache off']?.['API ms'];
    const rawClientCpu = cpuRows['raw SQL']?.['load generator ms'];
    const rawRate = raw.perSecond;
    const ratio = uncached.perSecond / rawRate;
    console.log(
      `API (cache off)/raw throughput ratio: ${ratio.toFixed(2)} (target ≥ 0.50); ` +
        `API as configured/raw: ${(api.perSecond / rawRate).toFixed(2)}`,
    );
    console.log(
      `targets (as configured; cache off in brackets): search p99 ${api.p99.toFixed(1)} ms [${uncached.p99.toFixed(1)}] ` +
        `(< 40) ${api.p99 < 40 ? 'met' : 'MISSED'} [${uncached.p99 < 40 ? 'met' : 'MISSED'}]; ` +
        `search ${Math.round(api.perSecond)} req/s [${Math.round(uncached.perSecond)}] (≥ 800) ` +
        `${api.perSecond >= 800 ? 'met' : 'MISSED'} [${uncached.perSecond >= 800 ? 'met' : 'MISSED'}]; ` +
        `journey-locations ${Math.round(locations.perSecond)} req/s (≥ 4000) ${locations.perSecond >= 4000 ? 'met' : 'MISSED'}; ` +
        `ratio ${ratio >= 0.5 ? 'met' : 'MISSED'}`,
    );
    // Issue 18: the uncached search within 0.75 of its raw SQL; Node CPU per answer beside the raw client's.
    console.log(
      `API (cache off)/raw throughput ratio ${ratio.toFixed(2)} (target ≥ 0.75) ${ratio >= 0.75 ? 'met' : 'MISSED'}; ` +
        `Node CPU per answer: API (cache off) ${uncachedCpu?.toFixed(2) ?? '?'} ms, ` +
        `raw pg client ${rawClientCpu?.toFixed(2) ?? '?'} ms`,
    );
    // What any Node HTTP endpoint over this SQL reaches here: the 0.75 target is within reach only
    // where the floor itself is above it.
    const floorRatio = floor.perSecond / rawRate;
    console.log(
      `HTTP floor (bare node:http, the rows as JSON, ${floorServer.answerBytes} bytes an answer on average; the API's ` +
        `${apiAnswerBytes}): ${Math.round(floor.perSecond)} req/s = ${floorRatio.toFixed(2)} of raw; ` +
        `the API (cache off) reaches ${(uncached.perSecond / floor.perSecond).toFixed(2)} of the floor`,
    );
    recordFigures('search', [
      figure('search as configured', api.perSecond, 'req/s', { op: '>=', value: 800 }),
      figure('search as configured p99', api.p99, 'ms', { op: '<', value: 40 }),
      figure('search cache off, 1 process', uncached.perSecond, 'req/s'),
      figure('search cache off, 1 process p99', uncached.p99, 'ms'),
      figure('search cache off, 2 processes', scaling.two.perSecond, 'req/s'),
      figure('search cache off, 2 / 1 processes', scaling.ratio, '×'),
      figure('search SQL raw (baseline, in turn with the API)', rawRate, 'req/s'),
      // The floor over the same SQL is the most any Node endpoint reaches: when it misses 0.75 too,
      // the table says the target is out of reach in this run.
      figure('search cache off / raw', ratio, '×', { op: '>=', value: 0.75 }, floorRatio),
      figure('search cache off, Node CPU per answer', uncachedCpu ?? Number.NaN, 'ms'),
      figure('search HTTP floor (bare node:http)', floor.perSecond, 'req/s'),
      figure('search HTTP floor / raw', floorRatio, '×'),
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
