import { randomUUID } from 'node:crypto';
import { tripStopCalls } from '../../../domain/route-plan.js';
import { conflictView } from '../../../domain/trip-conflicts.js';
import {
  driverOnlyReplan,
  lastDateRefusal,
  notFound,
  PlanningRefusal,
  replanRefusal,
  type TripPlanFields,
} from '../../../domain/trip-planning.js';
import type { TripRefsRequest } from '../../../domain/trip-schedules.js';
import type { Database, TransactionClient } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import {
  activeDriver,
  planningConflicts,
  tripBusyWindow,
  tripHasBookingsSql,
} from '../../queries/planning.js';
import { resolveTripRefs, type TripRefs } from '../../queries/trip-plan.js';
import { lockActingMember } from '../acting-member.js';
import { lockActiveCompany } from '../active-company.js';
import { insertTrips } from '../catalogue.js';
import { auditAct, type StaffAct } from './act.js';
import { giveLegacyBusLayout } from './legacy-layout.js';
import { lockPlanningResources } from './locks.js';

/**
 * POST /dashboard/api/trips: plans a new trip, or re-plans one (trip_id) within what
 * domain/trip-planning.ts `replanRefusal` allows. One transaction: the bus(es) and the driver are
 * locked, every rule checked, conflicts looked for, a legacy bus given its generated layout
 * (legacy-layout.ts), then the trip (with its stop calls from the route's stops) written. A
 * BOARDING or DELAYED trip only gets another driver (replaceDriver).
 */
export interface TripSaveInput extends TripRefsRequest {
  tripId?: string;
  /** Epoch ms. */
  departureAt: number;
  priceBase: number;
  priceVip: number | null;
}

interface StoredTrip {
  id: string;
  company_id: string;
  status: string;
  route_id: string;
  bus_id: string;
  driver_id: string | null;
  pickup_stop_id: string;
  departure_ms: number;
  arrival_ms: number;
  price_base: string;
  price_vip: string | null;
  has_bookings: boolean;
}

async function storedTrip(client: TransactionClient, companyId: string, tripId: string): Promise<StoredTrip> {
  const { rows } = await client.query<StoredTrip>(
    `select t.id, t.company_id, t.status, t.route_id, t.bus_id, t.driver_id, t.pickup_stop_id,
            extract(epoch from t.departure_at)::float8 * 1000 as departure_ms,
            extract(epoch from t.arrival_at)::float8 * 1000 as arrival_ms,
            t.price_base, t.price_vip, ${tripHasBookingsSql('t.id')} as has_bookings
     from trips t where t.id = $1`,
    [tripId],
  );
  const trip = rows[0];
  if (!trip || trip.company_id !== companyId) throw notFound('TRIP');
  return trip;
}

/**
 * The trip to re-plan, locked after its buses (the order a layout save keeps: bus, then its trips)
 * and read again: holds, seat locks and bookings lock the trip before placing seats, and dispatch
 * before changing its status, so the status and bookings judged here are the ones the update
 * replaces. Should another re-plan have moved it to a bus not locked yet, that bus is locked now,
 * out of order: a deadlock this may cause is run again.
 */
async function lockedTrip(
  client: TransactionClient,
  companyId: string,
  tripId: string,
  lockedBusIds: string[],
): Promise<StoredTrip> {
  await client.query('select id from trips where id = $1 for no key update', [tripId]);
  const trip = await storedTrip(client, companyId, tripId);
  if (!lockedBusIds.includes(trip.bus_id)) {
    await client.query('select id from buses where id = $1 for no key update', [trip.bus_id]);
  }
  return trip;
}

const planOf = (trip: StoredTrip): TripPlanFields => ({
  routeId: trip.route_id,
  departureAt: trip.departure_ms,
  arrivalAt: trip.arrival_ms,
  busId: trip.bus_id,
  pickupStopId: trip.pickup_stop_id,
  driverId: trip.driver_id,
  priceBase: Number(trip.price_base),
  priceVip: trip.price_vip === null ? null : Number(trip.price_vip),
});

export async function saveTrip(
  db: Database,
  act: StaffAct,
  input: TripSaveInput,
): Promise<{ tripId: string; created: boolean }> {
  return withDeadlockRetry(() => db.transaction((client) => planTrip(client, act, input)));
}

async function planTrip(client: TransactionClient, act: StaffAct, input: TripSaveInput) {
  // The company first of the locks (db/writes/active-company.ts): none after its suspension.
  await lockActiveCompany(client, act.companyId, 'share');
  if (act.actor) await lockActingMember(client, act.companyId, act.actor);
  const unlocked = input.tripId ? await storedTrip(client, act.companyId, input.tripId) : null;
  const busIds = [input.busId, ...(unlocked ? [unlocked.bus_id] : [])];
  await lockPlanningResources(client, { busIds, driverId: input.driverId, routeId: input.routeId });
  const existing = unlocked && (await lockedTrip(client, act.companyId, unlocked.id, busIds));
  if (existing && driverOnlyReplan(existing.status)) return replaceDriver(client, act, input, existing);
  const durationMinutes =
    input.durationMinutes ??
    (existing ? Math.round((existing.arrival_ms - existing.departure_ms) / 60_000) : undefined);
  const refs = await resolveTripRefs(client, act.companyId, { ...input, durationMinutes });
  const next: TripPlanFields = {
    ...input,
    arrivalAt: input.departureAt + refs.durationMinutes * 60_000,
  };
  if (existing) {
    const refused = replanRefusal(
      { ...planOf(existing), status: existing.status, hasBookings: existing.has_bookings },
      next,
    );
    if (refused) throw refused;
  } else if (input.departureAt <= Date.now()) {
    throw new PlanningRefusal(400, 'DEPARTURE_IN_PAST', 'departure_at must be in the future');
  }
  const late = lastDateRefusal([next]);
  if (late) throw late;
  const conflicts = await planningConflicts(
    client,
    { busId: input.busId, driverId: input.driverId, routeId: input.routeId, excludeTripId: existing?.id },
    [next],
  );
  if (conflicts.length > 0) {
    throw new PlanningRefusal(
      409,
      'TRIP_CONFLICT',
      'The bus, the driver or this departure of the route is taken',
      {
        conflicts: conflicts.map(conflictView),
      },
    );
  }
  const generated = await giveLegacyBusLayout(client, input.busId, refs.bus);
  if (generated) {
    await auditAct(client, act, 'company.bus.layout.generate', ['bus', input.busId], {
      version: generated.version,
      seatCount: generated.seatCount,
    });
  }
  const tripId = await writeTrip(client, act, input, existing, refs);
  await auditAct(client, act, existing ? 'company.trip.replan' : 'company.trip.create', ['trip', tripId], {
    busId: input.busId,
    driverId: input.driverId,
    pickupStopId: input.pickupStopId,
  });
  return { tripId, created: !existing };
}

/**
 * The re-plan of a BOARDING or DELAYED trip (domain/trip-planning.ts DRIVER_ONLY_REPLAN_STATUSES),
 * under the locks planTrip took (company, acting member, bus, new driver, route, then the trip):
 * the body must repeat the trip's route, times, bus, pickup stop and fares (else 409
 * TRIP_NOT_EDITABLE naming the fields) and may name another driver, who must be an active DRIVER of
 * the company and free for the trip's whole expected window, its announced delay included (409
 * TRIP_CONFLICT, DRIVER_BUSY). The route, bus and stop are not judged again: the trip already runs on
 * them, and neither its seats nor its stop calls change. Only driver_id is written; everything that
 * follows reads it afresh: the driver app lists and opens the trip for the new driver only (the
 * previous one's manifest, scans, cash recording and position reports answer 403 TRIP_NOT_ASSIGNED),
 * readiness judges the new driver, and what the previous driver already recorded (check-ins, cash
 * lines collected_by them, positions) stays theirs. The same (active) driver again changes nothing.
 */
async function replaceDriver(
  client: TransactionClient,
  act: StaffAct,
  input: TripSaveInput,
  trip: StoredTrip,
): Promise<{ tripId: string; created: false }> {
  const stored = planOf(trip);
  const durationMinutes = input.durationMinutes ?? Math.round((trip.arrival_ms - trip.departure_ms) / 60_000);
  const next: TripPlanFields = { ...input, arrivalAt: input.departureAt + durationMinutes * 60_000 };
  const refused = replanRefusal({ ...stored, status: trip.status, hasBookings: trip.has_bookings }, next);
  if (refused) throw refused;
  if (input.driverId !== null && !(await activeDriver(client, act.companyId, input.driverId))) {
    throw notFound('DRIVER');
  }
  if (input.driverId === trip.driver_id) return { tripId: trip.id, created: false };
  if (input.driverId !== null) {
    const scope = {
      busId: trip.bus_id,
      driverId: input.driverId,
      routeId: trip.route_id,
      excludeTripId: trip.id,
    };
    const conflicts = (
      await planningConflicts(client, scope, [await tripBusyWindow(client, trip.id)])
    ).filter((conflict) => conflict.kind === 'DRIVER_BUSY');
    if (conflicts.length > 0) {
      throw new PlanningRefusal(409, 'TRIP_CONFLICT', 'The driver is taken while this trip runs', {
        conflicts: conflicts.map(conflictView),
      });
    }
  }
  await client.query('update trips set driver_id = $2 where id = $1', [trip.id, input.driverId]);
  await auditAct(client, act, 'company.trip.replan', ['trip', trip.id], {
    busId: trip.bus_id,
    driverId: input.driverId,
    pickupStopId: trip.pickup_stop_id,
    previousDriverId: trip.driver_id,
    status: trip.status,
  });
  return { tripId: trip.id, created: false };
}

/** Updates the re-planned trip's bus, driver, stop and fares, or inserts the new trip with its stop calls. */
async function writeTrip(
  client: TransactionClient,
  act: StaffAct,
  input: TripSaveInput,
  existing: StoredTrip | null,
  refs: TripRefs,
): Promise<string> {
  const tripId = existing?.id ?? randomUUID();
  if (existing) {
    await client.query(
      `update trips set bus_id = $2, driver_id = $3, pickup_stop_id = $4, price_base = $5, price_vip = $6, seats_total = $7
       where id = $1`,
      [
        tripId,
        input.busId,
        input.driverId,
        input.pickupStopId,
        input.priceBase,
        input.priceVip,
        refs.seatsTotal,
      ],
    );
  } else {
    await insertTrips(client, [
      {
        id: tripId,
        companyId: act.companyId,
        routeId: input.routeId,
        busId: input.busId,
        driverId: input.driverId,
        pickupStopId: input.pickupStopId,
        priceBase: input.priceBase,
        priceVip: input.priceVip,
        seatsTotal: refs.seatsTotal,
        calls: tripStopCalls(refs.route.stops, input.departureAt, refs.durationMinutes),
      },
    ]);
  }
  return tripId;
}
