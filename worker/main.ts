import { Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../config/logger.js';
import { exitOnUncaughtError } from '../config/process-failures.js';
import { connectTemporalClient } from '../config/temporal.js';
import { initDatabase } from '../db/orm.js';
import { bundleWorkflows, createWorker } from './create-worker.js';
import { ensureSchedules } from './schedules.js';

const config = loadConfig();
const logger = createLogger(config, 'worker');
exitOnUncaughtError(logger);
Runtime.install({
  logger: {
    log: (level, message, meta) =>
      logger[level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'info')]({ ...meta }, message),
    trace: (message, meta) => logger.trace(meta ?? {}, message),
    debug: (message, meta) => logger.debug(meta ?? {}, message),
    info: (message, meta) => logger.info(meta ?? {}, message),
    warn: (message, meta) => logger.warn(meta ?? {}, message),
    error: (message, meta) => logger.error(meta ?? {}, message),
  },
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
});

const db = await initDatabase(config);
const workflowBundle = await bundleWorkflows();
const { worker, connection, browserPool } = await createWorker({ config, db, logger, workflowBundle });
const scheduler = await connectTemporalClient(config);
await ensureSchedules(scheduler.client, config, logger);
await scheduler.connection.close();
logger.info(
  { taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE },
  'worker started',
);
// worker.run() resolves after SIGINT/SIGTERM (the SDK's shutdown signals) once in-flight tasks
// finish: activities get SHUTDOWN_GRACE_MS (create-worker.ts), then they are cancelled; it rejects
// when some still run a few seconds after that, and the process exits 1 at once.
try {
  await worker.run();
} catch (error) {
  // Activities still running hold the connection and the pool: the process ends without closing them.
  logger.error({ reason: (error as Error).message }, 'worker stopped, cutting off what still runs');
  process.exit(1);
}
await browserPool.close();
await connection.close();
await db.close();
logger.info('worker stopped');
process.exit(0);
