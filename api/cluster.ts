/**
 * Several API processes on one port: the primary forks API_PROCESSES workers (node:cluster), each an
 * unchanged `api/server.ts` process with its own PostgreSQL pool (its share of DATABASE_POOL_MAX,
 * config/deployment.ts `poolPerApiProcess`) and Temporal client. The primary serves no request: it
 * hands connections to the workers in turn, replaces a worker that dies after it was listening,
 * passes SIGINT/SIGTERM on and exits when they have stopped. Migrations and demo data run before
 * this starts (scripts/seed.ts), never per worker. Launchers run `api/server.ts` itself when
 * API_PROCESSES is 1 (scripts/lib/api-entry.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createLogger } from '../config/logger.js';
import { poolPerApiProcess } from '../config/deployment.js';
import { loadConfig } from '../config/index.js';

const serverPath = fileURLToPath(new URL('./server.ts', import.meta.url));

function runPrimary(): void {
  const config = loadConfig();
  // The primary's few lines (start, all listening, a process died) go to stderr at info whatever
  // LOG_LEVEL says: launchers that discard the request log (stdout) wait for "api processes listening".
  const logger = createLogger({ LOG_LEVEL: 'info' }, 'api-primary', pino.destination(2));
  const listening = new Set<number>();
  let stopping = false;
  cluster.setupPrimary({ exec: serverPath });
  const pids = () => Object.values(cluster.workers ?? {}).map((worker) => worker?.process.pid);
  // The processes share the host's connections to PostgreSQL instead of opening that many each.
  const poolMax = poolPerApiProcess(config.DATABASE_POOL_MAX, config.API_PROCESSES);
  const fork = (): Worker => {
    const worker = cluster.fork({ DATABASE_POOL_MAX: String(poolMax) });
    worker.on('listening', () => {
      listening.add(worker.id);
      if (listening.size === config.API_PROCESSES) logger.info({ pids: pids() }, 'api processes listening');
    });
    return worker;
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    if (!listening.has(worker.id) && signal === null) {
      // A worker that exited before it listened fails the same way again (configuration, port): stop them all.
      logger.error({ pid: worker.process.pid, code, signal }, 'api process failed at start-up');
      shutdown('SIGTERM', 1);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'api process died; starting another');
    listening.delete(worker.id);
    fork();
  });
  const shutdown = (signal: NodeJS.Signals, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    process.exitCode = exitCode;
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    if (workers.length === 0) process.exit(exitCode);
    for (const worker of workers) worker.process.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => shutdown(signal));
  for (let index = 0; index < config.API_PROCESSES; index += 1) fork();
  logger.info({ processes: config.API_PROCESSES, port: config.PORT }, 'api processes starting');
}

if (import.meta.url === `file://${process.argv[1]}` && cluster.isPrimary) runPrimary();
