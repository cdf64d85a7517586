import type { Worker, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, inject } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { createLogger } from '../../config/logger.js';
import { initDatabase, type Database } from '../../db/orm.js';
import { createWorker } from '../../worker/create-worker.js';

/**
 * A worker of the test file's own, on its private database (usePrivateDatabase) and task queue, for a
 * file whose workflows must write there (the app it starts uses the same TEMPORAL_TASK_QUEUE). Runs
 * the run's workflow bundle, as global-setup wrote it (no source map: stack traces point into the
 * bundle); started before the file's tests and shut down after them.
 */
export function usePrivateWorker(databaseUrl: string, taskQueue: string, name: string): void {
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let workerDb: Database | undefined;

  beforeAll(async () => {
    const config = { ...loadConfig(), DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue };
    workerDb = await initDatabase(config);
    const created = await createWorker({
      config,
      db: workerDb,
      logger: createLogger(config, name),
      workflowBundle: {
        code: readFileSync(inject('workflowBundlePath'), 'utf8'),
      } as WorkflowBundleWithSourceMap,
    });
    worker = created.worker;
    running = worker
      .run()
      .finally(() => Promise.all([created.browserPool.close(), created.connection.close()]));
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await workerDb?.close();
  });
}
