import type { IncomingMessage, Server } from 'node:http';

/** A floor server's request body, whole. */
export function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * Listens on a free loopback port and says so on stdout ("listening <port>", read by
 * floor-process.ts); on SIGTERM stops listening, runs `close` and exits.
 */
export function listenAsFloor(server: Server, close: () => Promise<void>): void {
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') console.log(`listening ${address.port}`);
  });
  process.once('SIGTERM', () => {
    server.close();
    void close().then(() => process.exit(0));
  });
}
