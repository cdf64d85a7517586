import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ANALYTICS_ROLLUP_WORKFLOW,
  RECOUNT_BATCH,
  type AnalyticsRollupInput,
} from '../../../workflows/analytics-rollup.contract.js';
import type { analyticsRollup } from '../../../workflows/analytics-rollup.js';
import { searchAttributeKeys, workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import { Calls, useWorkflowEnvironment } from '../../support/workflow-env.js';

type RollupSteps = Pick<Activities, 'foldBookingStats' | 'frequencyRecountsDue' | 'recountTravelFrequency'>;

describe('analyticsRollup workflow (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  function steps(calls: Calls, due: string[]): RollupSteps {
    return {
      async foldBookingStats(input) {
        calls.record('foldBookingStats', input);
        return { deltas: 42, changedCompanyIds: due.slice(0, 2) };
      },
      async frequencyRecountsDue(input) {
        calls.record('frequencyRecountsDue', input);
        return due;
      },
      async recountTravelFrequency(input) {
        calls.record('recountTravelFrequency', input);
        return input.companyIds.length;
      },
    };
  }

  const run = (
    taskQueue: string,
    input: AnalyticsRollupInput,
    workflowId = workflowIds.analyticsRollup(randomUUID()),
  ) =>
    temporal.client.workflow.start<typeof analyticsRollup>(ANALYTICS_ROLLUP_WORKFLOW, {
      workflowId,
      taskQueue,
      args: [input],
    });

  it('folds first, then recounts the companies due in batches, and reports what it did', async () => {
    const calls = new Calls();
    const due = Array.from({ length: RECOUNT_BATCH * 2 + 3 }, (_, index) => `company-${index}`);
    await temporal.withWorker(steps(calls, due), async (taskQueue) => {
      const handle = await run(taskQueue, {});
      expect(await handle.result()).toEqual({ deltasFolded: 42, companiesRecounted: due.length });
      const described = await handle.describe();
      expect(described.typedSearchAttributes.get(searchAttributeKeys.processStatus)).toBe('DONE');
    });
    expect(calls.names()).toEqual([
      'foldBookingStats',
      'frequencyRecountsDue',
      'recountTravelFrequency',
      'recountTravelFrequency',
      'recountTravelFrequency',
    ]);
    expect(calls.inputsOf('frequencyRecountsDue')).toEqual([{ changedCompanyIds: due.slice(0, 2) }]);
    expect(calls.inputsOf('recountTravelFrequency').map((input: any) => input.companyIds.length)).toEqual([
      RECOUNT_BATCH,
      RECOUNT_BATCH,
      3,
    ]);
  });

  it('keeps a manual run to the companies it was given', async () => {
    const calls = new Calls();
    await temporal.withWorker(steps(calls, ['company-a']), async (taskQueue) => {
      expect(await (await run(taskQueue, { companyIds: ['company-a'] })).result()).toEqual({
        deltasFolded: 42,
        companiesRecounted: 1,
      });
    });
    expect(calls.inputsOf('foldBookingStats')).toEqual([{ companyIds: ['company-a'] }]);
    expect(calls.inputsOf('frequencyRecountsDue')).toEqual([
      { changedCompanyIds: ['company-a'], only: ['company-a'] },
    ]);
  });
});
