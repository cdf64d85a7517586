/**
 * Value types of the analytics-rollup workflow, shared by its contract, its activities and the
 * worker's schedule.
 */
export interface AnalyticsRollupInput {
  /** Only these companies (a test, or an operator's manual run); absent: every company. */
  companyIds?: string[];
}

export interface AnalyticsRollupResult {
  deltasFolded: number;
  companiesRecounted: number;
}

/** Companies recounted by one activity call, so each call stays short. */
export const RECOUNT_BATCH = 20;
