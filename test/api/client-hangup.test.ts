import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { createLogger } from '../../config/logger.js';
import { useTestApp } from '../support/harness.js';

/** Sends a request cut short in its body on a fresh connection, then resets the connection after `afterMs`. */
function hangUpMidBody(port: number, text: string, afterMs: number) {
  return new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => resolve());
    socket.write(text);
    setTimeout(() => {
      socket.resetAndDestroy();
      resolve();
    }, afterMs);
  });
}

/**
 * README Operations, "A dependency down": 503 SERVICE_UNAVAILABLE and its one concise line per
 * failure kind per 10 seconds are for PostgreSQL or Temporal not answering. A client that hangs up
 * while sending its body is neither: its request is the client's 400, and the next 10 s of real
 * PostgreSQL resets are not folded into a line about it.
 */
describe('a client that hangs up mid-body', () => {
  const app = useTestApp();

  it('is logged as its own 400 BAD_REQUEST, not as a dependency outage, and nothing is written', async () => {
    const lines: Record<string, any>[] = [];
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'api', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, any>),
    });
    const koa = createApp({ config: app.config, db: app.db, logger, temporal: app.temporal });
    const server = await new Promise<Server>((resolve) => {
      const listening = koa.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const email = `hangup-${randomUUID().slice(0, 8)}@example.com`;
    try {
      const port = (server.address() as AddressInfo).port;
      const head =
        'POST /api/waitlist HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100';
      await hangUpMidBody(port, `${head}\r\n\r\n{"email":"${email}"`, 300);
      await expect
        .poll(() => lines.find((line) => line.msg === 'request' && line.path === '/api/waitlist'))
        .toBeDefined();
      const request = lines.find((line) => line.msg === 'request' && line.path === '/api/waitlist');
      expect(lines.filter((line) => line.msg === 'dependency unavailable; answering 503')).toEqual([]);
      expect([request?.status, request?.errorCode]).toEqual([400, 'BAD_REQUEST']);
      const stored = await app.db.query(`select 1 from waitlist_entries where email = $1`, [email]);
      expect(stored).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    }
  });
});
