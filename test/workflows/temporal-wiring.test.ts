import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TASK_QUEUE, workflowIds } from '../../workflows/shared.js';
import { createCity } from '../support/factories.js';
import { useTestApp } from '../support/harness.js';

describe('Temporal wiring', () => {
  const app = useTestApp();

  it('a client starts a workflow that a real worker runs against the test database', async () => {
    await createCity(app.db);
    const [row] = await app.db.query<{ cities: number }>('select count(*)::int as cities from cities');
    const result = await app.temporal.workflow.execute('catalogueProbe', {
      taskQueue: TASK_QUEUE,
      workflowId: workflowIds.catalogueProbe(randomUUID()),
      args: [{ requestedBy: 'test' }],
    });
    expect(result.cities).toBeGreaterThanOrEqual(row!.cities);
  });

  it('the readiness probe reports PostgreSQL and Temporal as reachable', async () => {
    const response = await app.request('/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });
});
