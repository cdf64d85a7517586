import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { startPrefixed, waitFor, type Managed } from './processes.js';
import { alignSearchAttributes } from './search-attributes.js';

export const projectRoot = resolve(import.meta.dirname, '..', '..');
export const dataDir = join(projectRoot, '.data');

/** BookingId is a keyword list: every id of a booking (workflows/shared.ts searchAttributeKeys). */
export const SEARCH_ATTRIBUTES = ['CompanyId=KeywordList', 'BookingId=KeywordList', 'ProcessStatus=Keyword'];

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

/**
 * Ports that fetch refuses to connect to ("bad port", https://fetch.spec.whatwg.org/#port-blocking).
 * Tests and benchmarks call the API with fetch, so it must never listen on one: the drills once drew
 * 3659 (3600 + 50 per vitest pool + 0..9).
 */
const FETCH_BLOCKED_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The first port from `from` on that nothing listens on and fetch may call (of `tries` ports). */
export async function freePort(from: number, tries: number): Promise<number> {
  for (let port = from; port < from + tries; port++) {
    if (!FETCH_BLOCKED_PORTS.has(port) && !(await portOpen(port))) return port;
  }
  throw new Error(`no free port near ${from}`);
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function postgresBinDir(): string {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base))
    throw new Error('PostgreSQL is not installed (the bootstrap installs it when DATABASE_URL is unset)');
  const versions = readdirSync(base)
    .filter((name) => existsSync(join(base, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return join(base, versions[0], 'bin');
}

const isRoot = process.getuid?.() === 0;

/** initdb and postgres refuse to run as root; as root we run them as the postgres system user. */
export function asServiceUser(command: string, args: string[]): [string, string[]] {
  return isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * Where the private cluster lives: .data/pg, or, when run as root (the server then runs as the
 * postgres user, who may not be allowed into the project folder, e.g. a 0700 checkout), a folder
 * of the postgres user's own named after this checkout.
 */
function clusterPaths(): { clusterDir: string; socketDir: string } {
  if (!isRoot) return { clusterDir: join(dataDir, 'pg'), socketDir: join(dataDir, 'pg-socket') };
  const checkout = createHash('sha1').update(projectRoot).digest('hex').slice(0, 12);
  const base = join('/var/lib/postgresql', `bus-booking-${checkout}`);
  return { clusterDir: join(base, 'data'), socketDir: join(base, 'socket') };
}

export interface PostgresHandle {
  /** URL of the server's maintenance database (postgres); swap the path for another database. */
  serverUrl: string;
  process?: Managed;
}

/**
 * The maintenance database's URL of the server ensurePostgres uses: the one DATABASE_URL names, else
 * the project's on `port`. Known before that server runs.
 */
export function postgresServerUrl(port: number): string {
  if (!process.env.DATABASE_URL) return `postgres://postgres@127.0.0.1:${port}/postgres`;
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = '/postgres';
  return url.toString();
}

/**
 * Uses the server named by DATABASE_URL, or one already answering on the project's port, or
 * starts a private cluster in .data/pg (created on first use).
 */
export async function ensurePostgres(options: { port: number; fast?: boolean }): Promise<PostgresHandle> {
  const serverUrl = postgresServerUrl(options.port);
  if (process.env.DATABASE_URL || (await answers(serverUrl))) return { serverUrl };

  const bin = postgresBinDir();
  const { clusterDir, socketDir } = clusterPaths();
  mkdirSync(socketDir, { recursive: true });
  if (isRoot) execFileSync('chown', ['-R', 'postgres:postgres', join(clusterDir, '..')]);
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    mkdirSync(clusterDir, { recursive: true });
    if (isRoot) execFileSync('chown', ['-R', 'postgres:postgres', clusterDir]);
    const [command, args] = asServiceUser(join(bin, 'initdb'), [
      '-D',
      clusterDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C.UTF-8',
    ]);
    const result = spawnSync(command, args, { stdio: 'pipe', encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`initdb failed: ${result.stderr}`);
  }
  const settings = [
    '-p',
    String(options.port),
    '-k',
    socketDir,
    '-h',
    '127.0.0.1',
    '-c',
    'max_connections=300',
    '-c',
    'shared_buffers=512MB',
    '-c',
    'log_min_messages=warning',
    '-c',
    'log_min_error_statement=panic',
    '-c',
    'log_checkpoints=off',
  ];
  if (options.fast)
    settings.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const [command, args] = asServiceUser(join(bin, 'postgres'), ['-D', clusterDir, ...settings]);
  const process_ = startPrefixed('postgres', command, args);
  await waitFor('PostgreSQL', () => answers(serverUrl), 60_000);
  return { serverUrl, process: process_ };
}

/** The port of the project's PostgreSQL for `npm start`, `npm test` and the benchmarks (PG_PORT). */
export const PG_PORT = Number(process.env.PG_PORT ?? 54329);

/**
 * A throwaway run's database (tests, benchmarks): PostgreSQL on PG_PORT, reused when one answers,
 * else a private cluster without durability (pushed to `managed` for the caller to stop), and
 * `database` created in it when missing (dropped first with `fresh`, so the run starts empty).
 */
export async function throwawayDatabase(
  database: string,
  managed: Managed[],
  options: { fresh?: boolean } = {},
): Promise<PostgresHandle & { databaseUrl: string }> {
  const postgres = await ensurePostgres({ port: PG_PORT, fast: true });
  if (postgres.process) managed.push(postgres.process);
  if (options.fresh) await dropDatabase(postgres.serverUrl, database);
  await createDatabaseIfMissing(postgres.serverUrl, database);
  return { ...postgres, databaseUrl: databaseUrl(postgres.serverUrl, database) };
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function createDatabaseIfMissing(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database "${database}"`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${database}" with (force)`);
  } finally {
    await client.end();
  }
}

export function temporalBinary(): string {
  const local = join(projectRoot, '.tools', 'bin', 'temporal');
  if (existsSync(local)) return local;
  return 'temporal';
}

/**
 * Starts `temporal server start-dev` with the custom search attributes registered. With a
 * dbFile, state persists in SQLite (WAL), and an attribute an older checkout registered with
 * another type is registered again with its own (alignSearchAttributes); without one it lives in
 * memory (test runs).
 */
export async function startTemporal(options: {
  port: number;
  uiPort?: number;
  dbFile?: string;
}): Promise<Managed> {
  if (await portOpen(options.port)) {
    throw new Error(`port ${options.port} is already in use: is another Temporal dev server running?`);
  }
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    'default',
    '--log-level',
    'error',
    ...SEARCH_ATTRIBUTES.flatMap((attribute) => ['--search-attribute', attribute]),
  ];
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.dbFile) {
    mkdirSync(join(options.dbFile, '..'), { recursive: true });
    args.push(
      '--db-filename',
      options.dbFile,
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
    );
  }
  const temporal = startPrefixed('temporal', temporalBinary(), args);
  await waitFor('Temporal dev server', () => portOpen(options.port), 60_000);
  if (options.dbFile) {
    const address = `127.0.0.1:${options.port}`;
    await waitFor('Temporal search attributes', async () => {
      await alignSearchAttributes(temporalBinary(), address, SEARCH_ATTRIBUTES);
      return true;
    });
  }
  return temporal;
}
