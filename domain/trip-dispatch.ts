import { compareSeats } from './journey-seats.js';
import { Refusal } from './refusal.js';

/**
 * The trip operations room's state machine (SPEC "Trip dispatch actions"; SPEC leaves the status
 * names and the result of each action open, so this table is the decision). Two machines:
 *
 * - the trip's status, moved by the trip actions (TRIP_TRANSITIONS);
 * - each traveller's attendance, moved by the traveller actions (ATTENDANCE_TRANSITIONS), which are
 *   taken only while the trip is in one of ATTENDANCE_STATUSES.
 *
 * Every entry point (POST /dispatch, PATCH /trips/{id}, POST /trips/bulk, the driver app's scan)
 * goes through db/writes/trip-operations `dispatchTrip`, which asks these functions.
 */
export const TRIP_STATUSES = [
  'SCHEDULED',
  'BOARDING',
  'DELAYED',
  'DEPARTED',
  'ARRIVED',
  'COMPLETED',
  'CANCELLED',
] as const;
export type TripStatus = (typeof TRIP_STATUSES)[number];

export const TRIP_ACTIONS = [
  'START_BOARDING',
  'MARK_DELAYED',
  'DEPART',
  'ARRIVE',
  'COMPLETE',
  'CANCEL',
] as const;
export type TripAction = (typeof TRIP_ACTIONS)[number];

export const TRAVELLER_ACTIONS = ['CHECK_IN', 'MARK_NO_SHOW', 'RESTORE'] as const;
export type TravellerAction = (typeof TRAVELLER_ACTIONS)[number];

export const DISPATCH_ACTIONS = [...TRIP_ACTIONS, ...TRAVELLER_ACTIONS] as const;
export type DispatchAction = (typeof DISPATCH_ACTIONS)[number];

/** JOURNEY_TICKET for every modern traveller (a journey ticket); BOOKING only for legacy rows without tickets. */
export const MANIFEST_ITEM_TYPES = ['JOURNEY_TICKET', 'BOOKING'] as const;
export type ManifestItemType = (typeof MANIFEST_ITEM_TYPES)[number];

export const ATTENDANCES = ['PENDING', 'CHECKED_IN', 'NO_SHOW'] as const;
export type Attendance = (typeof ATTENDANCES)[number];

/** Where an action came from (kept in the operations log). */
export const DISPATCH_CHANNELS = ['DASHBOARD', 'BULK', 'LEGACY_PATCH', 'DRIVER_APP'] as const;
export type DispatchChannel = (typeof DISPATCH_CHANNELS)[number];

const isTripAction = (action: DispatchAction): action is TripAction =>
  (TRIP_ACTIONS as readonly string[]).includes(action);

export const isTravellerAction = (action: DispatchAction): action is TravellerAction => !isTripAction(action);

/** The trip's status after each trip action allowed from a status; an action not listed is refused. */
export const TRIP_TRANSITIONS: Readonly<
  Record<TripStatus, Readonly<Partial<Record<TripAction, TripStatus>>>>
> = {
  SCHEDULED: { START_BOARDING: 'BOARDING', MARK_DELAYED: 'DELAYED', CANCEL: 'CANCELLED' },
  BOARDING: { MARK_DELAYED: 'DELAYED', DEPART: 'DEPARTED', CANCEL: 'CANCELLED' },
  // A delayed trip resumes with START_BOARDING; MARK_DELAYED again changes the announced delay.
  DELAYED: { START_BOARDING: 'BOARDING', MARK_DELAYED: 'DELAYED', CANCEL: 'CANCELLED' },
  DEPARTED: { ARRIVE: 'ARRIVED' },
  ARRIVED: { COMPLETE: 'COMPLETED' },
  COMPLETED: {},
  CANCELLED: {},
};

/**
 * Actions answered again without a change: COMPLETE on a completed trip re-runs the points
 * earning (which credits each booking once), so a completion interrupted after its commit finishes.
 */
export const TRIP_REPLAYS: Readonly<Partial<Record<TripStatus, readonly TripAction[]>>> = {
  COMPLETED: ['COMPLETE'],
};

/** Trip statuses in which travellers are checked in, marked no-show or restored. */
export const ATTENDANCE_STATUSES: readonly TripStatus[] = ['BOARDING', 'DELAYED', 'DEPARTED', 'ARRIVED'];

/** A traveller's attendance after each traveller action; RESTORE undoes a no-show or a check-in. */
export const ATTENDANCE_TRANSITIONS: Readonly<
  Record<Attendance, Readonly<Partial<Record<TravellerAction, Attendance>>>>
> = {
  PENDING: { CHECK_IN: 'CHECKED_IN', MARK_NO_SHOW: 'NO_SHOW' },
  CHECKED_IN: { RESTORE: 'PENDING' },
  NO_SHOW: { RESTORE: 'PENDING' },
};

/** Actions that need a reason (a delay also needs delay_minutes). */
export const REASON_REQUIRED: readonly DispatchAction[] = ['MARK_DELAYED', 'CANCEL'];

/** Trip statuses a driver app may report positions in (the trip is not over). */
export const TRACKED_STATUSES: readonly TripStatus[] = [
  'SCHEDULED',
  'BOARDING',
  'DELAYED',
  'DEPARTED',
  'ARRIVED',
];

/** A refusal of the operations room (409 for the state, 404 for a traveller not on the trip). */
export class DispatchRefusal extends Refusal {}

/** Another company's trip answers as one that does not exist. */
export const tripNotFound = () => new DispatchRefusal(404, 'TRIP_NOT_FOUND', 'No such trip');

/** A DRIVER works only the trips assigned to them (403 TRIP_NOT_ASSIGNED); other roles work every trip of the company. */
export function refuseUnassigned(
  actor: { role: string; staffUserId: string },
  driverId: string | null,
): void {
  if (actor.role === 'DRIVER' && driverId !== actor.staffUserId) {
    throw new DispatchRefusal(403, 'TRIP_NOT_ASSIGNED', 'This trip is not assigned to you');
  }
}

export type TripStep = { kind: 'TRANSITION'; to: TripStatus } | { kind: 'REPLAY' };

/** What a trip action does from `status`, or the 409 TRIP_ACTION_NOT_ALLOWED naming what is allowed. */
export function tripStep(
  status: TripStatus,
  action: TripAction,
  blockers: readonly Blocker[] = [],
): TripStep {
  const to = TRIP_TRANSITIONS[status][action];
  if (to) return { kind: 'TRANSITION', to };
  if (TRIP_REPLAYS[status]?.includes(action)) return { kind: 'REPLAY' };
  throw actionNotAllowed(status, action, blockers);
}

export function actionNotAllowed(
  status: TripStatus,
  action: DispatchAction,
  blockers: readonly Blocker[],
): DispatchRefusal {
  return new DispatchRefusal(
    409,
    'TRIP_ACTION_NOT_ALLOWED',
    `${action} is not allowed while the trip is ${status}`,
    { status, action, allowedActions: allowedActions(status, blockers) },
  );
}

/** The actions that may be taken now: trip actions the table allows and no blocker stops, then traveller actions. */
export function allowedActions(status: TripStatus, blockers: readonly Blocker[] = []): DispatchAction[] {
  const blocked = new Set(blockers.flatMap((blocker) => blocker.blocks));
  const tripActions = TRIP_ACTIONS.filter(
    (action) => TRIP_TRANSITIONS[status][action] !== undefined && !blocked.has(action),
  );
  return ATTENDANCE_STATUSES.includes(status) ? [...tripActions, ...TRAVELLER_ACTIONS] : tripActions;
}

/** A traveller's attendance as the ticket or legacy booking row shows it. */
export interface TravellerState {
  attendance: Attendance;
  /** The ticket's status (VALID or USED may board), or the legacy booking's boardable state. */
  boardable: boolean;
  /** Why not boardable, for the refusal: the ticket or booking status. */
  status: string;
  /**
   * The booking's payment was refunded and the booking kept its status and seat (a compensation: the
   * bus had left, or the traveller was checked in or a no-show): the money went back, so no CHECK_IN or
   * RESTORE readmits the traveller.
   */
  refunded: boolean;
  checkedIn?: {
    at: string;
    byStaffUserId: string | null;
    byName: string | null;
    source: string | null;
    deviceId?: string | null;
  } | null;
}

/**
 * A traveller action's result from the traveller's state, or its refusal: the trip must be in
 * ATTENDANCE_STATUSES (409 TRIP_ACTION_NOT_ALLOWED), the ticket boardable for every action (409
 * TICKET_NOT_BOARDABLE), and the attendance must allow it: a second CHECK_IN is 409
 * ALREADY_CHECKED_IN with who and when, a refunded traveller is neither checked in nor restored (409
 * TRAVELLER_REFUNDED: a RESTORE would make the booking CONFIRMED again on money already given back), a
 * no-show must be restored before a check-in (409 TRAVELLER_MARKED_NO_SHOW), anything else 409
 * ATTENDANCE_CONFLICT.
 */
export function attendanceStep(
  tripStatus: TripStatus,
  action: TravellerAction,
  traveller: TravellerState,
): Attendance {
  if (!ATTENDANCE_STATUSES.includes(tripStatus)) throw actionNotAllowed(tripStatus, action, []);
  const next = ATTENDANCE_TRANSITIONS[traveller.attendance][action];
  if (action === 'CHECK_IN' && traveller.attendance === 'CHECKED_IN') {
    throw new DispatchRefusal(409, 'ALREADY_CHECKED_IN', 'The traveller is already checked in', {
      checkedIn: traveller.checkedIn ?? null,
    });
  }
  // RESTORE included: a cancelled ticket is no traveller of the trip (not on the manifest), and
  // restoring it would give an attendance back to someone who left the trip.
  if (!traveller.boardable) {
    throw new DispatchRefusal(409, 'TICKET_NOT_BOARDABLE', `The ticket is ${traveller.status}`, {
      ticketStatus: traveller.status,
    });
  }
  if (traveller.refunded && action !== 'MARK_NO_SHOW') {
    throw new DispatchRefusal(
      409,
      'TRAVELLER_REFUNDED',
      "The traveller's payment was refunded; sell a new booking",
      { paymentStatus: 'REFUNDED', attendance: traveller.attendance },
    );
  }
  if (next) return next;
  if (action === 'CHECK_IN') {
    throw new DispatchRefusal(
      409,
      'TRAVELLER_MARKED_NO_SHOW',
      'The traveller is marked as a no-show; RESTORE first',
      { attendance: traveller.attendance },
    );
  }
  throw new DispatchRefusal(
    409,
    'ATTENDANCE_CONFLICT',
    `${action} is not allowed for a ${traveller.attendance} traveller`,
    {
      attendance: traveller.attendance,
      allowedActions: TRAVELLER_ACTIONS.filter(
        (candidate) => ATTENDANCE_TRANSITIONS[traveller.attendance][candidate],
      ),
    },
  );
}

/** What decides whether a trip is ready to board and depart. */
export interface ReadinessFacts {
  driverAssigned: boolean;
  /** The assigned driver is an active user with an active DRIVER membership of the trip's company. */
  driverActive: boolean;
  /** The bus has an active, valid seat layout. */
  layoutActive: boolean;
  busInService: boolean;
  /** Travellers checked in whose booking is not paid: cash the driver must collect. */
  cashToCollect: number;
  /** Bookings still awaiting the company's decision (PENDING_CONFIRMATION). */
  requestsPending: number;
  /** Another trip of the bus is BOARDING or DEPARTED: the bus is not back yet. */
  busOnAnotherTrip: boolean;
  /** Another trip of the assigned driver is BOARDING or DEPARTED. */
  driverOnAnotherTrip: boolean;
}

export interface Blocker {
  code:
    | 'DRIVER_NOT_ASSIGNED'
    | 'DRIVER_INACTIVE'
    | 'LAYOUT_NOT_ACTIVE'
    | 'BUS_OUT_OF_SERVICE'
    | 'BUS_ON_ANOTHER_TRIP'
    | 'DRIVER_ON_ANOTHER_TRIP'
    | 'CASH_TO_COLLECT'
    | 'REQUESTS_PENDING';
  message: string;
  /** The trip actions it stops. */
  blocks: TripAction[];
  count?: number;
}

const SETUP: TripAction[] = ['START_BOARDING', 'DEPART'];

/** What stops the trip from boarding or departing now. */
export function readinessBlockers(facts: ReadinessFacts): Blocker[] {
  const blockers: Blocker[] = [];
  if (!facts.driverAssigned) {
    blockers.push({
      code: 'DRIVER_NOT_ASSIGNED',
      message: 'No driver is assigned to the trip',
      blocks: SETUP,
    });
  } else if (!facts.driverActive) {
    blockers.push({
      code: 'DRIVER_INACTIVE',
      message: 'The assigned driver has no active driver account in the company',
      blocks: SETUP,
    });
  }
  if (!facts.layoutActive) {
    blockers.push({
      code: 'LAYOUT_NOT_ACTIVE',
      message: 'The bus has no active, valid seat layout',
      blocks: SETUP,
    });
  }
  if (!facts.busInService) {
    blockers.push({ code: 'BUS_OUT_OF_SERVICE', message: 'The bus is not in service', blocks: SETUP });
  }
  if (facts.busOnAnotherTrip) {
    blockers.push({
      code: 'BUS_ON_ANOTHER_TRIP',
      message: 'The bus is still boarding or out on another trip: mark that trip arrived first',
      blocks: SETUP,
    });
  }
  if (facts.driverOnAnotherTrip) {
    blockers.push({
      code: 'DRIVER_ON_ANOTHER_TRIP',
      message: 'The driver is still boarding or out on another trip: mark that trip arrived first',
      blocks: SETUP,
    });
  }
  if (facts.cashToCollect > 0) {
    blockers.push({
      code: 'CASH_TO_COLLECT',
      message: 'Checked-in travellers have unpaid cash bookings: record the collection before departure',
      blocks: ['DEPART'],
      count: facts.cashToCollect,
    });
  }
  if (facts.requestsPending > 0) {
    blockers.push({
      code: 'REQUESTS_PENDING',
      message: 'Journey requests on this trip still await the company decision',
      blocks: ['DEPART'],
      count: facts.requestsPending,
    });
  }
  return blockers;
}

/** 409 TRIP_NOT_READY when a blocker stops this action. */
export function refuseUnready(status: TripStatus, action: TripAction, blockers: readonly Blocker[]): void {
  const stopping = blockers.filter((blocker) => blocker.blocks.includes(action));
  if (stopping.length === 0) return;
  throw new DispatchRefusal(409, 'TRIP_NOT_READY', `The trip is not ready to ${action}`, {
    status,
    blockers: stopping,
    allowedActions: allowedActions(status, blockers),
  });
}

/** Where a traveller's ticket sits in the manifest: boarding stop, seat (its deck on the bus, its label), ticket. */
export interface ManifestPlace {
  boardingSequence: number;
  deck: number;
  seatNumber: string;
  itemId: string;
}

/**
 * The manifest's order (the driver app's and the operations room's): by boarding stop, then in the
 * bus's seat order, the one a hold picks seats in (journey-seats.ts compareSeats: lower deck first,
 * then the label in natural order, so 2 before 10, 1A before 2 and 12B, numbered labels before
 * lettered ones such as A2, A10, VIP1), then by ticket id, so equal labels keep one order.
 */
export function compareManifestPlaces(a: ManifestPlace, b: ManifestPlace): number {
  return (
    a.boardingSequence - b.boardingSequence ||
    compareSeats(a, b) ||
    (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0)
  );
}

export interface AttendanceCounters {
  total: number;
  checkedIn: number;
  noShow: number;
  pending: number;
  /** Travellers whose booking still awaits the company's decision. */
  awaitingConfirmation: number;
}

export function attendanceCounters(
  items: readonly { attendance: Attendance; awaitingConfirmation: boolean }[],
): AttendanceCounters {
  const count = (attendance: Attendance) => items.filter((item) => item.attendance === attendance).length;
  return {
    total: items.length,
    checkedIn: count('CHECKED_IN'),
    noShow: count('NO_SHOW'),
    pending: count('PENDING'),
    awaitingConfirmation: items.filter((item) => item.awaitingConfirmation).length,
  };
}

/** The legacy PATCH /trips/{id} names the target status; each maps to the action that reaches it. */
export const LEGACY_STATUS_ACTIONS = {
  BOARDING: 'START_BOARDING',
  DELAYED: 'MARK_DELAYED',
  DEPARTED: 'DEPART',
  ARRIVED: 'ARRIVE',
  COMPLETED: 'COMPLETE',
  CANCELLED: 'CANCEL',
} as const satisfies Partial<Record<TripStatus, TripAction>>;

/** POST /trips/bulk takes the trip actions under lower-case names. */
export const BULK_ACTIONS = TRIP_ACTIONS.map((action) => action.toLowerCase()) as Lowercase<TripAction>[];
export const bulkAction = (name: Lowercase<TripAction>): TripAction => name.toUpperCase() as TripAction;

/** The state machine as a Markdown table, for the OpenAPI descriptions (the README carries the same). */
export function dispatchTableMarkdown(): string {
  const header = `| status | ${TRIP_ACTIONS.join(' | ')} | traveller actions |`;
  const rule = `|${' --- |'.repeat(TRIP_ACTIONS.length + 2)}`;
  const rows = TRIP_STATUSES.map((status) => {
    const cells = TRIP_ACTIONS.map((action) => {
      const to = TRIP_TRANSITIONS[status][action];
      if (to) return `→ ${to}`;
      return TRIP_REPLAYS[status]?.includes(action) ? 'replay' : '—';
    });
    return `| ${status} | ${cells.join(' | ')} | ${ATTENDANCE_STATUSES.includes(status) ? 'yes' : '—'} |`;
  });
  return [header, rule, ...rows].join('\n');
}
