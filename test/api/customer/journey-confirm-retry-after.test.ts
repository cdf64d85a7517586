import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.js';
import { createLogger } from '../../../config/logger.js';
import { testAppAt, useTestApp, type TestApp } from '../../support/harness.js';
import {
  confirmJourney,
  holdForConfirm,
  journeyFacts,
  mobileTraveller,
  setConfirmation,
  tripOf,
} from '../../support/journeys.js';

/**
 * A mobile app confirms a journey that needs the company's decision while Temporal cannot be
 * reached (README "A dependency down"). The 503 CONFIRMATION_UNAVAILABLE tells it when to retry
 * with the same key: Retry-After (and details.retryAfterSeconds) covers the pause in which the API
 * refuses such confirms at once, so a client that honours it is not refused again for that pause.
 */
describe('a confirm refused while Temporal cannot be reached says when to retry', () => {
  const base = useTestApp({ TEMPORAL_TASK_QUEUE: `nobody-polls-${randomUUID()}` });
  let server: Server | undefined;
  let down: TestApp;

  beforeAll(async () => {
    // The same API, database and configuration, but its Temporal server is gone.
    const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
    const app = createApp({
      config: base.config,
      db: base.db,
      logger: createLogger(base.config, 'api'),
      temporal,
    });
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    down = testAppAt({ config: base.config, db: base.db, temporal, baseUrl });
  });
  afterAll(async () => {
    if (!server) return;
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server.closeAllConnections();
  });

  it('answers 503 CONFIRMATION_UNAVAILABLE with Retry-After: 5, also to the retry its pause refuses, writing nothing', async () => {
    const caller = await mobileTraveller(down);
    const trip = await tripOf(down.db);
    await setConfirmation(down.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const { confirmBody, journeyId } = await holdForConfirm(down, caller, [{ trip }]);
    const before = await journeyFacts(down.db, journeyId);

    const refused = await confirmJourney(down, caller, journeyId, confirmBody);
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([503, 'CONFIRMATION_UNAVAILABLE']);
    expect(refused.headers.get('Retry-After')).toBe('5');
    expect(refused.body.details).toEqual({ retryAfterSeconds: 5 });

    // Sent again at once, inside the pause: refused without waiting for Temporal, told the same.
    const started = Date.now();
    const again = await confirmJourney(down, caller, journeyId, confirmBody);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect([again.status, again.body.errorCode], again.text).toEqual([503, 'CONFIRMATION_UNAVAILABLE']);
    expect(again.headers.get('Retry-After')).toBe('5');

    expect(await journeyFacts(down.db, journeyId)).toEqual(before);
    const records = await down.db.query(`select key from idempotency_records where key = $1`, [
      confirmBody.idempotency_key,
    ]);
    expect(records).toEqual([]);
  }, 60_000);
});
