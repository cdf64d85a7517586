/**
 * Several API processes on one port: the primary forks API_PROCESSES workers (node:cluster), each an
 * unchanged `api/server.ts` process with its own PostgreSQL pool (its share of DATABASE_POOL_MAX,
 * config/deployment.ts `poolPerApiProcess`) and Temporal client. The primary serves no request: it
 * hands connections to the workers in turn, replaces a worker that dies (one that fails at start-up
 * after a pause, or stops them all if the API never listened yet), passes SIGINT/SIGTERM on and
 * exits when they have stopped: 1 if one of them did not stop cleanly (requests cut off, killed).
 * Migrations and demo data run before this starts (scripts/seed.ts), never per worker. Launchers run
 * `api/server.ts` itself when API_PROCESSES is 1 (scripts/lib/api-entry.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createLogger } from '../config/logger.js';
import { poolPerApiProcess } from '../config/deployment.js';
import { loadConfig } from '../config/index.js';
import { exitOnUncaughtError } from '../config/process-failures.js';

const serverPath = fileURLToPath(new URL('./server.ts', import.meta.url));

/** The pause before another process after one failed at start-up, the next one at each failure in a row. */
const RESTART_PAUSES_MS = [1000, 2000, 4000, 8000, 16_000, 30_000];

function runPrimary(): void {
  // The primary's few lines (start, all listening, a process died) go to stderr at info whatever
  // LOG_LEVEL says: launchers that discard the request log (stdout) wait for "api processes listening".
  const logger = createLogger({ LOG_LEVEL: 'info' }, 'api-primary', pino.destination(2));
  // Installed first: a setting refused below is a fatal line too.
  exitOnUncaughtError(logger);
  const config = loadConfig();
  const listening = new Set<number>();
  let stopping = false;
  /** Every process listened once: the settings work, so a process that fails at start-up later is tried again. */
  let started = false;
  /** Processes that failed at start-up since one last listened. */
  let failedStarts = 0;
  const pendingForks = new Set<NodeJS.Timeout>();
  cluster.setupPrimary({ exec: serverPath });
  const pids = () => Object.values(cluster.workers ?? {}).map((worker) => worker?.process.pid);
  // The processes share the host's connections to PostgreSQL instead of opening that many each.
  const poolMax = poolPerApiProcess(config.DATABASE_POOL_MAX, config.API_PROCESSES);
  const fork = (): Worker => {
    const worker = cluster.fork({ DATABASE_POOL_MAX: String(poolMax) });
    worker.on('listening', () => {
      listening.add(worker.id);
      failedStarts = 0;
      if (listening.size === config.API_PROCESSES) {
        started = true;
        logger.info({ pids: pids() }, 'api processes listening');
      }
    });
    return worker;
  };
  cluster.on('exit', (worker, code, signal) => {
    const listened = listening.delete(worker.id);
    if (stopping) {
      // The primary's exit code says how its processes stopped: 1 when one cut requests off or was killed.
      if (code !== 0 || signal !== null) process.exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    if (!listened && signal === null) {
      if (!started) {
        // Before the API ever listened, a process that fails at start-up fails the same way again
        // (a setting, the port): stop them all.
        logger.error({ pid: worker.process.pid, code, signal }, 'api process failed at start-up');
        shutdown('SIGTERM', 1);
        return;
      }
      // Once it did, the settings work: the others serve on while another is tried after a pause.
      const retryInMs = RESTART_PAUSES_MS[Math.min(failedStarts, RESTART_PAUSES_MS.length - 1)]!;
      failedStarts += 1;
      logger.error(
        { pid: worker.process.pid, code, signal, retryInMs },
        'api process failed at start-up; starting another after a pause',
      );
      const timer = setTimeout(() => {
        pendingForks.delete(timer);
        fork();
      }, retryInMs);
      pendingForks.add(timer);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'api process died; starting another');
    fork();
  });
  const shutdown = (signal: NodeJS.Signals, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    process.exitCode = exitCode;
    for (const timer of pendingForks) clearTimeout(timer);
    pendingForks.clear();
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    if (workers.length === 0) process.exit();
    for (const worker of workers) worker.process.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => shutdown(signal));
  for (let index = 0; index < config.API_PROCESSES; index += 1) fork();
  logger.info({ processes: config.API_PROCESSES, port: config.PORT }, 'api processes starting');
}

if (import.meta.url === `file://${process.argv[1]}` && cluster.isPrimary) runPrimary();
