import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import {
  RECOUNT_BATCH,
  type AnalyticsRollupInput,
  type AnalyticsRollupResult,
} from './analytics-rollup.contract.js';
import { searchAttributeKeys } from './shared.js';
import type { Activities } from './steps.js';

/** Background work nobody waits for: retried patiently; the next scheduled run starts over anyway. */
const rollup = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

const phase = (value: 'FOLDING' | 'COUNTING' | 'DONE') =>
  upsertSearchAttributes([{ key: searchAttributeKeys.processStatus, value }]);

/**
 * One run of the analytics roll-up: fold the booking statistics' deltas into their daily rows,
 * then recount the travel frequency of every company whose bookings changed or whose counts are
 * from an earlier day, a batch of companies per activity.
 */
export async function analyticsRollup(input: AnalyticsRollupInput = {}): Promise<AnalyticsRollupResult> {
  phase('FOLDING');
  const folded = await rollup.foldBookingStats({ companyIds: input.companyIds });
  phase('COUNTING');
  const due = await rollup.frequencyRecountsDue({
    changedCompanyIds: folded.changedCompanyIds,
    only: input.companyIds,
  });
  let companiesRecounted = 0;
  for (let start = 0; start < due.length; start += RECOUNT_BATCH) {
    companiesRecounted += await rollup.recountTravelFrequency({
      companyIds: due.slice(start, start + RECOUNT_BATCH),
    });
  }
  phase('DONE');
  return { deltasFolded: folded.deltas, companiesRecounted };
}
