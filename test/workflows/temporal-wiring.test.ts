import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { connectionOptions } from '../../config/temporal.js';
import { createProbeActivities } from '../support/probe/activities.js';
import { createCity } from '../support/factories.js';
import { useTestApp } from '../support/harness.js';

describe('Temporal wiring', () => {
  const app = useTestApp();

  it('a client starts a workflow that a real worker runs against the test database', async () => {
    await createCity(app.db);
    const [row] = await app.db.query<{ cities: number }>('select count(*)::int as cities from cities');
    const taskQueue = `wiring-probe-${randomUUID()}`;
    const connection = await NativeConnection.connect(connectionOptions(app.config));
    const worker = await Worker.create({
      connection,
      namespace: app.config.TEMPORAL_NAMESPACE,
      taskQueue,
      workflowsPath: new URL('../support/probe/workflow.ts', import.meta.url).pathname,
      activities: createProbeActivities(app.db),
    });
    try {
      const result = await worker.runUntil(
        app.temporal.workflow.execute('catalogueProbe', {
          taskQueue,
          workflowId: `catalogue-probe/${randomUUID()}`,
          args: [{ requestedBy: 'test' }],
        }),
      );
      expect(result.cities).toBeGreaterThanOrEqual(row!.cities);
    } finally {
      await connection.close();
    }
  });

  it('the readiness probe reports PostgreSQL and Temporal as reachable', async () => {
    const response = await app.request('/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });
});
