import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../config/index.js';
import { createLogger } from '../../config/logger.js';
import { initDatabase, migrate, type Database } from '../../db/orm.js';
import { bundleWorkflows, createWorker } from '../../worker/create-worker.js';

/**
 * Runs once per `vitest run`: applies migrations to the run's test database, bundles the workflow
 * code once (written to a file so test files can start extra workers from it) and runs one real
 * worker on the shared task queue for the whole run.
 */
let db: Database | undefined;
let worker: Worker | undefined;
let running: Promise<void> | undefined;

export default async function setup(project: TestProject) {
  const config = loadConfig();
  if (config.NODE_ENV !== 'test') throw new Error('tests need NODE_ENV=test (run them with `npm test`)');
  db = await initDatabase(config);
  await migrate(db);
  // The worker's state changes are not test output: only its warnings and errors are.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const bundle = await bundleWorkflows();
  const bundleDir = join(import.meta.dirname, '..', '..', '.data', 'test');
  mkdirSync(bundleDir, { recursive: true });
  const bundlePath = join(bundleDir, `workflow-bundle-${process.pid}.js`);
  writeFileSync(bundlePath, bundle.code);
  project.provide('workflowBundlePath', bundlePath);
  const created = await createWorker({
    config,
    db,
    logger: createLogger(config, 'test-worker'),
    workflowBundle: bundle,
  });
  worker = created.worker;
  running = worker
    .run()
    .finally(() => Promise.all([created.browserPool.close(), created.connection.close()]));
  return async () => {
    worker?.shutdown();
    await running;
    await db?.close();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    workflowBundlePath: string;
  }
}
