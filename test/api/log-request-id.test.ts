import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { Client } from '@temporalio/client';
import Koa from 'koa';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { Refusal } from '../../api/http/errors.js';
import { requestLifecycle } from '../../api/http/middleware.js';
import { createLogger } from '../../config/logger.js';
import { createCorridor } from '../support/factories.js';
import { startSmsVerifyFake } from '../support/fakes/sms-verify.js';
import { useTestApp } from '../support/harness.js';
import { confirmedJourneyRows, journeyTripOf } from '../support/journey-rows.js';

const sms = await startSmsVerifyFake();
afterAll(() => sms.close());

type LogLine = Record<string, any>;

/** A logger of the app's kind (config/logger.ts) whose lines the test reads. */
function capturedLogger() {
  const lines: LogLine[] = [];
  const logger = createLogger({ LOG_LEVEL: 'trace' }, 'api', {
    write: (line: string) => void lines.push(JSON.parse(line) as LogLine),
  });
  return { lines, logger };
}

async function listen(koa: Koa) {
  const server = await new Promise<Server>((resolve) => {
    const listening = koa.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => server.close(() => resolve())).finally(() =>
        server.closeAllConnections(),
      ),
  };
}

/** The lines other than each request's access line ('request'). */
const causes = (lines: LogLine[]) =>
  lines
    .filter((line) => line.msg !== 'request')
    .map((line) => ({ msg: line.msg, requestId: line.requestId }));

/**
 * README Conventions: raw driver, provider and SQL errors only reach the log, with the request id.
 * Whoever holds an error answer's requestId finds the line saying what went wrong, whichever code
 * wrote it: every line logged while a request is handled carries that request's id.
 */
describe('log lines written while a request is handled carry its requestId', () => {
  const app = useTestApp();

  it('a line logged by code that knows nothing of the request', async () => {
    const { lines, logger } = capturedLogger();
    const koa = new Koa();
    const router = new Router();
    router.get('/fails', () => {
      logger.warn({ detail: 'provider said no' }, 'provider unavailable');
      throw new Refusal(503, 'PROVIDER_UNAVAILABLE', 'Try again later', { retryAfterSeconds: 5 });
    });
    koa.use(requestLifecycle(logger));
    koa.use(router.routes());
    const served = await listen(koa);
    try {
      const first = await fetch(`${served.base}/fails`);
      const second = await fetch(`${served.base}/fails`, {
        headers: { 'X-Request-Id': 'client-chosen-id-42' },
      });
      const ids = [
        ((await first.json()) as { requestId: string }).requestId,
        ((await second.json()) as { requestId: string }).requestId,
      ];
      expect(ids[1]).toBe('client-chosen-id-42');
      logger.info('between requests');
      expect(causes(lines)).toEqual([
        { msg: 'provider unavailable', requestId: ids[0] },
        { msg: 'provider unavailable', requestId: ids[1] },
        { msg: 'between requests', requestId: undefined },
      ]);
    } finally {
      await served.close();
    }
  });

  it('PostgreSQL not answering (503 SERVICE_UNAVAILABLE): the line the error writer logs', async () => {
    const { lines, logger } = capturedLogger();
    const koa = new Koa();
    const router = new Router();
    router.get('/reads-postgres', () => {
      // What pg throws while PostgreSQL is down (README "A dependency down": connection refused).
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    koa.use(requestLifecycle(logger));
    koa.use(router.routes());
    const served = await listen(koa);
    try {
      const response = await fetch(`${served.base}/reads-postgres`);
      const body = (await response.json()) as { errorCode: string; requestId: string };
      expect([response.status, body.errorCode]).toEqual([503, 'SERVICE_UNAVAILABLE']);
      expect(causes(lines)).toEqual([
        { msg: 'dependency unavailable; answering 503', requestId: body.requestId },
      ]);
    } finally {
      await served.close();
    }
  });

  it('a document that cannot be rendered (500 DOCUMENT_RENDER_FAILED)', async () => {
    // A render that fails with a raw client error: the namespace does not exist on this server.
    const namespace = `no-such-namespace-${process.pid}`;
    const { lines, logger } = capturedLogger();
    const temporal = new Client({ connection: app.temporal.connection, namespace });
    const koa = createApp({
      config: { ...app.config, TEMPORAL_NAMESPACE: namespace },
      db: app.db,
      logger,
      temporal,
    });
    const served = await listen(koa);
    try {
      const corridor = await createCorridor(app.db);
      const traveller = await app.signIn();
      const rows = await confirmedJourneyRows(app.db, {
        ownerUserId: traveller.userId,
        trip: journeyTripOf(corridor),
        travellers: ['Rami Haddad'],
      });
      const response = await fetch(
        `${served.base}/api/bookings/${rows.bookingId}/document?type=confirmation&locale=en`,
        {
          headers: { Authorization: `Bearer ${traveller.token}` },
        },
      );
      const body = (await response.json()) as { errorCode: string; requestId: string };
      expect([response.status, body.errorCode]).toEqual([500, 'DOCUMENT_RENDER_FAILED']);
      expect(causes(lines)).toEqual([{ msg: 'document render failed', requestId: body.requestId }]);
      expect(lines.find((line) => line.msg === 'document render failed')?.err?.message).toMatch(/namespace/i);
    } finally {
      await served.close();
    }
  });

  it('the SMS provider not answering (503 OTP_UNAVAILABLE)', async () => {
    const { lines, logger } = capturedLogger();
    const config = {
      ...app.config,
      OTP_PRELAUNCH: false,
      SITE_MODE: 'live' as const,
      SMS_VERIFY_URL: sms.url,
      SMS_VERIFY_API_KEY: sms.apiKey,
      OTP_SEND_PER_IP_PER_HOUR: 0,
      OTP_SEND_PER_PHONE_PER_HOUR: 0,
    };
    const served = await listen(createApp({ config, db: app.db, logger, temporal: app.temporal }));
    try {
      sms.failNext('error', 1);
      const phone = `+96394${String(process.pid % 1000).padStart(3, '0')}6317`;
      const response = await fetch(`${served.base}/api/auth/customer/send-otp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone, method: 'sms' }),
      });
      const body = (await response.json()) as { errorCode: string; requestId: string };
      expect([response.status, body.errorCode]).toEqual([503, 'OTP_UNAVAILABLE']);
      expect(causes(lines)).toEqual([
        { msg: 'SMS verification provider unavailable', requestId: body.requestId },
      ]);
      // Nothing was opened for the number: no challenge row.
      const [open] = await app.db.query<{ n: number }>(
        'select count(*)::int as n from otp_challenges where phone = $1',
        [phone],
      );
      expect(open!.n).toBe(0);
    } finally {
      await served.close();
    }
  });
});
