import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../config/logger.js';
import { unavailableKind, unavailableReporter } from '../../../api/http/unavailable.js';
import { useTestApp } from '../../support/harness.js';

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
