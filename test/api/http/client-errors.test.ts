import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServer } from '../../../api/server.js';
import { loadConfig } from '../../../config/index.js';

/** Writes `text` on a fresh connection and returns all that comes back until the server closes it. */
function raw(port: number, text: string) {
  return new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (chunk) => (out += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.on('error', () => undefined);
    socket.write(text);
  });
}

/** Status, lower-cased headers and JSON body of the one answer in `text`. */
function parse(text: string) {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  ) as Record<string, string>;
  const body = rest.join('\r\n\r\n');
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    json: body ? (JSON.parse(body) as unknown) : null,
  };
}

/**
 * README Conventions: "Every response carries `Vary: Origin, Authorization, Cookie` and security
 * headers"; errors are `{ success: false, errorCode, message, details?, requestId }`. Node answers some
 * requests itself before the app sees them (headers over its 16 KB limit, a request it cannot read):
 * those answers carry the envelope and the headers too. The real server (api/server.ts, each process
 * of api/cluster.ts runs it).
 */
describe('answers Node gives before the app', () => {
  let server: Awaited<ReturnType<typeof startWebServer>>;
  beforeAll(async () => {
    server = await startWebServer({ ...loadConfig(), PORT: 0, HOST: '127.0.0.1' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const expectEveryAnswersHeaders = (headers: Record<string, string>) => {
    expect(headers).toMatchObject({
      vary: 'Origin, Authorization, Cookie',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'cache-control': 'private, no-store',
      'content-type': 'application/json; charset=utf-8',
      connection: 'close',
    });
  };

  it('a request with too large a Cookie header gets 431 HEADERS_TOO_LARGE in the envelope', async () => {
    const cookie = `other_site_cookie=${'a'.repeat(20_000)}`;
    const answer = parse(
      await raw(
        server.port,
        `GET /api/cities HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(answer.status).toBe(431);
    expectEveryAnswersHeaders(answer.headers);
    expect(answer.json).toEqual({
      success: false,
      errorCode: 'HEADERS_TOO_LARGE',
      message: 'The request headers or URL are too large',
      requestId: answer.headers['x-request-id'],
    });
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a URL over the limit gets the same 431', async () => {
    const answer = parse(
      await raw(server.port, `GET /api/cities?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expect([answer.status, (answer.json as { errorCode?: string } | null)?.errorCode]).toEqual([
      431,
      'HEADERS_TOO_LARGE',
    ]);
    expectEveryAnswersHeaders(answer.headers);
  });

  it('Content-Length with Transfer-Encoding, or a request line it cannot read, gets 400 BAD_REQUEST in the envelope', async () => {
    const smuggled = parse(
      await raw(
        server.port,
        'POST /api/journeys/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ),
    );
    const garbled = parse(await raw(server.port, 'NOT A REQUEST\r\n\r\n'));
    for (const answer of [smuggled, garbled]) {
      expect(answer.status).toBe(400);
      expectEveryAnswersHeaders(answer.headers);
      expect(answer.json).toMatchObject({
        success: false,
        errorCode: 'BAD_REQUEST',
        requestId: answer.headers['x-request-id'],
      });
    }
    expect(smuggled.headers['x-request-id']).not.toBe(garbled.headers['x-request-id']);
  });

  it('an Expect other than 100-continue gets 417 EXPECTATION_FAILED in the envelope, and the server serves on', async () => {
    const answer = parse(
      await raw(
        server.port,
        'POST /api/journeys/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Content-Length: 2\r\nExpect: something\r\n\r\n{}',
      ),
    );
    expect(answer.status).toBe(417);
    expectEveryAnswersHeaders(answer.headers);
    expect(answer.json).toMatchObject({ success: false, errorCode: 'EXPECTATION_FAILED' });
    const next = await fetch(`http://127.0.0.1:${server.port}/api/cities`);
    expect(next.status).toBe(200);
  });
});
