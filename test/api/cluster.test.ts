import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, portOpen } from '../../scripts/lib/services.js';
import { apiEntry } from '../../scripts/lib/api-entry.js';
import { waitUntil } from '../support/journeys.js';
import { namedDatabaseUrl } from '../support/named-connections.js';
import { alive, childrenOf } from '../support/processes.js';

/**
 * API_PROCESSES=2: `api/cluster.ts` runs two real API processes on one port against the run's
 * database and Temporal server. Each request below opens its own connection, so the primary hands
 * them to the two processes in turn.
 */
const root = join(import.meta.dirname, '..', '..');
const SEARCH_LIMIT = 4;
/** The connections the API's processes share (DATABASE_POOL_MAX), and the name their connections carry. */
const POOL_MAX = 4;
const APPLICATION_NAME = `api-cluster-test-${process.pid}`;

const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');

/** One request on a connection of its own (no keep-alive agent). */
function send(port: number, method: string, path: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent: false,
        headers: { 'Content-Type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const post = (port: number, path: string, body: unknown) => send(port, 'POST', path, body);

describe('API_PROCESSES: several API processes on one port', () => {
  let primary: ChildProcess;
  let port: number;
  let exited: Promise<number | null>;
  /** "api listening" lines the processes logged. */
  let listening = 0;

  beforeAll(async () => {
    port = await freePort(3900, 100);
    const env = {
      ...process.env,
      API_PROCESSES: '2',
      PORT: String(port),
      HOST: '127.0.0.1',
      SEARCH_RATE_LIMIT_PER_MINUTE: String(SEARCH_LIMIT),
      DATABASE_URL: namedDatabaseUrl(APPLICATION_NAME),
      DATABASE_POOL_MAX: String(POOL_MAX),
      LOG_LEVEL: 'info',
    };
    expect(apiEntry(env)).toBe('api/cluster.ts');
    expect(apiEntry({ ...env, API_PROCESSES: '1' })).toBe('api/server.ts');
    primary = spawn(process.execPath, ['--import', 'tsx', apiEntry(env)], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    exited = new Promise((resolve) => primary.on('exit', (code) => resolve(code)));
    createInterface({ input: primary.stdout! }).on('line', (line) => {
      if (line.includes('"api listening"')) listening += 1;
    });
    await waitUntil(
      async () => listening,
      (count) => count === 2,
      50_000,
      'both API processes to listen',
    );
    expect(await portOpen(port)).toBe(true);
  }, 60_000);

  afterAll(async () => {
    if (primary.exitCode === null && primary.signalCode === null) {
      primary.kill('SIGKILL');
      await exited;
    }
  });

  it('runs two api/server.ts processes under the primary, and the API answers', async () => {
    const workers = childrenOf(primary.pid!);
    expect(workers).toHaveLength(2);
    for (const pid of workers) expect(commandLine(pid)).toContain('api/server.ts');
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  });

  it('a per-IP limit counts across both processes: the limit holds, not twice the limit', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < SEARCH_LIMIT * 2; index += 1) {
      statuses.push(await post(port, '/api/journeys/search', {}));
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(SEARCH_LIMIT);
    expect(statuses.slice(0, SEARCH_LIMIT).every((status) => status === 400)).toBe(true);
  });

  it('the processes share DATABASE_POOL_MAX connections to PostgreSQL, not that many each', async () => {
    // Readiness probes (a statement each) from 32 clients at once, on connections of their own, so
    // both processes' pools grow as far as they may; idle connections stay open for 10 s after.
    const probes = Array.from({ length: 400 }, () => '/readyz');
    const statuses: number[] = [];
    const client = async () => {
      for (let path = probes.pop(); path; path = probes.pop()) statuses.push(await send(port, 'GET', path));
    };
    await Promise.all(Array.from({ length: 32 }, client));
    expect(statuses.every((status) => status === 200)).toBe(true);

    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ connections: number }>(
        'select count(*)::int as connections from pg_stat_activity where application_name = $1',
        [APPLICATION_NAME],
      );
      // Two processes with two connections each at the most (four each before: eight in all).
      expect(rows[0]!.connections).toBeGreaterThan(0);
      expect(rows[0]!.connections).toBeLessThanOrEqual(POOL_MAX);
    } finally {
      await db.end();
    }
  });

  it('a process that dies is replaced; SIGTERM stops the primary and every process', async () => {
    const [victim, survivor] = childrenOf(primary.pid!);
    process.kill(victim!, 'SIGKILL');
    const replaced = await waitUntil(
      async () => childrenOf(primary.pid!),
      (pids) => pids.length === 2 && !pids.includes(victim!),
      30_000,
      'the killed process to be replaced (two processes, the killed one gone)',
    );
    expect(replaced).toHaveLength(2);
    expect(replaced).toContain(survivor);
    expect(replaced).not.toContain(victim);
    // The survivor answers at once; the replacement starts listening.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    await waitUntil(
      async () => listening,
      (count) => count === 3,
      40_000,
      "the replacement process to listen (a third 'api listening' line)",
    );
    primary.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(replaced.filter(alive)).toEqual([]);
  }, 60_000);
});
