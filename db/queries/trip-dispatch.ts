import type { ReadinessFacts, TripStatus } from '../../domain/trip-dispatch.js';
import { usableStop } from '../../domain/trip-planning.js';
import type { Database } from '../orm.js';
import { companyRecordById } from './company-records.js';
import { overdueScopeSql } from './journeys.js';
import { cashToCollectSql } from './trip-manifest.js';
import { PICKUP_COLUMNS, toPickupLocation, type PickupLocation, type PickupRow } from './pickup-location.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';
import type { TripActualTimesRow } from './trip-times.js';
import { camelFields, iso, isoOrNull, type CamelFields } from '../row-fields.js';

/**
 * Reads of the trip operations room (GET /dashboard/api/trips/{id}/dispatch): the trip's set-up
 * (route, bus and layout, driver, pickup point, stop calls), the facts its readiness is judged by,
 * and the operations log. The manifest is in trip-manifest.ts. Instants arrive as text.
 */

interface TripSetupRow extends PickupRow, TripActualTimesRow {
  company_id: string;
  seats_total: number;
  route_id: string;
  route_name_ar: string;
  route_name_en: string;
  origin_city_id: string;
  origin_name_ar: string;
  origin_name_en: string;
  destination_city_id: string;
  destination_name_ar: string;
  destination_name_en: string;
  bus_id: string;
  plate_number: string;
  bus_model: string;
  bus_status: string;
  bus_capacity: number;
  layout_id: string | null;
  layout_version: number | null;
  layout_seat_count: number | null;
  driver_id: string | null;
  driver_name: string | null;
  driver_email: string | null;
  driver_active: boolean;
  pickup_enabled: boolean;
  pickup_city_id: string;
  pickup_company_id: string | null;
  pickup_kind: string;
}

/** How the pickup point stands: CONFIRMED, or UNCONFIRMED with what is wrong. */
export type PickupIssue = 'STOP_DISABLED' | 'OUTSIDE_ORIGIN_CITY' | 'NOT_A_PICKUP_POINT';

export interface TripSetup {
  id: string;
  companyId: string;
  status: TripStatus;
  operatingDate: string;
  departureAt: string;
  arrivalAt: string;
  delayMinutes: number;
  actualDepartureAt: string | null;
  actualArrivalAt: string | null;
  seatsTotal: number;
  route: {
    id: string;
    nameAr: string;
    nameEn: string;
    origin: { id: string; nameAr: string; nameEn: string };
    destination: { id: string; nameAr: string; nameEn: string };
  };
  bus: {
    id: string;
    plateNumber: string;
    model: string;
    status: string;
    capacity: number;
    layout: { id: string; version: number; seatCount: number } | null;
  };
  driver: { id: string; name: string | null; email: string | null; active: boolean } | null;
  pickup: { snapshot: PickupLocation; issues: PickupIssue[] };
}

/**
 * What is wrong with the trip's pickup stop, judged by planning's rule (domain/trip-planning.ts
 * usableStop, which POST /trips and GET /pickup-locations follow): a public stop or one of the
 * company's own, of a kind travellers use, enabled, in the route's origin city.
 */
function pickupIssues(row: TripSetupRow): PickupIssue[] {
  const stop = {
    id: row.pickup_id,
    city_id: row.pickup_city_id,
    company_id: row.pickup_company_id,
    kind: row.pickup_kind,
    enabled: row.pickup_enabled,
  };
  const issues: PickupIssue[] = [];
  if (!stop.enabled) issues.push('STOP_DISABLED');
  if (stop.city_id !== row.origin_city_id) issues.push('OUTSIDE_ORIGIN_CITY');
  // A disabled stop is said above: judged as if enabled, what is left is whether it is a pickup point.
  if (!usableStop({ ...stop, enabled: true }, row.company_id)) issues.push('NOT_A_PICKUP_POINT');
  return issues;
}

function toTripSetup(row: TripSetupRow): TripSetup {
  const issues = pickupIssues(row);
  return {
    id: row.id,
    companyId: row.company_id,
    status: row.status,
    operatingDate: row.operating_date,
    departureAt: iso(row.departure_at),
    arrivalAt: iso(row.arrival_at),
    delayMinutes: row.delay_minutes,
    actualDepartureAt: isoOrNull(row.actual_departure_at),
    actualArrivalAt: isoOrNull(row.actual_arrival_at),
    seatsTotal: row.seats_total,
    route: {
      id: row.route_id,
      nameAr: row.route_name_ar,
      nameEn: row.route_name_en,
      origin: { id: row.origin_city_id, nameAr: row.origin_name_ar, nameEn: row.origin_name_en },
      destination: {
        id: row.destination_city_id,
        nameAr: row.destination_name_ar,
        nameEn: row.destination_name_en,
      },
    },
    bus: {
      id: row.bus_id,
      plateNumber: row.plate_number,
      model: row.bus_model,
      status: row.bus_status,
      capacity: row.bus_capacity,
      layout:
        row.layout_id === null
          ? null
          : { id: row.layout_id, version: row.layout_version!, seatCount: row.layout_seat_count! },
    },
    driver:
      row.driver_id === null
        ? null
        : { id: row.driver_id, name: row.driver_name, email: row.driver_email, active: row.driver_active },
    pickup: { snapshot: toPickupLocation(row), issues },
  };
}

/**
 * The assigned driver counts when an active user holds an active DRIVER membership of the trip's
 * company (trips `t`). The trip list (planning-trips.ts) shows the same flag as the blocker here.
 */
export const DRIVER_ACTIVE = `exists (select 1 from staff_users du join company_memberships dm on dm.staff_user_id = du.id
  where du.id = t.driver_id and du.status = 'ACTIVE' and dm.company_id = t.company_id and dm.role = 'DRIVER' and dm.active)`;

const TRIP_SETUP_SELECT = `select t.id, t.company_id, t.status, t.operating_date::text, t.departure_at, t.arrival_at, t.delay_minutes,
       t.actual_departure_at, t.actual_arrival_at, t.seats_total,
       r.id as route_id, r.name_ar as route_name_ar, r.name_en as route_name_en,
       oc.id as origin_city_id, oc.name_ar as origin_name_ar, oc.name_en as origin_name_en,
       dc.id as destination_city_id, dc.name_ar as destination_name_ar, dc.name_en as destination_name_en,
       b.id as bus_id, b.plate_number, b.model as bus_model, b.status as bus_status, b.capacity as bus_capacity,
       l.id as layout_id, l.version as layout_version, l.seat_count as layout_seat_count,
       t.driver_id, du.name as driver_name, du.email as driver_email, ${DRIVER_ACTIVE} as driver_active,
       ${PICKUP_COLUMNS}, p.enabled as pickup_enabled, p.city_id as pickup_city_id,
       p.company_id as pickup_company_id, p.kind as pickup_kind
  from trips t
  join routes r on r.id = t.route_id
  join cities oc on oc.id = r.origin_city_id
  join cities dc on dc.id = r.destination_city_id
  join buses b on b.id = t.bus_id
  left join bus_layouts l on l.bus_id = b.id and l.status = 'active' and l.validation_status = 'valid'
  left join staff_users du on du.id = t.driver_id
  join stops p on p.id = t.pickup_stop_id`;

/** The trip as the operations room shows it; undefined when no trip of this company has the id. */
export const readTripSetup = companyRecordById(TRIP_SETUP_SELECT, 't', toTripSetup);

export interface StopCallView {
  id: string;
  sequence: number;
  stopId: string;
  nameAr: string;
  nameEn: string;
  arrivalAt: string;
  departureAt: string;
}

export async function readStopCalls(db: Database, tripId: string): Promise<StopCallView[]> {
  const rows = await db.query<{
    id: string;
    sequence: number;
    stop_id: string;
    name_ar: string;
    name_en: string;
    arrival_at: string;
    departure_at: string;
  }>(
    `select c.id, c.sequence, c.stop_id, s.name_ar, s.name_en, c.arrival_at, c.departure_at
     from trip_stop_calls c join stops s on s.id = c.stop_id where c.trip_id = $1 order by c.sequence`,
    [tripId],
  );
  return rows.map((row) => ({
    id: row.id,
    sequence: row.sequence,
    stopId: row.stop_id,
    nameAr: row.name_ar,
    nameEn: row.name_en,
    arrivalAt: iso(row.arrival_at),
    departureAt: iso(row.departure_at),
  }));
}

interface ReadinessRow {
  driver_assigned: boolean;
  driver_active: boolean;
  layout_active: boolean;
  bus_in_service: boolean;
  cash_to_collect: number;
  requests_pending: number;
  bus_on_another_trip: boolean;
  driver_on_another_trip: boolean;
}

/**
 * The statuses of a trip that has its bus and driver: boarding or on the road (not yet ARRIVED). A
 * DELAYED trip is not one: it has not left, and a delay announced before boarding holds nobody.
 */
const OUT_ON_TRIP = `'BOARDING', 'DEPARTED'`;

/**
 * What readiness is judged by (domain/trip-dispatch.ts readinessBlockers). Runs on its own or
 * inside the transition transaction, after the trip is locked. Pending requests are the trip's
 * booking rows awaiting a decision of the trip's own company: a row of a journey that waits only
 * for another company (whose leg this company confirms automatically) does not hold the bus, nor
 * does a request of a scope that has an overdue request, the company's own or another company's
 * (./journeys.ts overdueScopeSql: the scope closed at that deadline and no decision can be taken in
 * it; it is released by the sweep, or by the DEPART itself, which judges the same way:
 * db/writes/journeys/deadline.ts releaseOverdueScopesOfTrip).
 */
export async function readinessFacts(runner: SqlRunner, tripId: string): Promise<ReadinessFacts> {
  const [row] = await rowsOf<ReadinessRow>(
    runner,
    `select t.driver_id is not null as driver_assigned, ${DRIVER_ACTIVE} as driver_active,
            exists (select 1 from bus_layouts l where l.bus_id = t.bus_id and l.status = 'active'
                     and l.validation_status = 'valid') as layout_active,
            b.status = 'ACTIVE' as bus_in_service,
            (select count(*)::int from bookings k where k.trip_id = t.id and k.status = 'CHECKED_IN'
              and ${cashToCollectSql('k')}) as cash_to_collect,
            (select count(*)::int from bookings k join journeys j on j.id = k.journey_id
              where k.trip_id = t.id and k.status = 'PENDING_CONFIRMATION'
                and exists (select 1 from confirmation_requests r
                            where r.company_id = t.company_id and r.status = 'PENDING'
                              and not ${overdueScopeSql('r.scope_kind', 'r.scope_id')}
                              and ((r.scope_kind = 'JOURNEY' and r.scope_id = j.id)
                                   or (r.scope_kind = 'ORDER' and r.scope_id = j.order_id)))) as requests_pending,
            exists (select 1 from trips o where o.bus_id = t.bus_id and o.id <> t.id
                      and o.status in (${OUT_ON_TRIP})) as bus_on_another_trip,
            exists (select 1 from trips o where o.driver_id = t.driver_id and o.id <> t.id
                      and o.status in (${OUT_ON_TRIP})) as driver_on_another_trip
     from trips t join buses b on b.id = t.bus_id where t.id = $1`,
    [tripId],
  );
  if (!row) throw new Error(`trip ${tripId} vanished while locked`);
  return {
    driverAssigned: row.driver_assigned,
    driverActive: row.driver_active,
    layoutActive: row.layout_active,
    busInService: row.bus_in_service,
    cashToCollect: row.cash_to_collect,
    requestsPending: row.requests_pending,
    busOnAnotherTrip: row.bus_on_another_trip,
    driverOnAnotherTrip: row.driver_on_another_trip,
  };
}

interface OperationEventRow {
  id: string;
  action: string;
  actor_id: string | null;
  actor_name: string | null;
  actor_role: string;
  channel: string;
  manifest_item_type: string | null;
  manifest_item_id: string | null;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  reason: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

/** The columns an operations log entry answers as they are, under their camelCase names. */
const EVENT_FIELDS = [
  'channel',
  'manifest_item_type',
  'manifest_item_id',
  'before',
  'after',
  'reason',
  'details',
] as const;

/** An operations log entry: id, action, actor, then EVENT_FIELDS (channel … details), then at. */
export type OperationEvent = {
  id: string;
  action: string;
  actor: { id: string | null; name: string | null; role: string };
} & CamelFields<OperationEventRow, (typeof EVENT_FIELDS)[number]> & { at: string };

/** The trip's latest operations log entries, newest first. */
export async function readOperationEvents(
  db: Database,
  tripId: string,
  limit: number,
): Promise<OperationEvent[]> {
  const rows = await db.query<OperationEventRow>(
    `select e.id::text, e.action, e.actor_id, u.name as actor_name, e.actor_role, e.channel, e.manifest_item_type,
            e.manifest_item_id, e.before, e.after, e.reason, e.details, e.created_at
     from trip_operation_events e left join staff_users u on u.id = e.actor_id
     where e.trip_id = $1 order by e.id desc limit $2`,
    [tripId, limit],
  );
  return rows.map((row) => ({
    id: row.id,
    action: row.action,
    actor: { id: row.actor_id, name: row.actor_name, role: row.actor_role },
    ...camelFields(row, EVENT_FIELDS),
    at: iso(row.created_at),
  }));
}
