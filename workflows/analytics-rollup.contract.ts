/**
 * The analytics-rollup workflow's contract: started every ANALYTICS_ROLLUP_MINUTES by the Temporal
 * Schedule `analytics-rollup` (worker/schedules.ts), or by hand with an id from
 * workflowIds.analyticsRollup. It folds booking statistics and recounts travel frequency.
 */
export const ANALYTICS_ROLLUP_WORKFLOW = 'analyticsRollup';
export const ANALYTICS_ROLLUP_SCHEDULE_ID = 'analytics-rollup';

export {
  RECOUNT_BATCH,
  type AnalyticsRollupInput,
  type AnalyticsRollupResult,
} from '../domain/analytics-rollup.js';
