import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ScheduleClaim, ScheduleClaimInput, ScheduleProgress } from '../domain/trip-schedules.js';

export type {
  ScheduleClaim,
  ScheduleClaimInput,
  ScheduleCommitRequest,
  ScheduleProgress,
  ScheduleProgressRow,
  SchedulePhase,
} from '../domain/trip-schedules.js';

/**
 * The contract of the `tripSchedule` workflow (id trip-schedule/{scheduleId}): one committed
 * schedule. The POST starts it with the `claim` Update (update-with-start), which answers the
 * claim or its refusal; then the workflow creates the trips batch by batch. `progress` is the
 * Query operators and the API read; the ProcessStatus search attribute shows the same.
 */
export const TRIP_SCHEDULE_WORKFLOW = 'tripSchedule';

export interface TripScheduleInput {
  claim: ScheduleClaimInput;
  /** Longest one batch may run before another attempt (config SCHEDULE_BATCH_TIMEOUT_SECONDS). */
  batchTimeoutSeconds: number;
  /**
   * Epoch ms: the claim commits before this instant (the database's clock) or refuses, writing
   * nothing, so a POST that stopped waiting (503) never leaves a schedule behind. Set by the API
   * before its own wait for the claim ends; absent in runs started before it existed (no limit).
   */
  claimBy?: number;
}

export const claimUpdate = defineUpdate<ScheduleClaim, []>('claim');
export const progressQuery = defineQuery<ScheduleProgress>('progress');
