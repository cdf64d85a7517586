import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Database } from '../../db/orm.js';
import { findTripSchedule, type ScheduleRecord } from '../../db/queries/trip-schedules.js';
import type { StaffAct } from '../../db/writes/planning/act.js';
import { planSchedule } from '../../db/queries/trip-plan.js';
import { conflictView } from '../../domain/trip-conflicts.js';
import { notFound, PlanningRefusal } from '../../domain/trip-planning.js';
import { timetableIssues, type ScheduleCommitRequest } from '../../domain/trip-schedules.js';
import { damascusDate } from '../../domain/time.js';
import type { TripScheduleClient } from '../temporal/trip-schedule-client.js';
import type { ScheduleBody } from '../dashboard/trip-schedules.openapi.js';

/**
 * POST /dashboard/api/trip-schedules in its two forms, and the read of one schedule with its live
 * progress. Preview reads and writes nothing; commit hands the schedule to its workflow.
 */

/** The body as the planner reads it, after the date rules (400 with the first rule's code). */
export function scheduleRequest(body: z.output<typeof ScheduleBody>): ScheduleCommitRequest {
  const issues = timetableIssues(
    { startDate: body.start_date, endDate: body.end_date },
    damascusDate(new Date()),
  );
  if (issues.length > 0) {
    throw new PlanningRefusal(400, issues[0]!.code, issues[0]!.message, {
      issues: issues.map((issue) => ({ ...issue, path: `body.${issue.path}` })),
    });
  }
  return {
    routeId: body.route_id,
    pickupStopId: body.pickup_stop_id,
    busId: body.bus_id,
    driverId: body.driver_id,
    startDate: body.start_date,
    endDate: body.end_date,
    departureTimes: typeof body.departure_time === 'string' ? [body.departure_time] : body.departure_time,
    daysOfWeek: body.days_of_week,
    durationMinutes: body.duration_minutes,
    priceBase: body.price_base,
    priceVip: body.price_vip,
    notes: body.notes,
  };
}

/** commit false: the trips the schedule would create and their conflicts, written nowhere. */
export async function previewSchedule(db: Database, companyId: string, request: ScheduleCommitRequest) {
  const plan = await planSchedule(db.pool, companyId, request, { notBefore: Date.now() });
  const kinds = new Map<number, Set<string>>();
  for (const conflict of plan.conflicts) {
    kinds.set(conflict.index, (kinds.get(conflict.index) ?? new Set()).add(conflict.kind));
  }
  return {
    trips: plan.departures.map((departure, index) => ({
      operating_date: departure.operatingDate,
      departure_at: new Date(departure.departureAt).toISOString(),
      arrival_at: new Date(departure.arrivalAt).toISOString(),
      conflicts: [...(kinds.get(index) ?? [])],
    })),
    conflicts: plan.conflicts.map(conflictView),
    summary: {
      trips_planned: plan.departures.length,
      conflicting: kinds.size,
      would_create: plan.departures.length - kinds.size,
    },
  };
}

export type CommitAnswer =
  | { status: 201; schedule: ScheduleRecord }
  | { status: 202; scheduleId: string; progress: ScheduleRecord['progress'] };

/**
 * commit true: the workflow's claim answers (or refuses); the trips follow in its batches. The
 * claim checks `act.actor` again under the company lock.
 */
export async function commitSchedule(
  deps: { db: Database; schedules: TripScheduleClient; batchSize: number },
  act: Required<StaffAct>,
  request: ScheduleCommitRequest,
  skipConflicts: boolean,
): Promise<CommitAnswer> {
  const scheduleId = randomUUID();
  const { claim, outcome } = await deps.schedules.commit({
    scheduleId,
    companyId: act.companyId,
    staffUserId: act.staffUserId,
    actor: act.actor,
    request,
    skipConflicts,
    batchSize: deps.batchSize,
    notBefore: Date.now(),
    origin: act.origin,
  });
  if (outcome)
    return { status: 201, schedule: (await findTripSchedule(deps.db, act.companyId, scheduleId))! };
  return {
    status: 202,
    scheduleId,
    progress: {
      batches_total: claim.batchesTotal,
      batches_done: claim.batchesDone,
      trips_planned: claim.tripsPlanned,
      trips_created: claim.tripsCreated,
      trips_skipped: claim.tripsSkipped,
    },
  };
}

/** One schedule of the company with, while it commits, its workflow's progress Query. */
export async function scheduleWithProgress(
  deps: { db: Database; schedules: TripScheduleClient },
  companyId: string,
  scheduleId: string,
) {
  const schedule = await findTripSchedule(deps.db, companyId, scheduleId);
  if (!schedule) throw notFound('SCHEDULE');
  if (schedule.status !== 'COMMITTING') return { ...schedule, workflow_progress: null };
  const live = await deps.schedules.progress(scheduleId);
  return {
    ...schedule,
    workflow_progress: live && {
      phase: live.phase,
      batches_total: live.batchesTotal,
      batches_done: live.batchesDone,
      trips_planned: live.tripsPlanned,
      trips_created: live.tripsCreated,
      trips_skipped: live.tripsSkipped,
    },
  };
}
