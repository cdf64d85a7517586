import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { poolPerApiProcess, reportStreamsPerProcess } from '../../config/deployment.js';
import { loadConfig } from '../../config/index.js';
import { connectionOptions } from '../../config/temporal.js';

const PEM = (label: string) => `-----BEGIN ${label}-----\\nAAAA\\n-----END ${label}-----`;

describe('deployment settings (API_PROCESSES, Temporal address, namespace and TLS)', () => {
  it('API_PROCESSES defaults to one process per core; 1 and larger counts are accepted, 0 is refused', () => {
    expect(loadConfig({}).API_PROCESSES).toBe(availableParallelism());
    expect(loadConfig({ API_PROCESSES: '1' }).API_PROCESSES).toBe(1);
    expect(loadConfig({ API_PROCESSES: '4' }).API_PROCESSES).toBe(4);
    expect(() => loadConfig({ API_PROCESSES: '0' })).toThrow(/API_PROCESSES/);
  });

  it("the API's processes on a host share DATABASE_POOL_MAX equally, each keeping at least two (or all, when fewer)", () => {
    expect(poolPerApiProcess(6, 1)).toBe(6);
    expect(poolPerApiProcess(6, 2)).toBe(3);
    expect(poolPerApiProcess(7, 2)).toBe(3);
    expect(poolPerApiProcess(32, 8)).toBe(4);
    expect(poolPerApiProcess(6, 4)).toBe(2);
    expect(poolPerApiProcess(1, 2)).toBe(1);
  });

  it('a process streams at most half its pool of CSV and JSON reports at once (REPORT_STREAMS_MAX), never its whole pool, at least one', () => {
    const streams = (poolMax: number, max?: string) =>
      reportStreamsPerProcess(
        loadConfig({ DATABASE_POOL_MAX: String(poolMax), ...(max ? { REPORT_STREAMS_MAX: max } : {}) }),
      );
    expect([streams(6), streams(4), streams(3), streams(2), streams(1)]).toEqual([3, 2, 1, 1, 1]);
    expect([streams(6, '2'), streams(6, '5'), streams(6, '6'), streams(6, '50'), streams(1, '3')]).toEqual([
      2, 5, 5, 5, 1,
    ]);
    expect(loadConfig({ REPORT_STREAMS_MAX: ' ' }).REPORT_STREAMS_MAX).toBeUndefined();
    expect(() => loadConfig({ REPORT_STREAMS_MAX: '0' })).toThrow(/REPORT_STREAMS_MAX/);
    expect(loadConfig({}).REPORT_STREAM_STALL_SECONDS).toBe(30);
    expect(loadConfig({}).DATABASE_POOL_ACQUIRE_TIMEOUT_MS).toBe(10_000);
  });

  it('plaintext to the dev server by default; TLS with the CA, client pair and server name when set', () => {
    expect(connectionOptions(loadConfig({})).tls).toBeUndefined();
    expect(connectionOptions(loadConfig({ TEMPORAL_TLS: 'true' })).tls).toEqual({});
    const options = connectionOptions(
      loadConfig({
        TEMPORAL_ADDRESS: 'temporal.internal:7233',
        TEMPORAL_TLS_CA_PEM: PEM('CERTIFICATE'),
        TEMPORAL_TLS_CERT_PEM: PEM('CERTIFICATE'),
        TEMPORAL_TLS_KEY_PEM: PEM('PRIVATE KEY'),
        TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
      }),
    );
    expect(options.address).toBe('temporal.internal:7233');
    expect(options.tls?.serverRootCACertificate?.toString()).toBe(
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
    );
    expect(options.tls?.clientCertPair?.key.toString()).toContain('PRIVATE KEY-----\nAAAA');
    expect(options.tls?.serverNameOverride).toBe('frontend.temporal.internal');
    expect(connectionOptions(loadConfig({ TEMPORAL_API_KEY: 'k' }))).toMatchObject({ apiKey: 'k' });
  });

  it('refuses a client certificate without its key (and the reverse), and a value that is no PEM', () => {
    expect(() => loadConfig({ TEMPORAL_TLS_CERT_PEM: PEM('CERTIFICATE') })).toThrow(/TEMPORAL_TLS_KEY_PEM/);
    expect(() => loadConfig({ TEMPORAL_TLS_KEY_PEM: PEM('PRIVATE KEY') })).toThrow(/TEMPORAL_TLS_CERT_PEM/);
    expect(() => loadConfig({ TEMPORAL_TLS_CA_PEM: 'not a certificate' })).toThrow(/TEMPORAL_TLS_CA_PEM/);
  });
});
