import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig, type Config } from '../../../config/index.js';
import { connectTemporalClient } from '../../../config/temporal.js';
import { initDatabase, migrate, type Database } from '../../../db/orm.js';
import type { Managed } from '../../../scripts/lib/processes.js';
import { freePort, projectRoot, startTemporal } from '../../../scripts/lib/services.js';
import { testAppAt, type TestApp } from '../../support/harness.js';
import { drillPortBase, spawnChild, stopChild, type DrillChild } from './child.js';
import { DrillPostgres } from './postgres.js';

/**
 * One drill's own world, all real processes: a throwaway PostgreSQL cluster, a Temporal dev
 * server keeping its state in a SQLite file (so it can be killed and restarted with it), and the
 * API and the worker as child processes started as `npm start` starts them. The test process
 * builds data through its own pool and calls the API over HTTP (stack.app).
 */
export interface DrillStack {
  postgres: DrillPostgres;
  config: Config;
  db: Database;
  temporal: Client;
  app: TestApp;
  /** The environment the API and worker children run with. */
  env: NodeJS.ProcessEnv;
  api: DrillChild;
  worker: DrillChild | undefined;
  /** Starts another API process (same port) once the last one exited. */
  startApi(): Promise<DrillChild>;
  startWorker(): Promise<DrillChild>;
  killTemporal(): Promise<void>;
  startTemporal(): Promise<void>;
  close(): Promise<void>;
}

export interface DrillStackOptions {
  /** Settings of the API and the worker (TIME_SCALE, SHUTDOWN_GRACE_MS...). */
  env?: Record<string, string>;
  withWorker?: boolean;
}

/** Starts the stack into `stack` (useDrillStack's handle, so restarted parts show through it). */
export async function startDrillStack(
  options: DrillStackOptions = {},
  stack = {} as DrillStack,
): Promise<DrillStack> {
  const postgres = await DrillPostgres.create();
  const databaseUrl = await postgres.createDatabase('drill');
  const temporalFolder = mkdtempSync(join(tmpdir(), 'drill-temporal-'));
  const temporalPort = await freePort(drillPortBase(7600), 40);
  const startServer = () =>
    startTemporal({ port: temporalPort, dbFile: join(temporalFolder, 'temporal.db') });
  let temporalServer: Managed = await startServer();
  const apiPort = await freePort(drillPortBase(3600), 40);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_MAX: '4',
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    ...options.env,
  };
  const config = loadConfig(env);
  const db = await initDatabase({ ...config, DATABASE_POOL_MAX: 4 });
  await migrate(db);
  let connection: Connection | undefined;

  // Started as `npm start` starts them; ready once they log that they are.
  const startPart = async (part: 'api' | 'worker', script: string, ready: RegExp) => {
    const child = spawnChild(part, process.execPath, ['--import', 'tsx', script], { env, cwd: projectRoot });
    stack[part] = child;
    await child.waitForLine(ready, 120_000);
    return child;
  };
  const startWorker = () => startPart('worker', 'worker/main.ts', /"msg":"worker started"/);
  const startApi = () => startPart('api', 'api/server.ts', /"msg":"api listening"/);

  try {
    const temporal = await connectTemporalClient(config);
    connection = temporal.connection;
    Object.assign(stack, {
      postgres,
      config,
      db,
      env,
      temporal: temporal.client,
      app: testAppAt({ config, db, temporal: temporal.client, baseUrl: `http://127.0.0.1:${apiPort}` }),
      worker: undefined,
      startApi,
      startWorker,
      async killTemporal() {
        temporalServer.child.kill('SIGKILL');
        await temporalServer.exited;
      },
      async startTemporal() {
        temporalServer = await startServer();
      },
      async close() {
        for (const child of [stack.api, stack.worker]) if (child) await stopChild(child, 'SIGKILL');
        await connection?.close().catch(() => undefined);
        temporalServer.child.kill('SIGKILL');
        await temporalServer.exited;
        await db.close().catch(() => undefined);
        await postgres.destroy();
        rmSync(temporalFolder, { recursive: true, force: true });
      },
    } satisfies Omit<DrillStack, 'api'>);
    await Promise.all([startApi(), options.withWorker === false ? undefined : startWorker()]);
    return stack;
  } catch (error) {
    if (stack.close) await stack.close();
    else await postgres.destroy();
    throw error;
  }
}

/** The drill stack of one test file: started before its tests, everything stopped after them. */
export function useDrillStack(options: DrillStackOptions = {}): DrillStack {
  const handle = {} as DrillStack;
  beforeAll(async () => {
    await startDrillStack(options, handle);
  }, 240_000);
  afterAll(async () => {
    await handle.close?.();
  }, 60_000);
  return handle;
}
