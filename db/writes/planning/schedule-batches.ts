import { randomUUID } from 'node:crypto';
import { tripStopCalls } from '../../../domain/route-plan.js';
import { conflictView, type ConflictView } from '../../../domain/trip-conflicts.js';
import { lastDateRefusal, PlanningRefusal } from '../../../domain/trip-planning.js';
import {
  batchOf,
  expandTimetable,
  type PlannedDeparture,
  type ScheduleProgressRow,
  type ScheduleStatus,
} from '../../../domain/trip-schedules.js';
import type { Database, TransactionClient } from '../../orm.js';
import { planningConflicts } from '../../queries/planning.js';
import { STORED_PLAN_COLUMNS, type StoredPlanRow } from '../../queries/trip-schedules.js';
import { resolveTripRefs } from '../../queries/trip-plan.js';
import { recordStaffAudit } from '../audit.js';
import { insertTrips } from '../catalogue.js';
import { giveLegacyBusLayout } from './legacy-layout.js';
import { lockPlanningResources } from './locks.js';
import { companyTakesTrips, PROGRESS_COLUMNS, SUSPENDED } from './trip-schedules.js';

/**
 * The batches of a claimed trip schedule (the claim is in trip-schedules.ts), one transaction each:
 * a batch re-checks its trips' conflicts under the claim's locks, creates those without one with
 * their stop calls, skips the others, and advances the schedule's progress. A batch already counted
 * is not done again, and (schedule, departure) is unique, so a retried batch neither duplicates nor
 * loses a trip.
 */
interface ScheduleRow extends StoredPlanRow {
  batches_done: number;
  batches_total: number;
  status: ScheduleStatus;
  /** The departures the claim skipped for good (epoch ms). */
  skipped_ms: number[];
  /** The staff member who committed the schedule: the batch's changes are theirs in the audit log. */
  created_by: string;
}

async function lockedSchedule(client: TransactionClient, scheduleId: string): Promise<ScheduleRow> {
  const { rows } = await client.query<ScheduleRow>(
    `select ${STORED_PLAN_COLUMNS}, batches_done, batches_total, status, created_by,
            array(select round(extract(epoch from d) * 1000)::float8 from unnest(skipped_departures) d) as skipped_ms
     from trip_schedules where id = $1 for update`,
    [scheduleId],
  );
  if (!rows[0]) throw new Error(`trip schedule ${scheduleId} does not exist`);
  return rows[0];
}

async function progressOf(client: TransactionClient, scheduleId: string): Promise<ScheduleProgressRow> {
  const { rows } = await client.query<ScheduleProgressRow>(
    `select ${PROGRESS_COLUMNS} from trip_schedules where id = $1`,
    [scheduleId],
  );
  return rows[0]!;
}

/** Ends the schedule as FAILED: a rule refused its next batch, which created nothing. */
async function failSchedule(
  client: TransactionClient,
  scheduleId: string,
  reason: string,
  conflicts: ConflictView[] = [],
): Promise<ScheduleProgressRow> {
  await client.query(
    `update trip_schedules set status = 'FAILED', failure_reason = $2, conflicts = conflicts || $3::jsonb,
            completed_at = now()
     where id = $1`,
    [scheduleId, reason, JSON.stringify(conflicts)],
  );
  return progressOf(client, scheduleId);
}

/** failure_reason of a schedule whose workflow an operator cancelled while it committed. */
export const OPERATOR_CANCELLED = 'OPERATOR_CANCELLED';

/**
 * Ends a schedule still COMMITTING as FAILED, OPERATOR_CANCELLED: an operator cancelled its
 * workflow in the Temporal UI to stop it (worker/schedule-resumer.ts). The trips of its batches
 * before stay, its claim on the departures left ends, and a batch of the cancelled run still in
 * flight finds it no longer COMMITTING and creates nothing. Answers whether it ended it.
 */
export async function endCancelledSchedule(db: Database, scheduleId: string): Promise<boolean> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<{ status: ScheduleStatus }>(
      `select status from trip_schedules where id = $1 for update`,
      [scheduleId],
    );
    if (rows[0]?.status !== 'COMMITTING') return false;
    await failSchedule(client, scheduleId, OPERATOR_CANCELLED);
    return true;
  });
}

/** The driver, bus and pickup stop resolved again, in case they changed since the claim. */
async function batchRefs(client: TransactionClient, schedule: ScheduleRow) {
  return resolveTripRefs(client, schedule.company_id, {
    routeId: schedule.route_id,
    busId: schedule.bus_id,
    driverId: schedule.driver_id,
    pickupStopId: schedule.pickup_stop_id,
    durationMinutes: schedule.duration_minutes,
  });
}

/** Why a batch skipped a departure that met no conflict: it had left when the batch ran. */
const DEPARTED = 'DEPARTURE_IN_PAST';

/**
 * The batch's departures split at the transaction's time (now()): those still ahead, and a skipped
 * entry for each one already past (POST /trips refuses such a trip with DEPARTURE_IN_PAST), recorded
 * in the schedule's conflicts with its own departure and arrival as the window. The claim filtered
 * only up to its own time, so a batch run days later meets them. Their claim needs no release: a
 * schedule claims the departures of its batches not yet done (db/queries/planning.ts
 * claimedWindows), and this batch counts itself done.
 */
async function splitDeparted(client: TransactionClient, batch: PlannedDeparture[]) {
  const { rows } = await client.query<{ now_ms: number }>(
    'select extract(epoch from now())::float8 * 1000 as now_ms',
  );
  const now = rows[0]!.now_ms;
  const iso = (instant: number) => new Date(instant).toISOString();
  return {
    ahead: batch.filter((departure) => departure.departureAt > now),
    departed: batch
      .filter((departure) => departure.departureAt <= now)
      .map((departure) => ({
        kind: DEPARTED,
        departure_at: iso(departure.departureAt),
        trip_id: null,
        schedule_id: null,
        busy_from: iso(departure.departureAt),
        busy_until: iso(departure.arrivalAt),
      })),
  };
}

/** A batch's locks, in the claim's order: the company row, the bus, driver and route, the schedule. */
async function lockBatch(client: TransactionClient, scheduleId: string) {
  const { rows } = await client.query<{
    company_id: string;
    bus_id: string;
    driver_id: string | null;
    route_id: string;
  }>('select company_id, bus_id, driver_id, route_id from trip_schedules where id = $1', [scheduleId]);
  const [resources] = rows;
  if (!resources) throw new Error(`trip schedule ${scheduleId} does not exist`);
  const companyActive = await companyTakesTrips(client, resources.company_id);
  await lockPlanningResources(client, {
    busIds: [resources.bus_id],
    driverId: resources.driver_id,
    routeId: resources.route_id,
  });
  return { schedule: await lockedSchedule(client, scheduleId), companyActive };
}

/** The batch's trips, each with its stop calls from the route (resolved again at the batch). */
function scheduledTrips(
  schedule: ScheduleRow,
  refs: Awaited<ReturnType<typeof batchRefs>>,
  departures: PlannedDeparture[],
) {
  return departures.map((departure) => ({
    id: randomUUID(),
    companyId: schedule.company_id,
    routeId: schedule.route_id,
    busId: schedule.bus_id,
    driverId: schedule.driver_id,
    scheduleId: schedule.id,
    pickupStopId: schedule.pickup_stop_id,
    priceBase: Number(schedule.price_base),
    priceVip: schedule.price_vip === null ? null : Number(schedule.price_vip),
    seatsTotal: refs.seatsTotal,
    calls: tripStopCalls(refs.route.stops, departure.departureAt, schedule.duration_minutes),
  }));
}

/**
 * Batch `batchIndex` of the schedule in one transaction: leaves out the departures the claim
 * skipped, skips those already past (see splitDeparted), re-checks the others' conflicts (against
 * trips and earlier claims) under the bus and driver locks, creates those without one and counts
 * the batch done. A conflict met here skips only its departure, whatever skip_conflicts: the claim
 * reserved every departure, so it comes from a change the claim cannot hold off (a delay announced
 * on another trip of the bus or driver), and the schedule's other trips are still created.
 */
export async function commitScheduleBatch(
  db: Database,
  input: { scheduleId: string; batchIndex: number },
): Promise<ScheduleProgressRow> {
  return db.transaction(async (client) => {
    const { schedule, companyActive } = await lockBatch(client, input.scheduleId);
    if (schedule.status !== 'COMMITTING' || schedule.batches_done > input.batchIndex) {
      return progressOf(client, schedule.id);
    }
    if (schedule.batches_done < input.batchIndex) {
      throw new Error(`batch ${input.batchIndex} of ${schedule.id} before batch ${schedule.batches_done}`);
    }
    // Suspended since the claim: the schedule ends here, its later trips never created.
    if (!companyActive) return failSchedule(client, schedule.id, SUSPENDED);
    let refs;
    try {
      refs = await batchRefs(client, schedule);
    } catch (error) {
      if (error instanceof PlanningRefusal) return failSchedule(client, schedule.id, error.code);
      throw error;
    }
    const skippedAtClaim = new Set(schedule.skipped_ms);
    const batch = batchOf(timetableDepartures(schedule), input.batchIndex, schedule.batch_size).filter(
      (departure) => !skippedAtClaim.has(departure.departureAt),
    );
    // The claim refuses these trips; a schedule claimed before it did fails here rather than retry for ever.
    const late = lastDateRefusal(batch);
    if (late) return failSchedule(client, schedule.id, late.code);
    const { ahead, departed } = await splitDeparted(client, batch);
    const conflicts = await planningConflicts(
      client,
      {
        busId: schedule.bus_id,
        driverId: schedule.driver_id,
        routeId: schedule.route_id,
        excludeScheduleId: schedule.id,
        claimedBefore: Number(schedule.claim_order),
      },
      ahead,
    );
    const conflicting = new Set(conflicts.map((conflict) => conflict.index));
    const trips = scheduledTrips(
      schedule,
      refs,
      ahead.filter((_, index) => !conflicting.has(index)),
    );
    // A legacy bus gets its generated layout with its first trips, as POST /trips gives it (legacy-layout.ts),
    // recorded as the act of the staff member who committed the schedule.
    const generated = trips.length > 0 ? await giveLegacyBusLayout(client, schedule.bus_id, refs.bus) : null;
    if (generated) {
      await recordStaffAudit(
        client,
        { staffUserId: schedule.created_by, companyId: schedule.company_id },
        'company.bus.layout.generate',
        { kind: 'bus', id: schedule.bus_id },
        { version: generated.version, seatCount: generated.seatCount, scheduleId: schedule.id },
      );
    }
    const created = await insertTrips(client, trips);
    await client.query(
      `update trip_schedules
       set batches_done = batches_done + 1, trips_created = trips_created + $2, trips_skipped = trips_skipped + $3,
           conflicts = conflicts || $4::jsonb,
           status = case when batches_done + 1 = batches_total then 'COMPLETED' else status end,
           completed_at = case when batches_done + 1 = batches_total then now() end
       where id = $1`,
      [
        schedule.id,
        created.trips,
        departed.length + conflicting.size,
        JSON.stringify([...departed, ...conflicts.map(conflictView)]),
      ],
    );
    return progressOf(client, schedule.id);
  });
}

function timetableDepartures(schedule: ScheduleRow) {
  return expandTimetable({
    startDate: schedule.start_date,
    endDate: schedule.end_date,
    departureTimes: schedule.departure_times,
    daysOfWeek: schedule.days_of_week,
    durationMinutes: schedule.duration_minutes,
    notBefore: schedule.plan_from_ms,
  });
}
