import { conflictView, type Conflict } from '../../../domain/trip-conflicts.js';
import { PlanningRefusal } from '../../../domain/trip-planning.js';
import {
  batchCount,
  type ScheduleClaim,
  type ScheduleClaimInput,
  type ScheduleProgressRow,
} from '../../../domain/trip-schedules.js';
import type { Database, TransactionClient } from '../../orm.js';
import { planSchedule } from '../../queries/trip-plan.js';
import { lockActingMember } from '../acting-member.js';
import { refuseWhenLate } from '../deadline.js';
import { auditAct } from './act.js';
import { lockPlanningResources } from './locks.js';

/**
 * The transactions of the trip-schedule workflow (trip-schedule/{scheduleId}); the batches are in
 * schedule-batches.ts:
 *
 * - the claim checks the whole plan under the bus and driver locks and records the schedule, with
 *   the departures in conflict skipped for good (skip_conflicts), or refuses (conflicts without
 *   skip_conflicts, nothing to create, past the API's deadline) and records nothing;
 * - each batch re-checks its trips' conflicts under the same locks, creates those without one with
 *   their stop calls, skips the others, and advances the schedule's progress, all in one
 *   transaction. A batch already counted is not done again, and (schedule, departure) is unique,
 *   so a retried batch neither duplicates nor loses a trip.
 *
 * Both first read the company row FOR SHARE: a suspended company's claim is refused (403
 * COMPANY_SUSPENDED) and a batch after its suspension ends the schedule FAILED (COMPANY_SUSPENDED).
 * A batch run late (the worker was down since the claim) skips its departures already past at its
 * own time, reporting each as DEPARTURE_IN_PAST.
 */
/** Conflicts named in a refusal: enough to act on, and how many there are. */
const REPORTED_CONFLICTS = 50;

export const PROGRESS_COLUMNS = `status, batches_total as "batchesTotal", batches_done as "batchesDone",
  trips_planned as "tripsPlanned", trips_created as "tripsCreated", trips_skipped as "tripsSkipped",
  failure_reason as "failureReason"`;

/**
 * The claim's answer, read from its row: the counts only (ScheduleClaim), never the `conflicts`
 * column, which grows with the schedule (thousands for a timetable committed again) and would
 * overflow the workflow task that carries the answer.
 */
async function storedClaim(
  client: TransactionClient,
  scheduleId: string,
): Promise<ScheduleClaim | undefined> {
  const { rows } = await client.query<ScheduleProgressRow>(
    `select ${PROGRESS_COLUMNS} from trip_schedules where id = $1`,
    [scheduleId],
  );
  return rows[0] && { scheduleId, ...rows[0] };
}

function conflictRefusal(conflicts: Conflict[]): PlanningRefusal {
  return new PlanningRefusal(
    409,
    'SCHEDULE_CONFLICTS',
    'Some trips of the schedule conflict with trips already planned; send skip_conflicts: true to create the others',
    { total: conflicts.length, conflicts: conflicts.slice(0, REPORTED_CONFLICTS).map(conflictView) },
  );
}

/**
 * Whether the company is active, its row read FOR SHARE first of the transaction's locks, as every
 * company-scoped write takes its company row: a suspension (FOR UPDATE, company-moderation.ts)
 * waits for a claim or batch in flight, and a claim or batch after it sees the suspended company.
 */
export async function companyTakesTrips(client: TransactionClient, companyId: string): Promise<boolean> {
  const { rows } = await client.query<{ status: string }>(
    'select status from companies where id = $1 for share',
    [companyId],
  );
  return rows[0]?.status === 'ACTIVE';
}

/** The claim's refusal code and a batch's failure_reason once the company is suspended. */
export const SUSPENDED = 'COMPANY_SUSPENDED';

const companySuspended = () =>
  new PlanningRefusal(403, SUSPENDED, 'The company is suspended; its data cannot be changed');

/** The claim's refusal past `claimBy` (refuseWhenLate): the commit stopped waiting for it. */
const claimLate = () =>
  new PlanningRefusal(
    409,
    'SCHEDULE_CLAIM_LATE',
    'The claim came after the commit stopped waiting for it; nothing was created',
  );

/**
 * Claims the schedule's trips (one transaction): the schedule row, or a refusal and no row. The
 * workflow adds the API's deadline `claimBy` (epoch ms, see refuseWhenLate) to the claim input.
 */
export async function claimTripSchedule(
  db: Database,
  input: ScheduleClaimInput & { claimBy?: number },
): Promise<ScheduleClaim> {
  return db.transaction(async (client) => {
    const existing = await storedClaim(client, input.scheduleId);
    if (existing) return existing;
    const { request } = input;
    if (!(await companyTakesTrips(client, input.companyId))) throw companySuspended();
    await lockActingMember(client, input.companyId, input.actor);
    await lockPlanningResources(client, {
      busIds: [request.busId],
      driverId: request.driverId,
      routeId: request.routeId,
    });
    const plan = await planSchedule(client, input.companyId, request, { notBefore: input.notBefore });
    if (plan.conflicts.length > 0 && !input.skipConflicts) throw conflictRefusal(plan.conflicts);
    const conflicting = new Set(plan.conflicts.map((conflict) => conflict.index));
    if (plan.departures.length === conflicting.size) {
      throw new PlanningRefusal(
        422,
        'SCHEDULE_EMPTY',
        'The schedule would create no trip; nothing was created',
        {
          departures: plan.departures.length,
          conflicting: conflicting.size,
        },
      );
    }
    // The departures in conflict are skipped here for good: counted and listed now, claimed by no one.
    await client.query(
      `insert into trip_schedules (id, company_id, route_id, pickup_stop_id, bus_id, driver_id, start_date, end_date,
          departure_times, days_of_week, duration_minutes, price_base, price_vip, notes, skip_conflicts, plan_from,
          batch_size, batches_total, trips_planned, created_by, skipped_departures, trips_skipped, conflicts)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
               $23::jsonb)`,
      [
        input.scheduleId,
        input.companyId,
        request.routeId,
        request.pickupStopId,
        request.busId,
        request.driverId,
        request.startDate,
        request.endDate,
        [...new Set(request.departureTimes)].sort(),
        [...new Set(request.daysOfWeek)].sort(),
        plan.durationMinutes,
        request.priceBase,
        request.priceVip,
        request.notes,
        input.skipConflicts,
        new Date(input.notBefore),
        input.batchSize,
        batchCount(plan.departures.length, input.batchSize),
        plan.departures.length,
        input.staffUserId,
        plan.departures
          .filter((_, index) => conflicting.has(index))
          .map((departure) => new Date(departure.departureAt)),
        conflicting.size,
        JSON.stringify(plan.conflicts.map(conflictView)),
      ],
    );
    const claimed = (await storedClaim(client, input.scheduleId))!;
    // Who committed it, as POST /trips records a trip (runs started before this have no origin).
    if (input.origin) {
      const act = { companyId: input.companyId, staffUserId: input.staffUserId, origin: input.origin };
      await auditAct(client, act, 'company.trip-schedule.commit', ['trip_schedule', input.scheduleId], {
        companyId: input.companyId,
        routeId: input.request.routeId,
        busId: input.request.busId,
        driverId: input.request.driverId,
        tripsPlanned: plan.departures.length,
        tripsSkippedAtClaim: conflicting.size,
      });
    }
    await refuseWhenLate(client, input.claimBy, claimLate);
    return claimed;
  });
}
