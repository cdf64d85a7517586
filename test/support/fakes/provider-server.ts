import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a fake provider received, for tests to prove what was (or was not) sent. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type FakeHandler = (request: ReceivedRequest, response: ServerResponse) => void;

/** A local HTTP server on a free port that records every request and hands it to `handle`. */
export async function startFakeServer(
  handle: FakeHandler,
): Promise<{ url: string; requests: ReceivedRequest[]; close(): Promise<void> }> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // Left null: the fake answers what a provider answers to an unreadable body.
      }
      const received = { path: req.url ?? '/', headers: req.headers, body };
      requests.push(received);
      handle(received, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}
