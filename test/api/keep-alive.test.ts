import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { freePort } from '../../scripts/lib/services.js';
import { drillPortBase, spawnChild, stopChild, type DrillChild } from '../drills/support/child.js';

/**
 * README "Production", "Idle connections": a load balancer keeps its idle connections to the API for
 * its own idle timeout (AWS ALB, nginx: 60 s) and sends later requests on them. Node closed an idle
 * kept-alive connection after 5 s (6 s with its buffer), so the balancer's next request on one could
 * meet the close and its client got a 502. Every API process now keeps one
 * HTTP_KEEP_ALIVE_SECONDS (65 by default; 10 here, so the test stays short) and says so in its
 * Keep-Alive header: a connection idle 7 s still serves its next request.
 */
const root = join(import.meta.dirname, '..', '..');
const KEEP_ALIVE_SECONDS = 10;
/** Longer than Node's 5 s (+1 s buffer), shorter than KEEP_ALIVE_SECONDS. */
const IDLE_MS = 7_000;

type Answer = { status: number; keepAlive: string | undefined };

/** One raw HTTP/1.1 connection on which requests go one after another, as a balancer reuses one. */
class KeptAliveConnection {
  private readonly socket: Socket;
  private received = '';
  private waiting: (() => void) | undefined;
  /** Whether the server closed the connection (or it failed). */
  closed = false;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => {
      this.received += chunk;
      this.waiting?.();
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  /** GET `path`: its status and Keep-Alive header, or status 0 when the connection closed first. */
  async get(path: string): Promise<Answer> {
    this.received = '';
    if (!this.closed) this.socket.write(`GET ${path} HTTP/1.1\r\nHost: api\r\n\r\n`);
    for (;;) {
      const answer = this.answer();
      if (answer) return answer;
      if (this.closed) return { status: 0, keepAlive: undefined };
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  /** The whole answer received so far (head and Content-Length bytes of body), if it is whole. */
  private answer(): Answer | undefined {
    const headEnd = this.received.indexOf('\r\n\r\n');
    if (headEnd < 0) return undefined;
    const head = this.received.slice(0, headEnd);
    const length = Number(/^content-length: *(\d+)$/im.exec(head)?.[1] ?? 0);
    if (this.received.length < headEnd + 4 + length) return undefined;
    return {
      status: Number(head.split(' ')[1]),
      keepAlive: /^keep-alive: *(.+)$/im.exec(head)?.[1]?.trim(),
    };
  }

  destroy(): void {
    this.socket.destroy();
  }
}

async function startApi(
  entry: 'api/server.ts' | 'api/cluster.ts',
): Promise<{ api: DrillChild; port: number }> {
  const port = await freePort(drillPortBase(entry === 'api/server.ts' ? 5200 : 5250), 40);
  const api = spawnChild(entry, process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: {
      ...process.env,
      API_PROCESSES: entry === 'api/cluster.ts' ? '2' : '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      HTTP_KEEP_ALIVE_SECONDS: String(KEEP_ALIVE_SECONDS),
      DATABASE_POOL_MAX: '4',
      LOG_LEVEL: 'info',
    },
  });
  return { api, port };
}

describe('an API process behind a load balancer: idle kept-alive connections', { timeout: 90_000 }, () => {
  const started: DrillChild[] = [];
  const connections: KeptAliveConnection[] = [];
  /** Per entry: its connections, each having answered one request, idle since `idleSince`. */
  const idle = new Map<string, { first: Answer[]; opened: KeptAliveConnection[] }>();
  let idleSince = 0;

  beforeAll(async () => {
    // Both launchers at once: API_PROCESSES=1 (api/server.ts) and 2 (api/cluster.ts), whose primary
    // hands new connections to its two processes in turn: one connection each.
    const entries = ['api/server.ts', 'api/cluster.ts'] as const;
    const apis = await Promise.all(entries.map(startApi));
    started.push(...apis.map(({ api }) => api));
    await Promise.all([
      apis[0]!.api.waitForLine(/"msg":"api listening"/, 60_000),
      apis[1]!.api.waitForLine(/"msg":"api processes listening"/, 60_000),
    ]);
    for (const [index, entry] of entries.entries()) {
      const opened = [0, 1].map(() => new KeptAliveConnection(apis[index]!.port));
      connections.push(...opened);
      const first: Answer[] = [];
      for (const connection of opened) first.push(await connection.get('/healthz'));
      idle.set(entry, { first, opened });
    }
    idleSince = Date.now();
  }, 90_000);

  afterAll(async () => {
    for (const connection of connections) connection.destroy();
    await Promise.all(started.map((api) => stopChild(api, 'SIGTERM', 15_000)));
  }, 30_000);

  it.each(['api/server.ts', 'api/cluster.ts'])(
    '%s: a connection idle 7 s, longer than Node keeps one by default, still serves the next request',
    async (entry) => {
      const { first, opened } = idle.get(entry)!;
      expect(first.map((answer) => answer.status)).toEqual([200, 200]);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, idleSince + IDLE_MS - Date.now())));
      const closedWhileIdle = opened.map((connection) => connection.closed);
      const next = [];
      for (const connection of opened) next.push((await connection.get('/healthz')).status);
      expect({ keepAlive: first.map((answer) => answer.keepAlive), closedWhileIdle, next }).toEqual({
        keepAlive: [`timeout=${KEEP_ALIVE_SECONDS}`, `timeout=${KEEP_ALIVE_SECONDS}`],
        closedWhileIdle: [false, false],
        next: [200, 200],
      });
    },
  );
});

describe('HTTP_KEEP_ALIVE_SECONDS', () => {
  it('is 65 by default, and a value outside 1..3600 refuses the start naming the setting', () => {
    expect(loadConfig({}).HTTP_KEEP_ALIVE_SECONDS).toBe(65);
    for (const value of ['0', '3601', '1.5', 'sixty']) {
      expect(() => loadConfig({ HTTP_KEEP_ALIVE_SECONDS: value })).toThrow(/HTTP_KEEP_ALIVE_SECONDS/);
    }
  });
});
