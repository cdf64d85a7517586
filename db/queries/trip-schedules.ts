import type { ConflictView } from '../../domain/trip-conflicts.js';
import type { ScheduleCommitRequest, ScheduleStatus } from '../../domain/trip-schedules.js';
import type { Database } from '../orm.js';
import { companyListing, companyRecordById } from './company-records.js';
import { iso, isoOrNull, pickColumns } from '../row-fields.js';
import type { NamedRef } from './catalogue.js';
import { namedRefOf, type NamedRefColumns } from './named-ref.js';

/** Reads of the company's trip schedules (GET /dashboard/api/trip-schedules[/{id}]). */
export interface ScheduleRecord {
  id: string;
  route_id: string;
  route: NamedRef;
  pickup_stop_id: string;
  bus_id: string;
  bus: { id: string; plate_number: string };
  driver_id: string | null;
  driver: { id: string; name: string } | null;
  start_date: string;
  end_date: string;
  departure_time: string;
  departure_times: string[];
  days_of_week: number[];
  duration_minutes: number;
  price_base: number;
  price_vip: number | null;
  currency: string;
  notes: string;
  skip_conflicts: boolean;
  status: ScheduleStatus;
  progress: {
    batches_total: number;
    batches_done: number;
    trips_planned: number;
    trips_created: number;
    trips_skipped: number;
  };
  failure_reason: string | null;
  conflicts: ConflictView[];
  created_by: string;
  created_at: string;
  completed_at: string | null;
}

/** The route under the prefix route; the progress counters as columns. */
type ScheduleRow = Omit<
  ScheduleRecord,
  'route' | 'bus' | 'driver' | 'progress' | 'price_base' | 'price_vip'
> &
  NamedRefColumns<'route'> &
  ScheduleRecord['progress'] & {
    plate_number: string;
    driver_name: string | null;
    price_base: string;
    price_vip: string | null;
    total: number;
  };

function toRecord(row: ScheduleRow): ScheduleRecord {
  return {
    id: row.id,
    route_id: row.route_id,
    route: namedRefOf(row, 'route'),
    pickup_stop_id: row.pickup_stop_id,
    bus_id: row.bus_id,
    bus: { id: row.bus_id, plate_number: row.plate_number },
    driver_id: row.driver_id,
    driver: row.driver_id === null ? null : { id: row.driver_id, name: row.driver_name ?? '' },
    start_date: row.start_date,
    end_date: row.end_date,
    departure_time: row.departure_times[0]!,
    departure_times: row.departure_times,
    days_of_week: row.days_of_week,
    duration_minutes: row.duration_minutes,
    price_base: Number(row.price_base),
    price_vip: row.price_vip === null ? null : Number(row.price_vip),
    currency: row.currency,
    notes: row.notes,
    skip_conflicts: row.skip_conflicts,
    status: row.status,
    progress: pickColumns(row, [
      'batches_total',
      'batches_done',
      'trips_planned',
      'trips_created',
      'trips_skipped',
    ]),
    failure_reason: row.failure_reason,
    conflicts: row.conflicts,
    created_by: row.created_by,
    created_at: iso(row.created_at),
    completed_at: isoOrNull(row.completed_at),
  };
}

const SCHEDULE_SELECT = `
  select s.id, s.route_id, r.name_ar as route_name_ar, r.name_en as route_name_en, s.pickup_stop_id, s.bus_id,
         b.plate_number, s.driver_id, u.name as driver_name, to_char(s.start_date, 'YYYY-MM-DD') as start_date,
         to_char(s.end_date, 'YYYY-MM-DD') as end_date, s.departure_times, s.days_of_week, s.duration_minutes,
         s.price_base, s.price_vip, s.currency, s.notes, s.skip_conflicts, s.status, s.batches_total, s.batches_done,
         s.trips_planned, s.trips_created, s.trips_skipped, s.failure_reason, s.conflicts, s.created_by, s.created_at,
         s.completed_at, count(*) over ()::int as total
  from trip_schedules s
  join routes r on r.id = s.route_id
  join buses b on b.id = s.bus_id
  left join staff_users u on u.id = s.driver_id`;

/** The company's schedules, latest first. */
export const listTripSchedules = companyListing('schedules', {
  select: `${SCHEDULE_SELECT} where s.company_id = $1`,
  orderBy: 's.created_at desc, s.id',
  map: toRecord,
});

/** One schedule of the company, or undefined (another company's is the same as none). */
export const findTripSchedule = companyRecordById(SCHEDULE_SELECT, 's', toRecord);

/**
 * A schedule's plan as its row stores it, the claim's input: what the batches run
 * (db/writes/planning/schedule-batches.ts) and a resumed run's claim (committingSchedules) read.
 */
export interface StoredPlanRow {
  id: string;
  claim_order: string;
  company_id: string;
  route_id: string;
  pickup_stop_id: string;
  bus_id: string;
  driver_id: string | null;
  start_date: string;
  end_date: string;
  departure_times: string[];
  days_of_week: number[];
  duration_minutes: number;
  price_base: string;
  price_vip: string | null;
  plan_from_ms: number;
  batch_size: number;
}

/** The columns of StoredPlanRow, from trip_schedules. */
export const STORED_PLAN_COLUMNS = `id, claim_order, company_id, route_id, pickup_stop_id, bus_id, driver_id,
  to_char(start_date, 'YYYY-MM-DD') as start_date, to_char(end_date, 'YYYY-MM-DD') as end_date,
  departure_times, days_of_week, duration_minutes, price_base, price_vip,
  extract(epoch from plan_from)::float8 * 1000 as plan_from_ms, batch_size`;

/**
 * A schedule still COMMITTING as its record holds it: what restarting its workflow needs
 * (worker/schedule-resumer.ts), the claim's input rebuilt from the row the claim wrote.
 */
export interface CommittingSchedule {
  scheduleId: string;
  /** The claim's place in claim order: the next page starts after it. */
  claimOrder: number;
  companyId: string;
  staffUserId: string;
  request: ScheduleCommitRequest;
  skipConflicts: boolean;
  batchSize: number;
  /** plan_from, epoch ms: the claim's notBefore. */
  notBefore: number;
}

/**
 * A page of the schedules still COMMITTING, in claim order after `after` (the partial indexes on
 * status = 'COMMITTING' keep this to the few schedules being committed, however many the table holds).
 */
export async function committingSchedules(
  db: Database,
  page: { after: number; limit: number },
): Promise<CommittingSchedule[]> {
  const rows = await db.query<StoredPlanRow & { created_by: string; notes: string; skip_conflicts: boolean }>(
    `select ${STORED_PLAN_COLUMNS}, created_by, notes, skip_conflicts
     from trip_schedules where status = 'COMMITTING' and claim_order > $1 order by claim_order limit $2`,
    [page.after, page.limit],
  );
  return rows.map((row) => ({
    scheduleId: row.id,
    claimOrder: Number(row.claim_order),
    companyId: row.company_id,
    staffUserId: row.created_by,
    request: {
      routeId: row.route_id,
      pickupStopId: row.pickup_stop_id,
      busId: row.bus_id,
      driverId: row.driver_id,
      startDate: row.start_date,
      endDate: row.end_date,
      departureTimes: row.departure_times,
      daysOfWeek: row.days_of_week,
      durationMinutes: row.duration_minutes,
      priceBase: Number(row.price_base),
      priceVip: row.price_vip === null ? null : Number(row.price_vip),
      notes: row.notes,
    },
    skipConflicts: row.skip_conflicts,
    batchSize: row.batch_size,
    notBefore: row.plan_from_ms,
  }));
}
