import type { Database } from '../../db/orm.js';
import type { ActingMember } from '../../db/writes/acting-member.js';
import {
  readinessFacts,
  readOperationEvents,
  readStopCalls,
  readTripSetup,
  type OperationEvent,
  type StopCallView,
  type TripSetup,
} from '../../db/queries/trip-dispatch.js';
import { readManifest, type ManifestItem, type StopVisit } from '../../db/queries/trip-manifest.js';
import {
  dispatchTrip,
  type DispatchCommand,
  type DispatchResult,
} from '../../db/writes/trip-operations/index.js';
import { tellDecided, type DecisionDeps } from './company-decision.js';
import {
  allowedActions,
  attendanceCounters,
  readinessBlockers,
  tripNotFound,
  type Blocker,
  type DispatchAction,
  type DispatchChannel,
  type ManifestItemType,
  type TripStatus,
} from '../../domain/trip-dispatch.js';

/**
 * The trip operations room as the API shows it: the dispatch view (GET /trips/{id}/dispatch) and
 * one action through the one transition (POST /trips/{id}/dispatch, PATCH /trips/{id}, POST
 * /trips/bulk), answered in the API's snake_case.
 */

/** How many operations log entries the view shows (SPEC "Recent dispatch events returned"). */
export const RECENT_EVENTS = 25;

const visit = (stop: StopVisit) => ({
  stop_call_id: stop.stopCallId,
  sequence: stop.sequence,
  stop_id: stop.stopId,
  name_ar: stop.nameAr,
  name_en: stop.nameEn,
  at: stop.at,
});

export function manifestItemView(item: ManifestItem) {
  return {
    manifest_item_id: item.itemId,
    manifest_item_type: item.itemType,
    booking_id: item.bookingId,
    booking_code: item.bookingCode,
    journey_id: item.journeyId,
    traveller_name: item.travellerName,
    phone: item.phone,
    seat_number: item.seatNumber,
    ticket_status: item.ticketStatus,
    booking_status: item.bookingStatus,
    boarding: visit(item.boarding),
    alighting: visit(item.alighting),
    payment: item.payment && {
      status: item.payment.status,
      total_price: item.payment.totalPrice,
      currency: item.payment.currency,
      pending_cash: item.payment.pendingCash,
      cash_to_collect: item.payment.cashToCollect,
    },
    attendance: {
      status: item.attendance,
      at: item.attendanceAt,
      by: item.attendanceBy,
      source: item.attendanceSource,
    },
    awaiting_confirmation: item.awaitingConfirmation,
  };
}

export function countersView(items: ManifestItem[]) {
  const counters = attendanceCounters(items);
  return {
    total: counters.total,
    checked_in: counters.checkedIn,
    no_show: counters.noShow,
    pending: counters.pending,
    awaiting_confirmation: counters.awaitingConfirmation,
  };
}

function tripView(setup: TripSetup, stopCalls: StopCallView[]) {
  const city = (value: { id: string; nameAr: string; nameEn: string }) => ({
    id: value.id,
    name_ar: value.nameAr,
    name_en: value.nameEn,
  });
  return {
    id: setup.id,
    status: setup.status,
    operating_date: setup.operatingDate,
    departure_at: setup.departureAt,
    arrival_at: setup.arrivalAt,
    delay_minutes: setup.delayMinutes,
    actual_departure_at: setup.actualDepartureAt,
    actual_arrival_at: setup.actualArrivalAt,
    seats_total: setup.seatsTotal,
    route: {
      id: setup.route.id,
      name_ar: setup.route.nameAr,
      name_en: setup.route.nameEn,
      origin: city(setup.route.origin),
      destination: city(setup.route.destination),
    },
    stop_calls: stopCalls.map((call) => ({
      id: call.id,
      sequence: call.sequence,
      stop_id: call.stopId,
      name_ar: call.nameAr,
      name_en: call.nameEn,
      arrival_at: call.arrivalAt,
      departure_at: call.departureAt,
    })),
  };
}

const eventView = (event: OperationEvent) => ({
  id: event.id,
  action: event.action,
  actor: event.actor,
  channel: event.channel,
  manifest_item_type: event.manifestItemType,
  manifest_item_id: event.manifestItemId,
  before: event.before,
  after: event.after,
  reason: event.reason,
  details: event.details,
  at: event.at,
});

/**
 * The actions this session may take now: none when it may not act at all (a role that only reads,
 * a suspended company: api/dashboard/dispatch.ts mayDispatch), else what the trip allows.
 */
const offered = (mayAct: boolean, status: TripStatus, blockers: readonly Blocker[]) =>
  mayAct ? allowedActions(status, blockers) : [];

/**
 * GET /trips/{id}/dispatch: everything the operations room shows, for the session's company;
 * `mayAct` whether the session may act in it.
 */
export async function tripDispatchView(db: Database, companyId: string, tripId: string, mayAct: boolean) {
  const setup = await readTripSetup(db, companyId, tripId);
  if (!setup) throw tripNotFound();
  const [stopCalls, manifest, facts, events] = await Promise.all([
    readStopCalls(db, tripId),
    readManifest(db, tripId),
    readinessFacts(db, tripId),
    readOperationEvents(db, tripId, RECENT_EVENTS),
  ]);
  const blockers = readinessBlockers(facts);
  const { bus, driver, pickup } = setup;
  return {
    trip: tripView(setup, stopCalls),
    bus: {
      id: bus.id,
      plate_number: bus.plateNumber,
      model: bus.model,
      status: bus.status,
      capacity: bus.capacity,
      layout: bus.layout && {
        id: bus.layout.id,
        version: bus.layout.version,
        seat_count: bus.layout.seatCount,
      },
    },
    driver,
    manifest: manifest.map(manifestItemView),
    counters: countersView(manifest),
    readiness: { ready: blockers.length === 0, blockers },
    allowed_actions: offered(mayAct, setup.status, blockers),
    events: events.map(eventView),
    pickup: {
      snapshot: pickup.snapshot,
      confirmation: {
        status: pickup.issues.length === 0 ? 'CONFIRMED' : 'UNCONFIRMED',
        issues: pickup.issues,
      },
    },
  };
}

/** An action as the routes receive it (POST /dispatch's body, a bulk or legacy command mapped to it). */
export interface DispatchRequest {
  action: DispatchAction;
  reason?: string | undefined;
  delay_minutes?: number | undefined;
  manifest_item_id?: string | undefined;
  manifest_item_type?: ManifestItemType | undefined;
}

/** The command of a request by a signed-in company user. */
export function commandOf(
  actor: { companyId: string; staffUserId: string; role: string; member?: ActingMember | undefined },
  tripId: string,
  request: DispatchRequest,
  channel: DispatchChannel,
): DispatchCommand {
  return {
    companyId: actor.companyId,
    tripId,
    actor: { staffUserId: actor.staffUserId, role: actor.role, channel },
    member: actor.member,
    action: request.action,
    reason: request.reason,
    delayMinutes: request.delay_minutes,
    item:
      request.manifest_item_id && request.manifest_item_type
        ? { type: request.manifest_item_type, id: request.manifest_item_id }
        : undefined,
  };
}

export function outcomeView(result: DispatchResult) {
  const { traveller, effects, loyalty } = result;
  return {
    trip_id: result.tripId,
    action: result.action,
    replayed: result.replayed,
    previous_status: result.previousStatus,
    status: result.trip.status,
    trip: {
      status: result.trip.status,
      delay_minutes: result.trip.delayMinutes,
      actual_departure_at: result.trip.actualDepartureAt,
      actual_arrival_at: result.trip.actualArrivalAt,
    },
    ...(traveller && {
      traveller: {
        manifest_item_type: traveller.itemType,
        manifest_item_id: traveller.itemId,
        booking_id: traveller.bookingId,
        attendance: traveller.attendance,
        previous_attendance: traveller.previousAttendance,
        ticket_status: traveller.ticketStatus,
        booking_status: traveller.bookingStatus,
        at: traveller.at,
      },
    }),
    ...(effects && {
      effects: Object.fromEntries(
        Object.entries(effects).map(([key, value]) => [
          key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
          value,
        ]),
      ),
    }),
    ...(loyalty && {
      loyalty: {
        bookings_credited: loyalty.bookingsCredited,
        points_credited: loyalty.pointsCredited,
        referrals_rewarded: loyalty.referralsRewarded,
      },
    }),
  };
}

/** The database, and the journey-confirmation workflows a CANCEL tells (with the logger for a lost signal). */
export type DispatchDeps = Pick<DecisionDeps, 'db' | 'workflow' | 'logger'>;

/**
 * One action through the transition, in a transaction of its own. A CANCEL that ended journeys (or
 * orders) still waiting for company decisions then tells each one's journey-confirmation workflow,
 * as a suspension does (./company-decision.ts tellDecided: the scope CANCELLED, no company left
 * deciding), so it ends now instead of at the decision deadline. The cancel has committed: a
 * signal lost is logged, and that workflow finds the scope CANCELLED at its deadline.
 */
export async function dispatchAndTell(deps: DispatchDeps, command: DispatchCommand): Promise<DispatchResult> {
  const result = await dispatchTrip(deps.db, command);
  await Promise.all(
    (result.endedConfirmations ?? []).map(({ scope, ownerUserId }) =>
      tellDecided(
        deps,
        { scope, ownerUserId, companyId: command.companyId },
        { outcome: 'CANCELLED', pendingCompanyIds: [] },
      ),
    ),
  );
  return result;
}

/** One action through the transition; the answer with the actions the session may take after it. */
export async function takeDispatchAction(deps: DispatchDeps, command: DispatchCommand, mayAct: boolean) {
  const result = await dispatchAndTell(deps, command);
  const blockers = readinessBlockers(await readinessFacts(deps.db, command.tripId));
  return { ...outcomeView(result), allowed_actions: offered(mayAct, result.trip.status, blockers) };
}
