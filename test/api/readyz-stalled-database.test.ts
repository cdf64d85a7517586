import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { createLogger } from '../../config/logger.js';
import { initDatabase, type Database } from '../../db/orm.js';
import { useTestApp } from '../support/harness.js';
import { eventually } from '../support/journeys.js';
import { StallingRelay } from '../support/stalling-relay.js';

/**
 * /readyz while PostgreSQL stops answering without resetting its connections (a frozen server, a
 * route that drops packets): README "A dependency down". The API under test reaches the run's
 * PostgreSQL through a relay that stalls, with a pool of one connection, so a probe that kept its
 * connection would leave the API none once PostgreSQL answers again.
 */
describe('/readyz while PostgreSQL stops answering', () => {
  const app = useTestApp();
  let relay: StallingRelay;
  let db: Database;
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    relay = await StallingRelay.start(app.config.DATABASE_URL);
    const config = { ...app.config, DATABASE_URL: relay.url(), DATABASE_POOL_MAX: 1 };
    db = await initDatabase(config);
    const api = createApp({
      config,
      db,
      logger: createLogger({ LOG_LEVEL: 'silent' }, 'test'),
      temporal: app.temporal,
    });
    server = api.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    // Resetting the stalled connections first lets the pool end.
    await relay.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await db.close();
  });

  const probe = async () => {
    const started = Date.now();
    const response = await fetch(`${baseUrl}/readyz`);
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as unknown,
      ms: Date.now() - started,
    };
  };

  it('answers 503 with Retry-After within the check time, and is ready again as soon as PostgreSQL answers', async () => {
    // The pool's one connection is open and idle when PostgreSQL stops answering.
    expect((await probe()).status).toBe(200);
    relay.stall();
    const stalled = await probe();
    expect(stalled).toMatchObject({
      status: 503,
      retryAfter: '5',
      body: { status: 'not_ready', checks: { database: 'unavailable', temporal: 'ok' } },
    });
    expect(stalled.ms).toBeLessThan(5000);

    // New connections reach PostgreSQL again; the stalled one never answers. The probe gave it up.
    relay.pass();
    const after = await eventually(probe, (answer) => answer.status === 200, 15_000);
    expect({ status: after.status, retryAfter: after.retryAfter, body: after.body }).toEqual({
      status: 200,
      retryAfter: null,
      body: { status: 'ready', checks: { database: 'ok', temporal: 'ok' } },
    });
  }, 40_000);
});
