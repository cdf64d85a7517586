/**
 * npm run bench — every benchmark one after another (each in its own process, as
 * `npm run bench:<name>` runs it), then ONE table of every figure beside its target with met / not
 * met, read from the JSON each benchmark writes (bench/lib/results.ts) into this run's results
 * directory. The table is also written there as Markdown (table.md) for the README.
 *
 *   npm run bench                         all of them, full size
 *   npm run bench -- search bookings      some of them
 *   BENCH_SCALE=0.1 npm run bench         a small run: BENCH_SCALE goes to every benchmark; those
 *                                         without it get shorter phases from it (SCALED below)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../scripts/lib/services.js';
import { machineLoad } from './lib/load.js';
import { markdownTable, rowsOf, type TableRow } from './lib/results-table.js';
import { benchSetting } from './lib/settings.js';

const BENCHES = [
  'search',
  'journeys',
  'bookings',
  'documents',
  'schedules',
  'checkin',
  'webhooks',
  'ledger',
  'insight',
];

/** Settings a benchmark without BENCH_SCALE reads, derived from the scale (unless set already). */
const SCALED: Record<string, (scale: number) => Record<string, string>> = {
  journeys: (scale) => ({
    BENCH_SECONDS: String(Math.max(3, Math.round(20 * scale))),
    BENCH_PENDING: String(Math.max(20, Math.round(1000 * scale))),
  }),
  documents: (scale) => ({ BENCH_SECONDS: String(Math.max(3, Math.round(15 * scale))) }),
  checkin: (scale) => ({ BENCH_ROUNDS: String(Math.max(1, Math.round(5 * scale))) }),
};

function runOne(name: string, env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', join('bench', `${name}.ts`)], {
    cwd: projectRoot,
    env,
    stdio: 'inherit',
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  const chosen = process.argv.slice(2);
  const unknown = chosen.filter((name) => !BENCHES.includes(name));
  if (unknown.length)
    throw new Error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHES.join(', ')}`);
  const names = chosen.length ? chosen : BENCHES;
  const scale = benchSetting('BENCH_SCALE', 1);
  const dir = join(projectRoot, '.data', 'bench-results', new Date().toISOString().replaceAll(':', '-'));
  mkdirSync(dir, { recursive: true });
  const rows: TableRow[] = [];
  const started = Date.now();
  for (const name of names) {
    console.log(`\n[bench] ===== ${name} (BENCH_SCALE ${scale}) =====`);
    const derived = scale < 1 ? (SCALED[name]?.(scale) ?? {}) : {};
    const env = { ...derived, ...process.env, BENCH_RESULTS_DIR: dir };
    rows.push(...rowsOf(name, dir, await runOne(name, env)));
  }
  const table = markdownTable(rows);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const summary = `${names.length} benchmarks in ${minutes} min, BENCH_SCALE ${scale}; ${machineLoad()}`;
  writeFileSync(join(dir, 'table.md'), `${table}\n\n${summary}\n`);
  console.log(`\n${table}\n\n${summary}\n[bench] table written to ${join(dir, 'table.md')}`);
  return rows.some((row) => row.figure === '(run failed)') ? 1 : 0;
}

process.exit(await main());
