import type { PoolClient } from 'pg';
import type { ActingMember } from '../acting-member.js';
import type { ConfirmationScope } from '../../../domain/journey-confirmation.js';
import {
  refuseUnassigned,
  tripNotFound,
  type Attendance,
  type DispatchAction,
  type DispatchChannel,
  type ManifestItemType,
  type TripStatus,
} from '../../../domain/trip-dispatch.js';

/**
 * What the trip operations room's transition transaction works with: the command, the locked trip,
 * and the operations log it writes. See index.ts for the transaction itself.
 */
export type Queryable = PoolClient;

/** Who acts: a company user (dashboard or driver app) with the role of their session's membership. */
export interface DispatchActor {
  staffUserId: string;
  /** The membership role; a DRIVER acts only on trips assigned to them. */
  role: string;
  channel: DispatchChannel;
}

export interface DispatchCommand {
  /** The session's company: the only company whose trips are found. */
  companyId: string;
  tripId: string;
  actor: DispatchActor;
  action: DispatchAction;
  reason?: string | null | undefined;
  delayMinutes?: number | undefined;
  /** The traveller of a traveller action. */
  item?: { type: ManifestItemType; id: string } | undefined;
  /** A driver app scan: the device and when it scanned (the check-in time when the app replays it later). */
  scan?: { deviceId: string | null; at: Date | null } | undefined;
  /**
   * The dashboard member acting, with the roles the route lets in: checked again right after the
   * company row (db/writes/acting-member.ts), one signed out, deactivated or demoted while the
   * action waited is refused (401 INVALID_CREDENTIAL, 403 ROLE_NOT_ALLOWED), changing nothing.
   */
  member?: ActingMember | undefined;
}

export interface TripState {
  status: TripStatus;
  delayMinutes: number;
  actualDepartureAt: string | null;
  actualArrivalAt: string | null;
}

export interface TravellerResult {
  itemType: ManifestItemType;
  itemId: string;
  bookingId: string | null;
  attendance: Attendance;
  previousAttendance: Attendance;
  ticketStatus: string | null;
  bookingStatus: string | null;
  at: string;
}

/** What a CANCEL or COMPLETE changed besides the trip row. */
export interface DispatchEffects {
  cancelledJourneys?: number;
  cancelledBookings?: number;
  releasedSeats?: number;
  revokedCredentials?: number;
  cancelledPayments?: number;
  refundDuePayments?: number;
  completedBookings?: number;
  noShows?: number;
  events?: number;
}

/**
 * A confirmation scope (journey, or order) a CANCEL ended while companies were deciding
 * (REQUESTED to CANCELLED, its requests CANCELLED), with its owner: its journey-confirmation
 * workflow, waiting for the decisions, is told after the commit (api/use-cases/trip-dispatch.ts).
 */
export interface EndedConfirmation {
  scope: ConfirmationScope;
  ownerUserId: string;
}

export interface DispatchResult {
  tripId: string;
  action: DispatchAction;
  /** The action was answered again without a change (COMPLETE of a completed trip). */
  replayed: boolean;
  previousStatus: TripStatus;
  trip: TripState;
  traveller?: TravellerResult;
  effects?: DispatchEffects;
  /** The scopes a CANCEL ended while companies were deciding; not part of the answer. */
  endedConfirmations?: EndedConfirmation[];
  /** Points credited after a COMPLETE (awardTripPoints). */
  loyalty?: { bookingsCredited: number; pointsCredited: number; referralsRewarded: number };
}

export interface LockedTrip extends TripState {
  id: string;
  companyId: string;
  driverId: string | null;
}

interface TripRow {
  id: string;
  company_id: string;
  status: TripStatus;
  driver_id: string | null;
  delay_minutes: number;
  actual_departure_at: string | null;
  actual_arrival_at: string | null;
}

export const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

/**
 * Locks the company's trip: FOR NO KEY UPDATE for a trip action (one at a time per trip, and
 * bookings and holds of the trip wait), FOR SHARE for a traveller action (check-ins of one trip
 * run side by side; a trip action waits for them and they for it). Another company's trip is 404.
 */
export async function lockTrip(
  client: Queryable,
  command: Pick<DispatchCommand, 'companyId' | 'tripId' | 'actor'>,
  mode: 'update' | 'share',
): Promise<LockedTrip> {
  const { rows } = await client.query<TripRow>(
    `select id, company_id, status, driver_id, delay_minutes, actual_departure_at, actual_arrival_at
     from trips where id = $1 and company_id = $2 ${mode === 'update' ? 'for no key update' : 'for share'}`,
    [command.tripId, command.companyId],
  );
  const row = rows[0];
  if (!row) throw tripNotFound();
  refuseUnassigned(command.actor, row.driver_id);
  return {
    id: row.id,
    companyId: row.company_id,
    status: row.status,
    driverId: row.driver_id,
    delayMinutes: row.delay_minutes,
    actualDepartureAt: iso(row.actual_departure_at),
    actualArrivalAt: iso(row.actual_arrival_at),
  };
}

export const tripState = (trip: TripState): TripState => ({
  status: trip.status,
  delayMinutes: trip.delayMinutes,
  actualDepartureAt: trip.actualDepartureAt,
  actualArrivalAt: trip.actualArrivalAt,
});

export interface OperationEntry {
  command: DispatchCommand;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  details?: Record<string, unknown>;
}

/** Appends the action to the operations log (trip_operation_events), in the transition's transaction. */
export async function recordOperation(client: Queryable, entry: OperationEntry): Promise<void> {
  const { command } = entry;
  await client.query(
    `insert into trip_operation_events (company_id, trip_id, action, actor_id, actor_role, channel, manifest_item_type,
                                        manifest_item_id, before, after, reason, details)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      command.companyId,
      command.tripId,
      command.action,
      command.actor.staffUserId,
      command.actor.role,
      command.actor.channel,
      command.item?.type ?? null,
      command.item?.id ?? null,
      JSON.stringify(entry.before),
      JSON.stringify(entry.after),
      command.reason ?? null,
      JSON.stringify(entry.details ?? {}),
    ],
  );
}
