import { createRequire } from 'node:module';
import {
  NativeConnection,
  Worker,
  bundleWorkflowCode,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import { connectionOptions } from '../config/temporal.js';
import type { Database } from '../db/orm.js';
import { createActivities } from '../activities/index.js';
import { BrowserPool } from '../activities/documents/browser-pool.js';
import { startHoldSweeper } from './hold-sweeper.js';
import { startRelayKeeper } from './relay-keeper.js';
import { startScheduleResumer } from './schedule-resumer.js';

const require = createRequire(import.meta.url);
export const workflowsPath = require.resolve('../workflows/index.ts');

/** Bundles the workflow code once (the test setup shares one bundle among all test workers). */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
}

const noop = () => undefined;
const quietBundlerLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: console.error,
  log: noop,
};

/** How long after the shutdown grace worker.run() stops waiting for activities that ignore cancellation. */
const SHUTDOWN_FORCE_AFTER_GRACE_MS = 5000;

export interface WorkerDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** A prebuilt bundle; without one the worker bundles at start. */
  workflowBundle?: WorkflowBundleWithSourceMap;
  taskQueue?: string;
}

/**
 * The worker with its connection and its PDF browser pool (one warm Chromium per worker process,
 * launched on the first render). The caller closes the pool after worker.run() resolves.
 */
export async function createWorker(
  deps: WorkerDeps,
): Promise<{ worker: Worker; connection: NativeConnection; browserPool: BrowserPool }> {
  const connection = await NativeConnection.connect(connectionOptions(deps.config));
  const browserPool = new BrowserPool({
    executablePath: deps.config.PDF_CHROMIUM_PATH,
    size: deps.config.PDF_PAGE_POOL_SIZE,
    logger: deps.logger,
  });
  const worker = await Worker.create({
    connection,
    namespace: deps.config.TEMPORAL_NAMESPACE,
    taskQueue: deps.taskQueue ?? deps.config.TEMPORAL_TASK_QUEUE,
    activities: createActivities({ config: deps.config, db: deps.db, logger: deps.logger, browserPool }),
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath }),
    // On shutdown (SIGTERM) running activities get SHUTDOWN_GRACE_MS to finish before they are
    // cancelled; a few seconds later worker.run() gives up on any that ignore the cancellation.
    shutdownGraceTime: deps.config.SHUTDOWN_GRACE_MS,
    shutdownForceTime: deps.config.SHUTDOWN_GRACE_MS + SHUTDOWN_FORCE_AFTER_GRACE_MS,
  });
  const live = new Set(['INITIALIZED', 'RUNNING']);
  const running = () => live.has(worker.getState());
  startHoldSweeper({ ...deps, running });
  // Trip schedules left COMMITTING by a closed run (terminated in the Temporal UI) get a new run.
  startScheduleResumer({ ...deps, connection, running });
  // The webhook relay started again when its run closed (terminated in the Temporal UI).
  startRelayKeeper({ ...deps, connection, running });
  return { worker, connection, browserPool };
}
