import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { apiEntry } from '../../scripts/lib/api-entry.js';
import { startPrefixed, stop, waitFor, type Managed } from '../../scripts/lib/processes.js';
import { loadConfig, type Config } from '../../config/index.js';
import {
  databaseUrl,
  freePort,
  PG_PORT,
  postgresServerUrl,
  projectRoot,
  startTemporal,
  throwawayDatabase,
} from '../../scripts/lib/services.js';
import { accountCaps } from '../../api/http/abuse-limits.js';
import { initDatabase, migrate, type Database } from '../../db/orm.js';
import type { AccountCaps } from '../../domain/inventory-caps.js';
import { machineLoad } from './load.js';
import { log } from './settings.js';

/** The secret the API child signs access tokens with; sessions made in this process must use it too. */
export const BENCH_ACCESS_TOKEN_SECRET = 'bench-access-token-secret-0123456789abcdef';

/**
 * The boarding-credential signing key of a run: production takes it only from the environment, and
 * the bare transactions measured in this process sign with the same key.
 */
export const BENCH_SIGNING_KEY_PEM = generateKeyPairSync('ed25519')
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/** The signing options the bare transactions measured in this process pass (the API child's key). */
export const BENCH_SIGNING = { privateKeyPem: BENCH_SIGNING_KEY_PEM };

/**
 * The process that serves requests: the API itself, or with API_PROCESSES > 1 the cluster primary's
 * first worker (from /proc; the primary only hands connections on).
 */
function firstServingProcess(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ');
    return children[0] ? Number(children[0]) : pid;
  } catch {
    return pid;
  }
}

/**
 * Until the API serves: its port answers and, with API_PROCESSES > 1, the cluster primary reports every
 * process listening (on stderr), so a measurement never starts with one process still loading.
 */
async function untilServing(api: Managed, port: number): Promise<void> {
  let all = !api.child.spawnargs.some((arg) => arg.endsWith('api/cluster.ts'));
  if (!all && api.child.stderr) {
    createInterface({ input: api.child.stderr }).on('line', (line) => {
      if (line.includes('"api processes listening"')) all = true;
    });
  }
  // Other programs on a shared machine take ports too: ready means this API's own process listens.
  await waitFor('the API', async () => all && listensOn(api.child.pid!, port), 90_000);
}

/** Whether process `pid` holds the listening TCP socket of `port` (from /proc; true where /proc is missing). */
function listensOn(pid: number, port: number): boolean {
  let inodes: string[];
  try {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    inodes = ['/proc/net/tcp', '/proc/net/tcp6']
      .flatMap((file) => readFileSync(file, 'utf8').split('\n').slice(1))
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A')
      .map((fields) => `socket:[${fields[9]}]`);
    const fds = readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    });
    return inodes.some((inode) => fds.includes(inode));
  } catch {
    return existsSync('/proc/net/tcp') ? false : true;
  }
}

/**
 * The configuration the in-process world builders use, for the benchmark database `database`: the
 * API child's token secret, development mode.
 */
export function benchConfig(database: string): Config {
  return loadConfig({
    DATABASE_URL: databaseUrl(postgresServerUrl(PG_PORT), database),
    ACCESS_TOKEN_SECRET: BENCH_ACCESS_TOKEN_SECRET,
    SIGNING_PRIVATE_KEY_PEM: BENCH_SIGNING_KEY_PEM,
    NODE_ENV: 'development',
  });
}

export interface BenchStack {
  db: Database;
  databaseUrl: string;
  apiUrl: string;
  /** The first process serving the API (a cluster worker when API_PROCESSES > 1), to read its memory from /proc. */
  apiPid: number;
  /** Environment the API child runs with (for extra children such as a worker). */
  env: NodeJS.ProcessEnv;
  /** The per-account caps the API enforces, for bare transactions that run the same checks. */
  caps: AccountCaps;
  /** Starts one more API process with some settings changed (stopped with the stack). */
  startApi(changes: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

/**
 * The API runs in the benchmark's session, as the raw baseline, the HTTP floor and wrk do: Linux
 * gives each session its own scheduling group (autogroup), and the same API measured 3-6% slower in a
 * session of its own than beside them (bench:search-compare of one commit against itself, 2026-12-03).
 */
const IN_BENCH_SESSION = { detached: false };

/**
 * PostgreSQL (reused or private), a benchmark database (kept between runs unless `fresh`), a headless
 * Temporal dev server, and the real API in its own process, so the load generator in this process
 * does not share an event loop with the server it measures.
 */
export async function startBenchStack(options: {
  database: string;
  /** Drop the database first, so the run starts empty (else it persists between runs). */
  fresh?: boolean;
  prepare?: (db: Database) => Promise<void>;
  env?: Record<string, string>;
  withWorker?: boolean;
}): Promise<BenchStack> {
  const managed: Managed[] = [];
  // BENCH_CPU_PROFILE=<dir>: the API and worker write V8 CPU profiles there when they stop.
  const profiling = process.env.BENCH_CPU_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`]
    : [];
  const { databaseUrl: url } = await throwawayDatabase(options.database, managed, { fresh: options.fresh });
  const db = await initDatabase({ DATABASE_URL: url, DATABASE_POOL_MAX: 6 });
  await migrate(db);
  await options.prepare?.(db);
  const temporalPort = await freePort(7300, 100);
  managed.push(await startTemporal({ port: temporalPort }));
  const apiPort = await freePort(3300, 100);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    NODE_ENV: 'production',
    ACCESS_TOKEN_SECRET: BENCH_ACCESS_TOKEN_SECRET,
    // Production signs boarding credentials only with a key from the environment.
    SIGNING_PRIVATE_KEY_PEM: BENCH_SIGNING_KEY_PEM,
    // Phone sign-in is not measured here; production refuses to start without a provider otherwise.
    OTP_PRELAUNCH: 'true',
    // Production builds its e-mail links on an https origin and sends from a real domain (none is sent here).
    PUBLIC_ORIGIN: 'https://bench.bus-booking.example',
    MAIL_FROM: 'no-reply@bench.bus-booking.example',
    // A few bench accounts make thousands of bookings: the per-account caps and hourly limits stay on
    // (their checks are part of every measured write) but far above what one load generator reaches.
    HELD_SEATS_MAX_PER_TRIP: '100000',
    HELD_SEATS_MAX_TOTAL: '1000000',
    UNPAID_BOOKINGS_MAX: '1000000',
    SEAT_LOCK_RATE_LIMIT_PER_HOUR: '10000000',
    JOURNEY_HOLD_RATE_LIMIT_PER_HOUR: '10000000',
    BOOKING_RATE_LIMIT_PER_HOUR: '10000000',
    LOG_LEVEL: 'info',
    DATABASE_URL: url,
    DATABASE_POOL_MAX: '6',
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    ...options.env,
  };
  if (options.withWorker) {
    managed.push(
      startPrefixed('worker', process.execPath, [...profiling, '--import', 'tsx', 'worker/main.ts'], {
        cwd: projectRoot,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
  }
  // The API's request log goes to /dev/null: it is written (the cost is measured) but not shown.
  const startApi = async (changes: Record<string, string>) => {
    const port = await freePort(apiPort + 1, 100);
    const apiEnv = { ...env, ...changes, PORT: String(port) };
    const api = startPrefixed('api', process.execPath, [...profiling, '--import', 'tsx', apiEntry(apiEnv)], {
      cwd: projectRoot,
      env: apiEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
      ...IN_BENCH_SESSION,
    });
    managed.push(api);
    await untilServing(api, port);
    return `http://127.0.0.1:${port}`;
  };
  // API_PROCESSES API processes (default one per core); API_PROCESSES=1 is the single api/server.ts.
  const api = startPrefixed('api', process.execPath, [...profiling, '--import', 'tsx', apiEntry(env)], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    ...IN_BENCH_SESSION,
  });
  managed.push(api);
  await untilServing(api, apiPort);
  return {
    db,
    databaseUrl: url,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    apiPid: firstServingProcess(api.child.pid!),
    env,
    caps: accountCaps({
      HELD_SEATS_MAX_PER_TRIP: Number(env.HELD_SEATS_MAX_PER_TRIP),
      HELD_SEATS_MAX_TOTAL: Number(env.HELD_SEATS_MAX_TOTAL),
      UNPAID_BOOKINGS_MAX: Number(env.UNPAID_BOOKINGS_MAX),
    }),
    startApi,
    async close() {
      for (const service of managed.reverse()) await stop(service);
      await db.close();
    },
  };
}

/**
 * One measured run: `prepare` builds the world in the benchmark database before the API starts,
 * `measure` runs against the stack; the stack is stopped whatever happens, then the machine's load
 * is printed (a busy machine explains a slow run).
 */
export async function runOnBenchStack<World>(
  options: {
    database: string;
    fresh?: boolean;
    prepare: (db: Database) => Promise<World>;
    env?: Record<string, string>;
    withWorker?: boolean;
  },
  measure: (stack: BenchStack, world: World) => Promise<void>,
): Promise<void> {
  let world: World | undefined;
  const stack = await startBenchStack({
    ...options,
    prepare: async (db) => {
      world = await options.prepare(db);
    },
  });
  try {
    await measure(stack, world!);
  } finally {
    await stack.close();
  }
  log(machineLoad());
}
