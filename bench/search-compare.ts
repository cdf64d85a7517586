/**
 * BASE_DIR=<checkout of another commit> npm run bench:search-compare — the uncached search of this
 * tree beside the same search of another commit, on the bench catalogue (bench/catalogue.ts):
 *
 * 1. the 400 searches of bench:search, each in three variants (as the bench sends it, in English
 *    with the default currency, for one passenger more), sent to both APIs: status, content type
 *    and body must be byte for byte the same;
 * 2. COMPARE_ROUNDS rounds (default 2) of COMPARE_SECONDS (default 6) each: base API, this API and
 *    the raw SQL, one after the other, with each API's CPU per answer (from /proc), so a change is
 *    judged against its baseline under the same machine load.
 *
 * COMPARE_BASE_ENV (JSON) changes settings of the base API only (e.g. {"LOG_LEVEL":"warn"}), so the
 * cost of one setting can be measured the same way, with BASE_DIR this tree.
 *
 * Make the checkout with `git worktree add --detach /tmp/base <commit>` (or `git archive <commit> |
 * tar -x -C /tmp/base`) and link its node_modules to this tree's.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { prepareSearch } from '../db/queries/search.js';
import { PUBLIC_SCOPE } from '../domain/inventory-scope.js';
import { freePort, portOpen } from '../scripts/lib/services.js';
import { waitFor } from '../scripts/lib/processes.js';
import { runLoops, runWrk } from './lib/load.js';
import { startBenchStack, type BenchStack } from './lib/stack.js';
import { BENCH_CATALOGUE_DATABASE } from './catalogue.js';
import { benchSearches, type BenchSearch } from './search-samples.js';

const SECONDS = Number(process.env.COMPARE_SECONDS ?? 6);
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 2);
const UNCACHED = { SEARCH_RATE_LIMIT_PER_MINUTE: '0', DATABASE_POOL_MAX: '6', SEARCH_CACHE_SECONDS: '0' };

/** CPU milliseconds used so far by one process (user + system), from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function startBaseApi(stack: BenchStack, baseDir: string) {
  const port = await freePort(3500, 100);
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
    cwd: baseDir,
    env: {
      ...stack.env,
      ...UNCACHED,
      ...(JSON.parse(process.env.COMPARE_BASE_ENV ?? '{}') as Record<string, string>),
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor('the base API', () => portOpen(port), 60_000);
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGINT') };
}

/** Every search in three variants, as JSON bodies. */
function variants(searches: BenchSearch[]): string[] {
  return searches
    .flatMap((search) => [
      search.body,
      { ...search.body, locale: 'en', currency: undefined },
      { ...search.body, passengers: search.body.passengers + 1 },
    ])
    .map((body) => JSON.stringify(body));
}

async function answer(url: string, body: string): Promise<string> {
  const response = await fetch(`${url}/api/journeys/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return `${response.status} ${response.headers.get('content-type')}\n${await response.text()}`;
}

async function compareAnswers(baseUrl: string, url: string, bodies: string[]): Promise<number> {
  let different = 0;
  for (const body of bodies) {
    const [before, after] = await Promise.all([answer(baseUrl, body), answer(url, body)]);
    if (before === after) continue;
    different++;
    if (different <= 3)
      console.log(`different answer for ${body}:\n${before.slice(0, 400)}\n${after.slice(0, 400)}`);
  }
  console.log(`answers compared: ${bodies.length}, byte for byte the same: ${bodies.length - different}`);
  return different;
}

async function rounds(
  stack: BenchStack,
  apis: Record<string, { url: string; pid: number }>,
  searches: BenchSearch[],
) {
  const requests = searches.map((search) => ({
    method: 'POST' as const,
    path: '/api/journeys/search',
    body: JSON.stringify(search.body),
  }));
  const statements = searches.map((search) => prepareSearch({ ...search.input, scope: PUBLIC_SCOPE }));
  const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 6 });
  const query = (i: number) => pool.query(statements[i % statements.length]!);
  for (const api of Object.values(apis))
    await runWrk('warm-up', { url: api.url, concurrency: 32, seconds: 2, requests });
  await runLoops('warm-up', { concurrency: 32, seconds: 2 }, query);
  for (let round = 1; round <= ROUNDS; round++) {
    const rates: Record<string, number> = {};
    // Alternate which API goes first, so a change in machine load does not favour one of them.
    const order = round % 2 ? Object.entries(apis) : Object.entries(apis).reverse();
    for (const [name, api] of order) {
      const before = cpuMs(api.pid);
      const result = await runWrk(name, { url: api.url, concurrency: 32, seconds: SECONDS, requests });
      rates[name] = result.perSecond;
      const cpu = (cpuMs(api.pid) - before) / Math.max(result.requests, 1);
      console.log(
        `round ${round} ${name}: ${result.perSecond.toFixed(0)} req/s, p99 ${result.p99.toFixed(1)} ms, ` +
          `errors ${result.errors}, API CPU ${cpu.toFixed(2)} ms per answer`,
      );
    }
    const raw = await runLoops('raw', { concurrency: 32, seconds: SECONDS }, query);
    console.log(
      `round ${round} raw SQL: ${raw.perSecond.toFixed(0)} req/s, p99 ${raw.p99.toFixed(1)} ms; ` +
        `ratio to raw: base ${(rates.base! / raw.perSecond).toFixed(2)}, this ${(rates.this! / raw.perSecond).toFixed(2)}`,
    );
  }
  await pool.end();
}

async function main() {
  const baseDir = process.env.BASE_DIR;
  if (!baseDir) throw new Error('set BASE_DIR to a checkout of the commit to compare with');
  // One API process, as the base runs api/server.ts: CPU per answer and rate are of one process each.
  const stack = await startBenchStack({
    database: BENCH_CATALOGUE_DATABASE,
    env: { ...UNCACHED, API_PROCESSES: '1' },
  });
  const base = await startBaseApi(stack, baseDir);
  try {
    const searches = await benchSearches(stack.db);
    const different = await compareAnswers(base.url, stack.apiUrl, variants(searches));
    await rounds(stack, { base, this: { url: stack.apiUrl, pid: stack.apiPid } }, searches);
    process.exitCode = different ? 1 : 0;
  } finally {
    base.stop();
    await stack.close();
  }
}

await main();
process.exit(process.exitCode ?? 0);
