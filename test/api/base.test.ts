import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import { pino } from 'pino';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createApp } from '../../api/app.js';
import { Refusal } from '../../api/http/errors.js';
import { publicCache, requestLifecycle, responseHeaders } from '../../api/http/middleware.js';
import { createLogger } from '../../config/logger.js';
import { useTestApp } from '../support/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_BODY_BYTES = 64 * 1024;

/** Serves a Koa app on a random port for one test; the caller closes it. */
async function serve(koa: Koa) {
  const server = koa.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    close: () =>
      new Promise<void>((resolve) => server.close(() => resolve())).finally(() =>
        server.closeAllConnections(),
      ),
  };
}

/** A JSON document of exactly `bytes` bytes. */
const jsonOfSize = (bytes: number) =>
  JSON.stringify({ padding: 'x'.repeat(bytes - '{"padding":""}'.length) });

describe('API base', () => {
  const app = useTestApp();

  describe('error envelope and request ids', () => {
    it('answers an unknown route with the 404 envelope and a generated request id', async () => {
      const response = await app.request('/no/such/route');
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body).toEqual({
        success: false,
        errorCode: 'NOT_FOUND',
        message: expect.any(String),
        requestId: expect.stringMatching(UUID),
      });
      expect(response.headers.get('x-request-id')).toBe(response.body.requestId);
    });

    it('gives every request its own id', async () => {
      const [first, second] = await Promise.all([
        app.request('/no/such/route'),
        app.request('/no/such/route'),
      ]);
      expect(first.body.requestId).not.toBe(second.body.requestId);
    });

    it.each(['client-req.0001_abc', 'a'.repeat(8), 'b'.repeat(128)])(
      'echoes a well-formed incoming X-Request-Id (%s)',
      async (requestId) => {
        const response = await app.request('/healthz', { headers: { 'X-Request-Id': requestId } });
        expect(response.headers.get('x-request-id')).toBe(requestId);
        const missing = await app.request('/no/such/route', { headers: { 'X-Request-Id': requestId } });
        expect(missing.body.requestId).toBe(requestId);
        expect(missing.headers.get('x-request-id')).toBe(requestId);
      },
    );

    it.each([
      ['with spaces', 'has spaces in it'],
      ['too long', 'c'.repeat(129)],
      ['too short', 'short'],
      ['with header-like punctuation', 'abc123;injected=1'],
      ['with percent-encoding', 'req%20id%2012345'],
    ])('replaces an incoming X-Request-Id %s', async (_case, requestId) => {
      const response = await app.request('/no/such/route', { headers: { 'X-Request-Id': requestId } });
      expect(response.body.requestId).toMatch(UUID);
      expect(response.headers.get('x-request-id')).toBe(response.body.requestId);
    });
  });

  describe('request bodies', () => {
    const post = (body: BodyInit, contentType?: string, init: RequestInit = {}) =>
      app.request('/api/nowhere', {
        method: 'POST',
        body,
        headers: contentType ? { 'Content-Type': contentType } : {},
        ...init,
      });

    it('refuses a body that is not valid JSON with 400 INVALID_JSON', async () => {
      const response = await post('{"seats": [1, 2', 'application/json');
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        success: false,
        errorCode: 'INVALID_JSON',
        message: expect.any(String),
        requestId: expect.any(String),
      });
    });

    it.each([
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'a=1&b=2'],
      ['multipart/form-data; boundary=x', '--x--'],
    ])('refuses a %s body with 415', async (contentType, body) => {
      const response = await post(body, contentType);
      expect(response.status).toBe(415);
      expect(response.body).toMatchObject({ success: false, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    it('refuses a body over 64 KiB with 413 when Content-Length announces it', async () => {
      const response = await post(jsonOfSize(MAX_BODY_BYTES + 1), 'application/json');
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ success: false, errorCode: 'PAYLOAD_TOO_LARGE' });
    });

    it('refuses a chunked body once it passes 64 KiB', async () => {
      const chunk = new TextEncoder().encode(' '.repeat(16 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent > MAX_BODY_BYTES + chunk.length) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const response = await post(stream, 'application/json', { duplex: 'half' } as RequestInit);
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ success: false, errorCode: 'PAYLOAD_TOO_LARGE' });
    });

    it('reads a body of exactly 64 KiB and goes on to routing', async () => {
      const response = await post(jsonOfSize(MAX_BODY_BYTES), 'application/json; charset=utf-8');
      expect(response.status).toBe(404);
      expect(response.body.errorCode).toBe('NOT_FOUND');
    });

    it('lets a POST without a body through to routing', async () => {
      const response = await app.request('/api/nowhere', { method: 'POST' });
      expect(response.status).toBe(404);
      expect(response.body.errorCode).toBe('NOT_FOUND');
    });
  });

  describe('response headers', () => {
    const expectBaseHeaders = (headers: Headers) => {
      expect(headers.get('vary')).toBe('Origin, Authorization, Cookie');
      expect(headers.get('x-content-type-options')).toBe('nosniff');
    };

    it.each([
      ['a successful private answer', '/healthz', {}, 200],
      ['a 404', '/no/such/route', {}, 404],
      [
        'a 400',
        '/api/nowhere',
        { method: 'POST', body: '{', headers: { 'Content-Type': 'application/json' } },
        400,
      ],
      ['a 401', '/api/routes/popular', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } }, 401],
    ])(
      '%s is private, no-store and varies on Origin, Authorization and Cookie',
      async (_case, path, init: RequestInit, status) => {
        const response = await app.request(path, init);
        expect(response.status).toBe(status);
        expectBaseHeaders(response.headers);
        expect(response.headers.get('cache-control')).toBe('private, no-store');
      },
    );

    it.each(['/api/openapi.json', '/docs', '/docs/app.js'])(
      'public reference material %s may be cached publicly and still varies',
      async (path) => {
        const response = await app.request(path);
        expect(response.status).toBe(200);
        expectBaseHeaders(response.headers);
        expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      },
    );
  });

  describe('health probes', () => {
    it('/healthz answers while the process runs', async () => {
      const response = await app.request('/healthz');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
    });

    describe('with Temporal not answering', () => {
      // A server that takes the connection and never says a word: the check's call can only end
      // by its deadline, so no retry of the client is left running when the test closes it.
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      afterAll(() => {
        for (const socket of sockets) socket.destroy();
        silent.close();
      });

      it('/readyz answers 503 naming Temporal as unavailable, within the check timeout', async () => {
        silent.listen(0, '127.0.0.1');
        await once(silent, 'listening');
        const address = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
        // A client whose connection is only attempted on first use.
        const connection = Connection.lazy({ address, connectTimeout: '1s' });
        onTestFinished(() => connection.close());
        const temporal = new Client({ connection });
        const deadApp = createApp({
          config: app.config,
          db: app.db,
          logger: createLogger({ LOG_LEVEL: 'silent' }, 'test'),
          temporal,
        });
        const server = await serve(deadApp);
        try {
          const started = Date.now();
          const response = await fetch(`${server.baseUrl}/readyz`);
          expect(response.status).toBe(503);
          expect(await response.json()).toEqual({
            status: 'not_ready',
            checks: { database: 'ok', temporal: 'unavailable' },
          });
          expect(response.headers.get('cache-control')).toBe('private, no-store');
          expect(Date.now() - started).toBeLessThan(5000);
        } finally {
          await server.close();
        }
      });
    });

    it('/readyz answers 503 naming Temporal as unavailable when the configured namespace does not exist there', async () => {
      // The Temporal server answers, but not for this API's namespace: every workflow call would fail.
      const namespace = `no-such-namespace-${process.pid}`;
      const temporal = new Client({ connection: app.temporal.connection, namespace });
      const strayApp = createApp({
        config: { ...app.config, TEMPORAL_NAMESPACE: namespace },
        db: app.db,
        logger: createLogger({ LOG_LEVEL: 'silent' }, 'test'),
        temporal,
      });
      const server = await serve(strayApp);
      try {
        const response = await fetch(`${server.baseUrl}/readyz`);
        expect({ status: response.status, body: await response.json() }).toEqual({
          status: 503,
          body: { status: 'not_ready', checks: { database: 'ok', temporal: 'unavailable' } },
        });
        // The same server with the namespace the API is configured with is ready.
        const ready = await app.request('/readyz');
        expect({ status: ready.status, body: ready.body }).toEqual({
          status: 200,
          body: { status: 'ready', checks: { database: 'ok', temporal: 'ok' } },
        });
      } finally {
        await server.close();
      }
    });
  });
});

/**
 * The error handler on a minimal Koa app with the real requestLifecycle and responseHeaders:
 * the routes below exist only to make each kind of failure happen.
 */
describe('requestLifecycle', () => {
  const logLines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
  );

  async function withApp(routes: (router: Router) => void, test: (baseUrl: string) => Promise<void>) {
    const koa = new Koa();
    const router = new Router();
    routes(router);
    koa.use(requestLifecycle(logger));
    koa.use(responseHeaders());
    koa.use(router.routes());
    koa.use(router.allowedMethods());
    const server = await serve(koa);
    try {
      await test(server.baseUrl);
    } finally {
      await server.close();
    }
  }

  it('turns an unexpected error into 500 INTERNAL_ERROR without its message, SQL or stack; the log keeps them', async () => {
    await withApp(
      (router) =>
        router.get('/boom', (ctx) => {
          publicCache(ctx, 600);
          throw new Error('select * from secret where password = $1');
        }),
      async (baseUrl) => {
        const response = await fetch(`${baseUrl}/boom`);
        const text = await response.text();
        expect(response.status).toBe(500);
        const body = JSON.parse(text) as Record<string, unknown>;
        expect(body).toEqual({
          success: false,
          errorCode: 'INTERNAL_ERROR',
          message: 'Something went wrong on our side',
          requestId: response.headers.get('x-request-id'),
        });
        for (const leak of ['select', 'secret', 'password', 'Error:', '    at ', '.ts:'])
          expect(text).not.toContain(leak);
        // A route's public caching never survives into an error answer.
        expect(response.headers.get('cache-control')).toBe('private, no-store');
        expect(response.headers.get('vary')).toBe('Origin, Authorization, Cookie');

        const logged = logLines.find(
          (line) => line.msg === 'unhandled error' && line.requestId === body.requestId,
        );
        expect((logged?.err as { message?: string } | undefined)?.message).toBe(
          'select * from secret where password = $1',
        );
        const access = logLines.find((line) => line.msg === 'request' && line.requestId === body.requestId);
        expect(access).toMatchObject({
          method: 'GET',
          path: '/boom',
          status: 500,
          errorCode: 'INTERNAL_ERROR',
        });
      },
    );
  });

  it('keeps a Refusal’s status, code, message and details, and never caches it publicly', async () => {
    await withApp(
      (router) =>
        router.get('/conflict', (ctx) => {
          publicCache(ctx, 600);
          throw new Refusal(409, 'SEAT_OCCUPIED', 'That seat is taken', { seatId: 'd1-r1-c1' });
        }),
      async (baseUrl) => {
        const response = await fetch(`${baseUrl}/conflict`);
        expect(response.status).toBe(409);
        expect(await response.json()).toEqual({
          success: false,
          errorCode: 'SEAT_OCCUPIED',
          message: 'That seat is taken',
          details: { seatId: 'd1-r1-c1' },
          requestId: response.headers.get('x-request-id'),
        });
        expect(response.headers.get('cache-control')).toBe('private, no-store');
      },
    );
  });

  it('keeps the status of a Koa HTTP error but not its message, which may quote input', async () => {
    await withApp(
      (router) => router.get('/missing', (ctx) => ctx.throw(404, 'no account for rana@example.com')),
      async (baseUrl) => {
        const response = await fetch(`${baseUrl}/missing`);
        const text = await response.text();
        expect(response.status).toBe(404);
        expect(JSON.parse(text)).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
        expect(text).not.toContain('rana@example.com');
      },
    );
  });

  it('treats a thrown object carrying a non-error status as an internal error', async () => {
    await withApp(
      (router) =>
        router.get('/odd', () => {
          throw Object.assign(new Error('redirect to /internal/admin'), { status: 302 });
        }),
      async (baseUrl) => {
        const response = await fetch(`${baseUrl}/odd`, { redirect: 'manual' });
        const text = await response.text();
        expect(response.status).toBe(500);
        expect(JSON.parse(text)).toMatchObject({ errorCode: 'INTERNAL_ERROR' });
        expect(text).not.toContain('/internal/admin');
      },
    );
  });

  it('wraps the router’s bare 405 in the envelope and keeps its Allow header', async () => {
    await withApp(
      (router) =>
        router.get('/only-get', (ctx) => {
          ctx.body = { ok: true };
        }),
      async (baseUrl) => {
        const response = await fetch(`${baseUrl}/only-get`, { method: 'DELETE' });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toContain('GET');
        expect(await response.json()).toMatchObject({
          success: false,
          errorCode: 'METHOD_NOT_ALLOWED',
          requestId: expect.any(String),
        });
      },
    );
  });
});
