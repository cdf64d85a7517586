import { commitScheduleBatch } from '../db/writes/planning/schedule-batches.js';
import { claimTripSchedule } from '../db/writes/planning/trip-schedules.js';
import { Refusal } from '../domain/refusal.js';
import type { ScheduleClaimInput } from '../domain/trip-schedules.js';
import type { ActivityDeps } from './index.js';
import { refusable } from './refusable.js';

/**
 * The trip-schedule workflow's effects, one transaction each (db/writes/planning/trip-schedules.ts and
 * schedule-batches.ts):
 * the claim (a refusal, the plan's or the acting member's, comes back as data for the POST that
 * started the workflow) and each batch,
 * idempotent under retry.
 */
export function createTripScheduleActivities({ db }: ActivityDeps) {
  return {
    claimTripSchedule: (input: ScheduleClaimInput) => refusable(Refusal, () => claimTripSchedule(db, input)),
    commitTripScheduleBatch: (input: { scheduleId: string; batchIndex: number }) =>
      commitScheduleBatch(db, input),
  };
}
