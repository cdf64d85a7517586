import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { spawnChild, stopChild, type DrillChild } from '../drills/support/child.js';
import { eventually, waitUntil } from '../support/journeys.js';
import { alive, childrenOf } from '../support/processes.js';

/**
 * The API's processes while PostgreSQL does not answer. The API reaches PostgreSQL through a TCP
 * relay this test controls, so PostgreSQL "goes away" for the API alone (connections refused, open
 * ones reset) without touching the run's server; the relay can also answer every new connection
 * with a refusal PostgreSQL would give a wrong setting (SQLSTATE 28P01, password authentication
 * failed). README "A dependency down" and "Processes".
 */
const root = join(import.meta.dirname, '..', '..');

type RelayMode = 'up' | 'down' | 'refusing';

/** A TCP relay to PostgreSQL: passing through, down (refusing and resetting), or refusing logins. */
class Relay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private mode: RelayMode = 'down';
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  /** The API's DATABASE_URL: the run's database through this relay. */
  url(): string {
    const url = new URL(process.env.DATABASE_URL!);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async set(mode: RelayMode): Promise<void> {
    this.mode = mode;
    if (mode === 'down') {
      const server = this.server;
      this.server = null;
      for (const socket of this.sockets) socket.destroy();
      if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
      return;
    }
    if (this.server) return;
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  private accept(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    if (this.mode === 'refusing') {
      // The startup message is answered with an ErrorResponse, as a wrong password is.
      client.once('data', () => client.end(errorResponse('28P01', 'password authentication failed')));
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.on('error', () => undefined);
    client.pipe(upstream).pipe(client);
  }
}

/** A PostgreSQL ErrorResponse message (severity FATAL). */
function errorResponse(sqlState: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlState}\0M${message}\0\0`);
  const header = Buffer.alloc(5);
  header.write('E');
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

async function newRelay(): Promise<Relay> {
  const target = new URL(process.env.DATABASE_URL!);
  const relay = new Relay(await freePort(26_400, 100), {
    host: target.hostname || '127.0.0.1',
    port: Number(target.port || 5432),
  });
  await relay.set('up');
  return relay;
}

/** Status and Retry-After of one request on a connection of its own; status 0 when nothing answers. */
async function ask(port: number, path: string): Promise<{ status: number; retryAfter: string | null }> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      headers: { Connection: 'close' },
      signal: AbortSignal.timeout(5_000),
    });
    await response.arrayBuffer();
    return { status: response.status, retryAfter: response.headers.get('retry-after') };
  } catch {
    return { status: 0, retryAfter: null };
  }
}

const statusOf = async (port: number, path: string) => (await ask(port, path)).status;

/** How many lines of `api` match `pattern` (the processes log to stdout, the primary to stderr). */
const count = (api: DrillChild, pattern: RegExp) => api.lines.filter((line) => pattern.test(line)).length;
const LISTENING = /"msg":"api listening"/;

async function startApi(entry: 'api/cluster.ts' | 'api/server.ts', databaseUrl: string, name: string) {
  const port = await freePort(4200, 100);
  const api = spawnChild(name, process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: {
      ...process.env,
      API_PROCESSES: entry === 'api/cluster.ts' ? '2' : '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_MAX: '4',
      LOG_LEVEL: 'info',
    },
  });
  return { api, port };
}

describe('API_PROCESSES=2 while PostgreSQL does not answer', () => {
  let relay: Relay;
  let api: DrillChild;
  let port: number;

  beforeAll(async () => {
    relay = await newRelay();
    ({ api, port } = await startApi('api/cluster.ts', relay.url(), 'api-cluster'));
    await api.waitForLine(/"msg":"api processes listening"/, 60_000);
    expect(await statusOf(port, '/readyz')).toBe(200);
  }, 70_000);

  afterAll(async () => {
    await relay.set('up');
    await stopChild(api, 'SIGTERM', 15_000);
    await relay.set('down');
  }, 40_000);

  it('a process that dies during the outage is replaced; the other keeps answering, and the API is ready again once PostgreSQL is back', async () => {
    const [victim, survivor] = childrenOf(api.pid);
    await relay.set('down');
    expect(await ask(port, '/api/cities')).toEqual({ status: 503, retryAfter: '5' });

    process.kill(victim!, 'SIGKILL');
    // The replacement starts and listens while PostgreSQL is still away.
    await waitUntil(
      async () => count(api, LISTENING),
      (listened) => listened === 3,
      30_000,
      "the replacement process to listen while PostgreSQL is away (3 'api listening' lines)",
    );
    expect({
      primaryRunning: api.running(),
      survivorAlive: alive(survivor!),
      processes: childrenOf(api.pid).length,
      healthz: await statusOf(port, '/healthz'),
      readyz: await statusOf(port, '/readyz'),
    }).toEqual({ primaryRunning: true, survivorAlive: true, processes: 2, healthz: 200, readyz: 503 });
    // Both processes (each request on a connection of its own, handed out in turn) answer 503.
    const during = await Promise.all([1, 2, 3, 4].map(() => ask(port, '/api/cities')));
    expect(during.every((answer) => answer.status === 503 && answer.retryAfter === '5')).toBe(true);

    await relay.set('up');
    expect(
      await eventually(
        () => statusOf(port, '/readyz'),
        (status) => status === 200,
        20_000,
      ),
    ).toBe(200);
    const after = await Promise.all([1, 2, 3, 4].map(() => statusOf(port, '/api/cities')));
    expect(after).toEqual([200, 200, 200, 200]);
  }, 80_000);

  it('a replacement that fails at start-up is tried again after a growing pause, while the other process serves', async () => {
    const [victim, survivor] = childrenOf(api.pid);
    const listenedBefore = count(api, LISTENING);
    const retry = /"msg":"api process failed at start-up; starting another after a pause"/;
    await relay.set('refusing');
    process.kill(victim!, 'SIGKILL');
    await waitUntil(
      async () => count(api, retry),
      (failed) => failed >= 3,
      40_000,
      '3 failed start-ups of the replacement',
    );
    const pauses = api.lines
      .filter((line) => retry.test(line))
      .map((line) => (JSON.parse(line) as { retryInMs: number }).retryInMs);
    expect(pauses.slice(0, 3)).toEqual([1000, 2000, 4000]);
    expect({
      primaryRunning: api.running(),
      survivorAlive: alive(survivor!),
      healthz: await statusOf(port, '/healthz'),
    }).toEqual({ primaryRunning: true, survivorAlive: true, healthz: 200 });

    await relay.set('up');
    await waitUntil(
      async () => count(api, LISTENING),
      (listened) => listened === listenedBefore + 1,
      40_000,
      'the replacement to listen once PostgreSQL is back',
    );
    expect(childrenOf(api.pid)).toHaveLength(2);
    expect(await statusOf(port, '/readyz')).toBe(200);
  }, 90_000);
});

describe('API_PROCESSES=2 whose processes cannot start the first time', () => {
  it('stops every process and exits 1 (a wrong setting: sslmode=require against a server without TLS)', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set('sslmode', 'require');
    const { api } = await startApi('api/cluster.ts', url.toString(), 'api-cluster-misconfigured');
    try {
      const exit = await Promise.race([
        api.exited,
        new Promise((resolve) => setTimeout(() => resolve('still running'), 30_000)),
      ]);
      expect(exit).toEqual({ code: 1, signal: null });
      expect(count(api, /"msg":"api process failed at start-up"/)).toBeGreaterThan(0);
      expect(count(api, LISTENING)).toBe(0);
    } finally {
      await stopChild(api, 'SIGKILL');
    }
  }, 40_000);
});

describe('API_PROCESSES=1 (api/server.ts) started while PostgreSQL does not answer', () => {
  let relay: Relay;
  let api: DrillChild | undefined;

  beforeAll(async () => {
    relay = await newRelay();
    await relay.set('down');
  });

  afterAll(async () => {
    if (api) await stopChild(api, 'SIGTERM', 15_000);
    await relay.set('down');
  }, 30_000);

  it('listens, answers 503 with Retry-After for what needs PostgreSQL, and serves once it is back with no restart', async () => {
    const started = await startApi('api/server.ts', relay.url(), 'api-single');
    api = started.api;
    await api.waitForLine(LISTENING, 60_000);
    expect(await statusOf(started.port, '/healthz')).toBe(200);
    expect(await ask(started.port, '/api/cities')).toEqual({ status: 503, retryAfter: '5' });
    expect(await statusOf(started.port, '/readyz')).toBe(503);

    await relay.set('up');
    expect(
      await eventually(
        () => statusOf(started.port, '/readyz'),
        (status) => status === 200,
        20_000,
      ),
    ).toBe(200);
    expect(await statusOf(started.port, '/api/cities')).toBe(200);
    expect(api.running()).toBe(true);
  }, 80_000);
});
