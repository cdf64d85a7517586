import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../config/index.js';
import { stop, startPrefixed, waitFor, type Managed } from '../../scripts/lib/processes.js';
import { freePort, portOpen, SEARCH_ATTRIBUTES, temporalBinary } from '../../scripts/lib/services.js';
import { workflowIds } from '../../workflows/shared.js';
import { useTestApp } from '../support/harness.js';
import {
  confirmJourney,
  eventually,
  holdJourney,
  mobileTraveller,
  quote,
  setConfirmation,
  travellers,
  tripOf,
} from '../support/journeys.js';
import { throwawayCertificates, tlsFrontDoor } from '../support/temporal-tls.js';

/**
 * Nothing assumes the dev server's `default` namespace or a plaintext connection: a Temporal server
 * of its own with the namespace `bus-booking-tls`, reached only through a mutual-TLS endpoint (the
 * dev server has no TLS flags, so a TLS front door stands before it, as a load balancer would), the
 * real worker process (`worker/main.ts`) and the API, both configured by environment settings read
 * through config/ (CA, client certificate and key with literal \n, server name, namespace).
 */
const NAMESPACE = 'bus-booking-tls';
const SERVER_NAME = 'temporal.test';
const root = join(import.meta.dirname, '..', '..');
const TEMPORAL_KEYS = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CA_PEM',
  'TEMPORAL_TLS_CERT_PEM',
  'TEMPORAL_TLS_KEY_PEM',
  'TEMPORAL_TLS_SERVER_NAME',
] as const;

describe('Temporal in another namespace over mutual TLS', () => {
  const overrides: Partial<Config> = {};
  let temporal: Managed;
  let temporalPort: number;
  let door: Awaited<ReturnType<typeof tlsFrontDoor>>;
  let worker: ChildProcess;
  let workerExited: Promise<unknown>;

  beforeAll(async () => {
    const certificates = throwawayCertificates(SERVER_NAME);
    // Off the test stack's (7243-7292) and the drills' (7600 + pool × 50, 40 each) Temporal ports.
    temporalPort = await freePort(9400, 200);
    temporal = startPrefixed(
      'tls-temporal',
      temporalBinary(),
      [
        'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(temporalPort), '--headless',
        '--log-level', 'error', '--namespace', NAMESPACE,
        ...SEARCH_ATTRIBUTES.flatMap((attribute) => ['--search-attribute', attribute]),
      ], // prettier-ignore
    );
    await waitFor('Temporal dev server', () => portOpen(temporalPort), 60_000);
    door = await tlsFrontDoor({ targetPort: temporalPort, certificates });
    const oneLine = (pem: string) => pem.trim().replaceAll('\n', '\\n');
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: `127.0.0.1:${door.port}`,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TEMPORAL_TLS_CA_PEM: oneLine(certificates.ca),
      TEMPORAL_TLS_CERT_PEM: oneLine(certificates.clientCert),
      TEMPORAL_TLS_KEY_PEM: oneLine(certificates.clientKey),
      TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    };
    const config = loadConfig(env);
    for (const key of TEMPORAL_KEYS) Object.assign(overrides, { [key]: config[key] });
    worker = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
      cwd: root,
      env,
      stdio: 'ignore',
    });
    workerExited = new Promise((resolve) => worker.on('exit', resolve));
  }, 90_000);

  const app = useTestApp(overrides);

  afterAll(async () => {
    worker?.kill('SIGINT');
    await workerExited;
    await door?.close();
    if (temporal) await stop(temporal);
  }, 60_000);

  it('the settings came from the environment through config/', () => {
    expect(app.config.TEMPORAL_NAMESPACE).toBe(NAMESPACE);
    expect(app.config.TEMPORAL_TLS_CA_PEM).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(app.config.TEMPORAL_TLS_KEY_PEM).toMatch(/-----END PRIVATE KEY-----$/);
    expect(app.config.TEMPORAL_TLS_SERVER_NAME).toBe(SERVER_NAME);
  });

  it('a MANUAL journey confirm runs its workflow on the worker in that namespace, found there and not in default', async () => {
    // The worker process polls the task queue in the namespace (it bundles the workflows first).
    const pollers = await eventually(
      async () => {
        const answer = await app.temporal.workflowService.describeTaskQueue({
          namespace: NAMESPACE,
          taskQueue: { name: app.config.TEMPORAL_TASK_QUEUE },
          taskQueueType: 1,
        });
        return answer.pollers.length;
      },
      (count) => count > 0,
      100_000,
    );
    expect(pollers).toBeGreaterThan(0);

    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 30 });
    const caller = await mobileTraveller(app);
    const quoted = await quote(app, caller, [{ trip }]);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, {
      quote_id: quoted.quote_id,
      hold_batch_id: held.body.data.holdBatchId,
      travellers: travellers(1),
      idempotency_key: `confirm-${quoted.journey_id}`,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');

    const workflowId = workflowIds.journeyConfirmation(quoted.journey_id);
    const described = await app.temporal.workflow.getHandle(workflowId).describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.taskQueue).toBe(app.config.TEMPORAL_TASK_QUEUE);

    // The same server's default namespace, without TLS (straight to the dev server): no such workflow.
    const plain = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    try {
      const inDefault = new Client({ connection: plain, namespace: 'default' });
      await expect(inDefault.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
    } finally {
      await plain.close();
    }
    // Every client reached the server through the TLS endpoint with a verified client certificate.
    expect(door.state.clients).toBeGreaterThan(0);
    expect(door.state.refused).toBe(0);
  }, 150_000);
});
