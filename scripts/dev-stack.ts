/**
 * `npm start`: PostgreSQL, the Temporal dev server (SQLite under .data/, Web UI on 8233), migrations,
 * demo data, then the worker and the API on port 3000. Every line is prefixed with the part that
 * wrote it; Ctrl-C stops everything in reverse order.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiEntry, apiProcessCount } from './lib/api-entry.js';
import { startPrefixed, stop, waitFor, type Managed } from './lib/processes.js';
import {
  createDatabaseIfMissing,
  dataDir,
  databaseUrl,
  ensurePostgres,
  PG_PORT,
  portOpen,
  projectRoot,
  startTemporal,
} from './lib/services.js';

const TEMPORAL_PORT = 7233;
const TEMPORAL_UI_PORT = 8233;
const API_PORT = Number(process.env.PORT ?? 3000);
const lockFile = join(dataDir, 'stack.pid');

function alreadyRunning(): number | null {
  if (!existsSync(lockFile)) return null;
  const pid = Number(readFileSync(lockFile, 'utf8'));
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

const managed: Managed[] = [];
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    console.log('[stack] stopping…');
    for (const service of [...managed].reverse()) await stop(service);
    rmSync(lockFile, { force: true });
    console.log('[stack] stopped');
  }
  process.exit(code);
}

async function main() {
  mkdirSync(dataDir, { recursive: true });
  const running = alreadyRunning();
  if (running) {
    console.error(
      `[stack] the stack is already running (pid ${running}): API http://localhost:${API_PORT}, ` +
        `Temporal UI http://localhost:${TEMPORAL_UI_PORT}. Stop it with Ctrl-C in its terminal (or kill ${running}).`,
    );
    process.exit(1);
  }
  for (const [port, what] of [
    [API_PORT, 'the API'],
    [TEMPORAL_PORT, 'Temporal'],
  ] as const) {
    if (await portOpen(port)) {
      console.error(
        `[stack] port ${port} (${what}) is already in use by another program; free it and run npm start again.`,
      );
      process.exit(1);
    }
  }
  writeFileSync(lockFile, String(process.pid));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(0));

  const postgres = await ensurePostgres({ port: PG_PORT });
  if (postgres.process) managed.push(postgres.process);
  const database = process.env.DATABASE_URL
    ? new URL(process.env.DATABASE_URL).pathname.slice(1)
    : 'busbooking';
  await createDatabaseIfMissing(postgres.serverUrl, database);
  const env = {
    ...process.env,
    PATH: `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    DATABASE_URL: process.env.DATABASE_URL ?? databaseUrl(postgres.serverUrl, database),
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? `127.0.0.1:${TEMPORAL_PORT}`,
    PORT: String(API_PORT),
  };

  if (!process.env.TEMPORAL_ADDRESS) {
    managed.push(
      await startTemporal({
        port: TEMPORAL_PORT,
        uiPort: TEMPORAL_UI_PORT,
        dbFile: join(dataDir, 'temporal', 'dev.db'),
      }),
    );
  }

  const node = process.execPath;
  const tsx = ['--import', 'tsx'];
  const seed = spawnSync(node, [...tsx, 'scripts/seed.ts'], { cwd: projectRoot, env, stdio: 'inherit' });
  if (seed.status !== 0) throw new Error('migrations or demo data failed');

  const worker = startPrefixed('worker', node, [...tsx, 'worker/main.ts'], { cwd: projectRoot, env });
  // API_PROCESSES (default one per core) API processes share the port; the seed above ran once.
  const api = startPrefixed('api', node, [...tsx, apiEntry(env)], { cwd: projectRoot, env });
  managed.push(worker, api);
  for (const child of [worker, api]) {
    void child.exited.then((code) => {
      if (!stopping) {
        console.error(`[stack] ${child.name} exited (code ${code}); stopping the stack`);
        void shutdown(1);
      }
    });
  }
  await waitFor('the API', () => portOpen(API_PORT), 60_000);
  console.log(
    `[stack] ready: API http://localhost:${API_PORT}/api (${apiProcessCount(env)} processes) · docs http://localhost:${API_PORT}/docs · ` +
      `Temporal UI http://localhost:${TEMPORAL_UI_PORT} · demo identities: npm run --silent demo:accounts · Ctrl-C stops`,
  );
}

main().catch((error: Error) => {
  console.error(`[stack] ${error.message}`);
  void shutdown(1);
});
