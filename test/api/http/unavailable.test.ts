import { ServiceError, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../config/logger.js';
import { unavailableKind, unavailableReporter } from '../../../api/http/unavailable.js';
import { cashShiftClient } from '../../../api/temporal/cash-shift-client.js';
import { journeyConfirmationClient } from '../../../api/temporal/journey-confirmation-client.js';
import { shareGrantClient } from '../../../api/temporal/share-grant-client.js';
import { tripScheduleClient } from '../../../api/temporal/trip-schedule-client.js';
import { useTestApp } from '../../support/harness.js';
import { answerWithin } from '../../support/named-connections.js';

const withCode = (message: string, code: unknown) => Object.assign(new Error(message), { code });

describe('dependency failures are told apart from bugs', () => {
  it('names PostgreSQL down, restarting or unreachable, and Temporal not answering', () => {
    expect(unavailableKind(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(
      'connection ECONNREFUSED',
    );
    expect(unavailableKind(withCode('terminating connection due to administrator command', '57P01'))).toBe(
      'SQLSTATE 57P01',
    );
    expect(unavailableKind(withCode('the database system is starting up', '57P03'))).toBe('SQLSTATE 57P03');
    expect(unavailableKind(withCode('connection failure', '08006'))).toBe('SQLSTATE 08006');
    expect(unavailableKind(new Error('Connection terminated unexpectedly'))).toBe('Connection terminated');
    expect(unavailableKind(new Error('timeout exceeded when trying to connect'))).toBe(
      'timeout exceeded when trying to connect',
    );
    // Wrapped: pg-pool and the Temporal client chain the cause.
    const wrapped = new Error('query failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') });
    expect(unavailableKind(wrapped)).toBe('connection ECONNREFUSED');
    expect(unavailableKind(withCode('14 UNAVAILABLE: Connection dropped', 14))).toBe('temporal UNAVAILABLE');
  });

  it('leaves every other error a bug (500): constraint violations, serialization failures, plain errors', () => {
    expect(unavailableKind(withCode('duplicate key value violates unique constraint', '23505'))).toBeNull();
    expect(unavailableKind(withCode('could not serialize access', '40001'))).toBeNull();
    expect(unavailableKind(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBeNull();
    expect(unavailableKind(undefined)).toBeNull();
    expect(unavailableKind('ECONNREFUSED')).toBeNull();
  });

  it('answers 503 SERVICE_UNAVAILABLE with retryAfterSeconds and logs one line per kind per 10 s, without a stack', () => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logger = {
      warn: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }),
    } as unknown as Logger;
    let now = 0;
    const report = unavailableReporter(logger, () => now);
    const refused = withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');
    const first = report(refused);
    expect(first).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      details: { retryAfterSeconds: 5 },
    });
    for (let i = 0; i < 99; i++) {
      now += 50;
      report(refused);
    }
    report(withCode('terminating connection due to administrator command', '57P01'));
    expect(lines).toHaveLength(2);
    now = 10_000;
    report(refused);
    expect(lines).toHaveLength(3);
    expect(lines[2]!.fields).toEqual({
      kind: 'connection ECONNREFUSED',
      reason: 'connect ECONNREFUSED 127.0.0.1:5432',
      alsoSince: 99,
    });
    expect(JSON.stringify(lines)).not.toContain('stack');
    expect(report(new Error('a bug'))).toBeNull();
    expect(lines).toHaveLength(3);
  });
});

/** A Temporal client whose server does not answer: every call fails at once as the real one does at its end. */
function silentTemporal(): Client {
  const down = () => Promise.reject(new ServiceError('14 UNAVAILABLE: No connection established'));
  const handle = { startUpdate: down, executeUpdate: down, signal: down, describe: down, query: down };
  return {
    withDeadline: (_deadline: number, work: () => Promise<unknown>) => work(),
    withAbortSignal: (_signal: AbortSignal, work: () => Promise<unknown>) => work(),
    workflow: { start: down, executeUpdateWithStart: down, getHandle: () => handle, signalWithStart: down },
  } as unknown as Client;
}

describe("a Temporal client's own 503 says when to retry (Retry-After, details.retryAfterSeconds)", () => {
  const config = { TEMPORAL_TASK_QUEUE: 'nobody', TIME_SCALE: 1 };
  const refusalOf = (call: Promise<unknown>) =>
    call.then(
      () => 'answered',
      (error: unknown) => error,
    );

  it('CONFIRMATION_UNAVAILABLE: 5 s, also for the confirms its pause refuses at once', async () => {
    const client = journeyConfirmationClient(silentTemporal(), config);
    const start = {
      scope: { kind: 'JOURNEY', id: 'journey-1' },
      ownerUserId: 'user-1',
      companyIds: ['company-1'],
      awaiting: [{ companyId: 'company-1', remainingMilliseconds: 3_600_000 }],
    } as const;
    const expected = { status: 503, code: 'CONFIRMATION_UNAVAILABLE', details: { retryAfterSeconds: 5 } };
    expect(await refusalOf(client.awaitDecisions(structuredClone(start) as never))).toMatchObject(expected);
    // Within START_PAUSE_AFTER_FAILURE_MS: refused without asking Temporal, with what is left of the pause.
    expect(await refusalOf(client.awaitDecisions(structuredClone(start) as never))).toMatchObject(expected);
  });

  it('SHARE_UNAVAILABLE, CASH_SHIFT_UNAVAILABLE and SCHEDULE_UNAVAILABLE: 5 s', async () => {
    const temporal = silentTemporal();
    const logger = { warn: () => undefined } as unknown as Logger;
    const schedules = tripScheduleClient(
      temporal,
      { ...config, SCHEDULE_ANSWER_WAIT_MS: 10, SCHEDULE_BATCH_TIMEOUT_SECONDS: 60 },
      logger,
    );
    const claim = {
      scheduleId: 'schedule-1',
      companyId: 'company-1',
      request: { routeId: 'r', busId: 'b', startDate: '2030-01-01', endDate: '2030-01-02' },
    };
    const refusals = await Promise.all([
      refusalOf(shareGrantClient(temporal, config).revoke('grant-1', { kind: 'OWNER' } as never)),
      refusalOf(cashShiftClient(temporal, config).adjust('company-1', { movementId: 'm-1' } as never)),
      refusalOf(schedules.commit(claim as never)),
    ]);
    expect(refusals).toMatchObject(
      ['SHARE_UNAVAILABLE', 'CASH_SHIFT_UNAVAILABLE', 'SCHEDULE_UNAVAILABLE'].map((code) => ({
        status: 503,
        code,
        details: { retryAfterSeconds: 5 },
      })),
    );
  });
});

describe('the OpenAPI document lists the 503 on every operation', () => {
  const app = useTestApp();

  it('every operation may answer 503 (a dependency not answering)', async () => {
    const response = await app.request('/api/openapi.json');
    const paths = response.body.paths as Record<
      string,
      Record<string, { responses?: Record<string, unknown> }>
    >;
    const missing = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => typeof operation === 'object' && operation.responses)
        .filter(([, operation]) => !operation.responses!['503'])
        .map(([method]) => `${method} ${path}`),
    );
    expect(Object.keys(paths).length).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });
});

/**
 * Every pooled connection of a process taken (stalled work, a burst longer than the pool serves):
 * a request waits for one at most DATABASE_POOL_ACQUIRE_TIMEOUT_MS, then answers 503 with
 * Retry-After, never hangs for as long as the connections stay taken.
 */
describe('a request that cannot get a pooled connection in time', () => {
  const app = useTestApp({ DATABASE_POOL_MAX: 2, DATABASE_POOL_ACQUIRE_TIMEOUT_MS: 300 });
  const cities = () => answerWithin(`${app.baseUrl}/api/cities`);

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After within DATABASE_POOL_ACQUIRE_TIMEOUT_MS, and serves again once one is free', async () => {
    const held = [await app.db.pool.connect(), await app.db.pool.connect()];
    let whileTaken: Awaited<ReturnType<typeof cities>>;
    const started = Date.now();
    try {
      whileTaken = await cities();
    } finally {
      for (const client of held) client.release();
    }
    expect({ whileTaken, withinTwoSeconds: Date.now() - started < 2_000 }).toEqual({
      whileTaken: { status: 503, retryAfter: '5', errorCode: 'SERVICE_UNAVAILABLE' },
      withinTwoSeconds: true,
    });
    expect(await cities()).toEqual({ status: 200, retryAfter: null, errorCode: null });
  });
});
