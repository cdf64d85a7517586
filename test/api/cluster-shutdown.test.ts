import { request } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { spawnChild, stopChild, type DrillChild } from '../drills/support/child.js';
import { eventually, waitUntil } from '../support/journeys.js';
import { childrenOf } from '../support/processes.js';

/**
 * API_PROCESSES=2 stopped (SIGTERM): the primary is the process a deployment signals and watches,
 * so its exit code says how its processes stopped. README "Stopping": exit 0 once the requests
 * finished; after SHUTDOWN_GRACE_MS the rest is cut off and the API exits 1.
 */
const root = join(import.meta.dirname, '..', '..');
const GRACE_MS = 2_000;

/** One GET on a connection of its own: its status, or 'cut off' when the connection closes unanswered. */
function get(port: number, path: string): Promise<number | 'cut off'> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve('cut off'));
    });
    req.on('error', () => resolve('cut off'));
    req.end();
  });
}

async function startCluster(): Promise<{ api: DrillChild; port: number }> {
  const port = await freePort(4600, 100);
  const api = spawnChild('api-cluster', process.execPath, ['--import', 'tsx', 'api/cluster.ts'], {
    cwd: root,
    env: {
      ...process.env,
      API_PROCESSES: '2',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_POOL_MAX: '4',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      LOG_LEVEL: 'info',
    },
  });
  await api.waitForLine(/"msg":"api processes listening"/, 60_000);
  return { api, port };
}

/**
 * Runs `work` while GET /api/cities waits on a lock the test holds on the cities table (its own
 * statement waits, so its process's pool has a connection checked out); the lock goes at the end.
 */
async function withCitiesBlocked(
  port: number,
  work: (inFlight: Promise<number | 'cut off'>) => Promise<void>,
) {
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    await db.query('begin');
    await db.query('lock table cities in access exclusive mode');
    const inFlight = get(port, '/api/cities');
    await waitUntil(
      async () =>
        (
          await db.query<{ n: number }>(
            `select count(*)::int as n from pg_locks where relation = 'cities'::regclass and not granted`,
          )
        ).rows[0]!.n,
      (waiting) => waiting > 0,
      10_000,
      'the in-flight request to wait on the cities lock',
    );
    await work(inFlight);
  } finally {
    await db.query('rollback').catch(() => undefined);
    await db.end();
  }
}

describe('API_PROCESSES=2 stopped with SIGTERM', () => {
  it('a request whose statement still waits after SHUTDOWN_GRACE_MS is cut off; the processes exit on time and the primary exits 1', async () => {
    const { api, port } = await startCluster();
    try {
      await withCitiesBlocked(port, async (inFlight) => {
        const signalled = Date.now();
        api.child.kill('SIGTERM');
        const exit = await Promise.race([
          api.exited,
          new Promise((resolve) => setTimeout(() => resolve('still running'), GRACE_MS + 4_000)),
        ]);
        const tookMs = Date.now() - signalled;
        expect(exit, `took ${tookMs} ms`).toEqual({ code: 1, signal: null });
        expect(tookMs).toBeGreaterThanOrEqual(GRACE_MS - 200);
        expect(await inFlight).toBe('cut off');
        expect(api.lines.some((line) => line.includes('"msg":"shutdown grace over; requests cut off"'))).toBe(
          true,
        );
        expect(api.lines.filter((line) => line.includes('"msg":"api stopped"'))).toHaveLength(2);
      });
    } finally {
      await stopChild(api, 'SIGKILL');
    }
  }, 90_000);

  it('a process killed while it drains makes the primary exit 1, not 0', async () => {
    const { api, port } = await startCluster();
    try {
      await withCitiesBlocked(port, async () => {
        api.child.kill('SIGTERM');
        // The process without a request stops at once; the one draining the request is killed.
        const left = await eventually(
          async () => childrenOf(api.pid),
          (pids) => pids.length === 1,
          GRACE_MS - 500,
        );
        expect(left).toHaveLength(1);
        expect(api.lines.filter((line) => line.includes('"msg":"api stopped"'))).toHaveLength(1);
        process.kill(left[0]!, 'SIGKILL');
        expect(await api.exited).toEqual({ code: 1, signal: null });
      });
    } finally {
      await stopChild(api, 'SIGKILL');
    }
  }, 90_000);
});
