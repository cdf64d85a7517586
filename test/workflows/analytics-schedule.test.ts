import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../config/logger.js';
import {
  ANALYTICS_ROLLUP_SCHEDULE_ID,
  ANALYTICS_ROLLUP_WORKFLOW,
} from '../../workflows/analytics-rollup.contract.js';
import { ensureSchedules } from '../../worker/schedules.js';
import { useTestApp } from '../support/harness.js';

describe('the analytics-rollup Temporal Schedule', () => {
  const app = useTestApp();

  afterAll(async () => {
    await app.temporal.schedule
      .getHandle(ANALYTICS_ROLLUP_SCHEDULE_ID)
      .delete()
      .catch(() => undefined);
  });

  it('is created when a worker starts, and brought to the configured interval on the next start', async () => {
    const logger = createLogger(app.config, 'test');
    // Paused: the run's other tests must not see a roll-up of every company in the middle of theirs.
    await ensureSchedules(app.temporal, { ...app.config, ANALYTICS_ROLLUP_MINUTES: 7 }, logger, {
      paused: true,
    });
    const handle = app.temporal.schedule.getHandle(ANALYTICS_ROLLUP_SCHEDULE_ID);
    const created = await handle.describe();
    expect(created.spec.intervals).toMatchObject([{ every: 7 * 60_000 }]);
    expect(created.policies.overlap).toBe('SKIP');
    expect(created.state.paused).toBe(true);
    expect(created.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: ANALYTICS_ROLLUP_WORKFLOW,
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      args: [{}],
    });

    await ensureSchedules(app.temporal, { ...app.config, ANALYTICS_ROLLUP_MINUTES: 3 }, logger);
    const updated = await handle.describe();
    expect(updated.spec.intervals).toMatchObject([{ every: 3 * 60_000 }]);
    expect(updated.state.paused).toBe(true);
  });
});
