import {
  readinessBlockers,
  refuseUnready,
  tripStep,
  type TripAction,
  type TripStatus,
} from '../../../domain/trip-dispatch.js';
import { readinessFacts } from '../../queries/trip-dispatch.js';
import { releaseOverdueScopesOfTrip } from '../journeys/deadline.js';
import { settleTripEarning } from '../loyalty/index.js';
import { recordTripEvent } from '../outbox.js';
import { writeTime } from '../write-time.js';
import { cancelPendingPayments, cancelTripBookings } from './cancel-trip.js';
import {
  iso,
  recordOperation,
  tripState,
  type DispatchCommand,
  type DispatchEffects,
  type DispatchResult,
  type EndedConfirmation,
  type LockedTrip,
  type Queryable,
} from './trip.js';

/**
 * The trip actions (START_BOARDING, MARK_DELAYED, DEPART, ARRIVE, COMPLETE, CANCEL) inside the
 * transition transaction, the trip already locked: the state machine and the readiness decide,
 * then the trip row, its bookings and travellers change together and the log records it.
 */

interface TripRowAfter {
  status: TripStatus;
  delay_minutes: number;
  actual_departure_at: string | null;
  actual_arrival_at: string | null;
}

export async function applyTripAction(
  client: Queryable,
  trip: LockedTrip,
  command: DispatchCommand & { action: TripAction },
): Promise<DispatchResult> {
  if (command.action === 'START_BOARDING' || command.action === 'DEPART')
    await lockBusAndDriver(client, trip);
  // A request whose deadline passed awaits nobody: its scope is released here if no worker has yet.
  if (command.action === 'DEPART') await releaseOverdueScopesOfTrip(client, trip.id);
  const blockers = readinessBlockers(await readinessFacts(client, trip.id));
  const step = tripStep(trip.status, command.action, blockers);
  const result: DispatchResult = {
    tripId: trip.id,
    action: command.action,
    replayed: step.kind === 'REPLAY',
    previousStatus: trip.status,
    trip: tripState(trip),
  };
  if (step.kind === 'REPLAY') return result;
  refuseUnready(trip.status, command.action, blockers);

  // The action's time, read with the trip (and its bus and driver) locked: a check-in that committed
  // while this request waited for a lock is not dated after the trip left, arrived or completed.
  const at = await writeTime(client);
  const { effects, endedConfirmations } = await actionEffects(client, trip, command, at);
  const { rows } = await client.query<TripRowAfter>(
    `update trips set status = $2,
       delay_minutes = coalesce($3, delay_minutes),
       actual_departure_at = case when $2 = 'DEPARTED' then $4::timestamptz else actual_departure_at end,
       actual_arrival_at = case when $2 = 'ARRIVED' or ($2 = 'COMPLETED' and actual_arrival_at is null) then $4::timestamptz
                                else actual_arrival_at end
     where id = $1
     returning status, delay_minutes, actual_departure_at, actual_arrival_at`,
    [trip.id, step.to, command.action === 'MARK_DELAYED' ? command.delayMinutes : null, at],
  );
  const after = rows[0]!;
  result.trip = {
    status: after.status,
    delayMinutes: after.delay_minutes,
    actualDepartureAt: iso(after.actual_departure_at),
    actualArrivalAt: iso(after.actual_arrival_at),
  };
  if (Object.keys(effects).length > 0) result.effects = effects;
  if (endedConfirmations?.length) result.endedConfirmations = endedConfirmations;
  await recordOperation(client, {
    command,
    before: { ...tripState(trip) },
    after: { ...result.trip },
    details: { ...effects },
  });
  // trip.started / trip.completed for the bookings still on the trip, in this transaction.
  if (command.action === 'DEPART' || command.action === 'COMPLETE')
    effects.events = await recordTripEvent(client, trip.id, command.action);
  return result;
}

/**
 * START_BOARDING and DEPART of trips sharing a bus or a driver run one after the other: each takes
 * a transaction lock on the trip's bus, then on its driver, before it reads the readiness, so two at
 * once cannot both miss the other trip taking the bus or driver (BUS_ON_ANOTHER_TRIP,
 * DRIVER_ON_ANOTHER_TRIP). Always bus before driver, so two of them never wait for each other.
 */
async function lockBusAndDriver(client: Queryable, trip: LockedTrip): Promise<void> {
  await client.query(
    `select pg_advisory_xact_lock(hashtextextended('trip-out:bus:' || bus_id, 0)) from trips where id = $1`,
    [trip.id],
  );
  if (trip.driverId !== null) {
    await client.query(`select pg_advisory_xact_lock(hashtextextended('trip-out:driver:' || $1, 0))`, [
      trip.driverId,
    ]);
  }
}

/** What the action does besides the trip row (and, for a CANCEL, the confirmations it ended). */
async function actionEffects(
  client: Queryable,
  trip: LockedTrip,
  command: DispatchCommand,
  at: string,
): Promise<{ effects: DispatchEffects; endedConfirmations?: EndedConfirmation[] }> {
  // A CANCEL reads its own time once it holds the bookings it ends (cancelTripBookings).
  if (command.action === 'CANCEL')
    return cancelTripBookings(client, trip, command.reason ?? 'TRIP_CANCELLED', command.actor.staffUserId);
  if (command.action === 'COMPLETE') {
    // What the bookings earn is settled with the completion, so a replayed COMPLETE only finishes it.
    await settleTripEarning(client, trip.id);
    return { effects: await closeAttendance(client, trip, command, at) };
  }
  return { effects: {} };
}

/**
 * COMPLETE closes the attendance: travellers never checked in become NO_SHOW (recorded as by the
 * completing user); bookings with a checked-in traveller become COMPLETED (they earn points), the
 * others NO_SHOW. Legacy bookings follow their own status the same way. Tickets never used keep
 * their status but are no longer authorized for boarding, so every channel's projection says so.
 * The NO_SHOW bookings' pending cash is CANCELLED (cancelPendingPayments); collected cash is kept.
 * Everything is stamped `at`, the COMPLETE's time.
 */
async function closeAttendance(
  client: Queryable,
  trip: LockedTrip,
  command: DispatchCommand,
  at: string,
): Promise<DispatchEffects> {
  const noShows = await client.query(
    `update journey_tickets set attendance = 'NO_SHOW', attendance_at = $4::timestamptz, attendance_by = $2,
       attendance_source = $3
     where trip_id = $1 and attendance = 'PENDING' and status = 'VALID'`,
    [trip.id, command.actor.staffUserId, command.actor.channel, at],
  );
  await client.query(
    `update journey_tickets set boarding_authorized = false
     where trip_id = $1 and status = 'VALID' and boarding_authorized`,
    [trip.id],
  );
  const { rows } = await client.query<{ completed: number; no_shows: string[] }>(
    `with changed as (
       update bookings set status = case when status = 'CHECKED_IN' then 'COMPLETED' else 'NO_SHOW' end,
         updated_at = $2::timestamptz
       where trip_id = $1 and status in ('CONFIRMED', 'CHECKED_IN', 'NO_SHOW')
       returning id, status)
     select count(*) filter (where status = 'COMPLETED')::int as completed,
            coalesce(array_agg(id::text) filter (where status = 'NO_SHOW'), '{}') as no_shows
       from changed`,
    [trip.id, at],
  );
  // A NO_SHOW booking's announced cash will never be collected (verify refuses it: domain/payment.ts):
  // its PENDING lines end as a trip CANCEL ends them (the ledger's trip_completed move).
  const cancelledPayments = await cancelPendingPayments(client, rows[0]!.no_shows, {
    companyId: trip.companyId,
    staffUserId: command.actor.staffUserId,
    at,
  });
  return { completedBookings: rows[0]!.completed, noShows: noShows.rowCount ?? 0, cancelledPayments };
}
