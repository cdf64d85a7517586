import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import {
  ANALYTICS_ROLLUP_SCHEDULE_ID,
  ANALYTICS_ROLLUP_WORKFLOW,
  type AnalyticsRollupInput,
} from '../workflows/analytics-rollup.contract.js';
import { searchAttributeKeys } from '../workflows/shared.js';

/**
 * The Temporal Schedules the service runs, made sure of when a worker starts: created when missing,
 * brought to the configured interval when it differs. Every worker does this; the schedule id makes
 * it one schedule however many workers start.
 *
 * analytics-rollup: every ANALYTICS_ROLLUP_MINUTES, fold booking statistics and recount travel
 * frequency. A run still going when the next is due makes the next one skip (overlap SKIP); runs
 * missed while the cluster was down are not caught up beyond one interval.
 */
export async function ensureSchedules(
  client: Client,
  config: Pick<Config, 'ANALYTICS_ROLLUP_MINUTES' | 'TEMPORAL_TASK_QUEUE'>,
  logger: Logger,
  /** Created paused (tests; an operator holding the roll-up): an existing schedule keeps its state. */
  options: { paused?: boolean } = {},
): Promise<void> {
  const every = `${config.ANALYTICS_ROLLUP_MINUTES} minutes`;
  const input: AnalyticsRollupInput = {};
  const schedule = {
    spec: { intervals: [{ every }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: ANALYTICS_ROLLUP_WORKFLOW,
      workflowId: ANALYTICS_ROLLUP_SCHEDULE_ID,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
      workflowExecutionTimeout: '30 minutes',
      typedSearchAttributes: [{ key: searchAttributeKeys.processStatus, value: 'SCHEDULED' }],
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: every },
  };
  try {
    await client.schedule.create({
      scheduleId: ANALYTICS_ROLLUP_SCHEDULE_ID,
      ...schedule,
      state: { paused: options.paused ?? false },
    });
    logger.info({ scheduleId: ANALYTICS_ROLLUP_SCHEDULE_ID, every }, 'schedule created');
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    const handle = client.schedule.getHandle(ANALYTICS_ROLLUP_SCHEDULE_ID);
    await handle.update((previous) => ({ ...previous, ...schedule }));
  }
}
