/**
 * `npm test`: PostgreSQL (reused when one answers, else a private cluster), a database created for
 * this run, one Temporal dev server for the whole run (in memory, headless), then vitest. The
 * run's database and server are removed afterwards.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stop, type Managed } from './lib/processes.js';
import {
  databaseUrl,
  dropDatabase,
  freePort,
  projectRoot,
  startTemporal,
  throwawayDatabase,
} from './lib/services.js';

const managed: Managed[] = [];
// vitest also writes its JSON report here, so the run can end on one plain count line (below).
const reportDir = mkdtempSync(join(tmpdir(), 'busbooking-test-report-'));
const reportFile = join(reportDir, 'vitest.json');

async function main(): Promise<number> {
  const database = `busbooking_test_${Date.now()}`;
  const postgres = await throwawayDatabase(database, managed);
  const temporalPort = await freePort(7243, 50);
  managed.push(await startTemporal({ port: temporalPort }));
  try {
    const vitestArgs = [
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportFile}`,
      ...process.argv.slice(2),
    ];
    // Run vitest on this same Node (the project's pinned one), not whatever `node` the shebang finds.
    const vitestEntry = join(projectRoot, 'node_modules', 'vitest', 'vitest.mjs');
    // Off a terminal (CI, a log file) the report is plain text: vitest colours whenever CI is set,
    // and escape codes inside "Tests  1651 passed" hide the summary from whatever reads the log.
    const plain = process.stdout.isTTY ? {} : { NO_COLOR: '1', FORCE_COLOR: undefined };
    const vitest = spawn(process.execPath, [vitestEntry, ...vitestArgs], {
      stdio: 'inherit',
      cwd: projectRoot,
      env: {
        ...process.env,
        ...plain,
        PATH: `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
        NODE_ENV: 'test',
        // Tests see every seat change at once; the search cache has its own test.
        SEARCH_CACHE_SECONDS: process.env.SEARCH_CACHE_SECONDS ?? '0',
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
        DATABASE_URL: databaseUrl(postgres.serverUrl, database),
        TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
        CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        PDF_CHROMIUM_PATH: process.env.PDF_CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
      },
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => vitest.kill(signal));
    return await new Promise<number>((resolve) => vitest.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    await dropDatabase(postgres.serverUrl, database).catch(() => undefined);
  }
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  console.error(`[test] ${(error as Error).message}`);
} finally {
  for (const service of managed.reverse()) await stop(service);
}
console.log(closingLine(exitCode));
rmSync(reportDir, { recursive: true, force: true });
process.exit(exitCode);

/**
 * The run's last line, `Tests: N passed, N failed, N skipped`: log readers that know no vitest
 * recognise this plain form, and it comes after the services' shutdown chatter. A file that failed
 * to load (no test of it ran) counts as one failure, and so does a run that vitest failed with no
 * failed test (an unhandled error between tests).
 */
function closingLine(exitCode: number): string {
  let report: JsonReport;
  try {
    report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport;
  } catch {
    return 'Tests: 0 passed, 1 failed (vitest wrote no report)';
  }
  const brokenFiles = report.testResults.filter(
    (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
  ).length;
  const counted = report.numFailedTests + brokenFiles;
  const failed = exitCode !== 0 && counted === 0 ? 1 : counted;
  const skipped = report.numPendingTests + report.numTodoTests;
  return `Tests: ${report.numPassedTests} passed, ${failed} failed, ${skipped} skipped`;
}

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { status: string; assertionResults: { status: string }[] }[];
}
