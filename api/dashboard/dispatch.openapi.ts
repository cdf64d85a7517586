import { z } from 'zod';
import {
  ATTENDANCES,
  DISPATCH_ACTIONS,
  dispatchTableMarkdown,
  MANIFEST_ITEM_TYPES,
  TRIP_STATUSES,
} from '../../domain/trip-dispatch.js';
import { PickupLocationSchema } from '../customer/trips.openapi.js';
import { PrintedProse, textRule, UuidWith } from '../http/schemas.js';
import { TripTimesOut } from './planning-schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText as DateTime, IdText as Id, successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the trip operations room (api/dashboard/dispatch.ts): the action body, the
 * view and the result, the errorCodes of a refused body, and the prose with the state machine.
 */

const TAGS = ['Dashboard: trip operations'];

/**
 * zod's message for a required field that is absent (not sent, or null): only then is its errorCode
 * the field's "…_REQUIRED"; a value that is there but wrong (too long, not a whole number, a number
 * for an id) is VALIDATION_FAILED. zod 4 reports both alike (invalid_type for a string or a number,
 * invalid_value for an enum), so the absent case gets its own message.
 */
const ABSENT = 'Required';
const whenAbsent = { error: (issue: { input?: unknown }) => (issue.input == null ? ABSENT : undefined) };

/**
 * A trip action's reason: trimmed, 1 to 500 characters (blank is no reason). Staff read it in the
 * operations log and finance in a refund due ("TRIP_CANCELLED: <reason>"): prose, so line breaks and
 * tabs but no other control or bidirectional-override character, which could make it read as another.
 */
export const Reason = PrintedProse(1, 500, whenAbsent);
/**
 * A reason an action may go without (MARK_NO_SHOW's, SPEC "optional operational reason"): a blank
 * one (empty, or white space only) is no reason, as if absent; the log records none.
 */
const OptionalReason = PrintedProse(0, 500)
  .transform((text) => text || undefined)
  .optional();
/** A delay: a whole number of minutes, 1 to 1440. */
export const DelayMinutes = z.int(whenAbsent).min(1).max(1440);

const ItemFields = {
  manifest_item_id: UuidWith(whenAbsent).meta({ description: 'the item id from the manifest' }),
  manifest_item_type: z.enum(MANIFEST_ITEM_TYPES, whenAbsent).meta({
    description:
      'JOURNEY_TICKET for every modern traveller; BOOKING only for legacy bookings without tickets',
  }),
};
const plain = <A extends string>(action: A) => z.object({ action: z.literal(action) }).strict();

/**
 * One action (SPEC "Trip dispatch actions") with the fields it takes and no other; the legacy PATCH
 * /trips/{id} checks its body with it too, under the action its status names.
 */
export const DispatchBody = z
  .discriminatedUnion('action', [
    plain('START_BOARDING'),
    z
      .object({
        action: z.literal('MARK_DELAYED'),
        reason: Reason,
        delay_minutes: DelayMinutes.meta({ description: 'the announced delay, 1 to 1440 minutes' }),
      })
      .strict(),
    plain('DEPART'),
    plain('ARRIVE'),
    plain('COMPLETE'),
    z.object({ action: z.literal('CANCEL'), reason: Reason }).strict(),
    z.object({ action: z.literal('CHECK_IN'), ...ItemFields }).strict(),
    z
      .object({
        action: z.literal('MARK_NO_SHOW'),
        ...ItemFields,
        reason: OptionalReason.meta({
          description: `optional operational reason; a blank one is none; ${textRule(0, 500, 'prose')}`,
        }),
      })
      .strict(),
    z.object({ action: z.literal('RESTORE'), ...ItemFields }).strict(),
  ])
  .meta({ id: 'DispatchAction' });

export type DispatchBodyInput = z.output<typeof DispatchBody>;

/**
 * The stable codes of a refused action body (POST /trips/{id}/dispatch's, and through it the legacy
 * PATCH /trips/{id}'s and POST /trips/bulk's): the first field at fault names it. A field is
 * "required" only when absent (a required reason also when blank: MARK_NO_SHOW's is optional, and
 * blank is none); a wrong value is VALIDATION_FAILED.
 */
export function dispatchErrorCode(issues: z.core.$ZodIssue[]): string {
  const field = (name: string) => issues.find((issue) => issue.path[0] === name);
  const absent = (name: string) => field(name)?.message === ABSENT;
  if (field('action')) return 'UNKNOWN_ACTION';
  if (absent('reason') || field('reason')?.code === 'too_small') return 'REASON_REQUIRED';
  if (absent('delay_minutes')) return 'DELAY_MINUTES_REQUIRED';
  if (absent('manifest_item_id') || absent('manifest_item_type')) return 'MANIFEST_ITEM_REQUIRED';
  return 'VALIDATION_FAILED';
}

const TripStatus = z.enum(TRIP_STATUSES);
const Action = z.enum(DISPATCH_ACTIONS);

/** allowed_actions of the view and of an action's answer. */
const AllowedActions = z.array(Action).meta({
  description:
    'What this session may do now: none for a role that only reads (STAFF, ACCOUNTANT) or a suspended company. ' +
    'A replay (COMPLETE of a COMPLETED trip, answered 200 with replayed: true) is not an offered action.',
});
const Attendance = z.enum(ATTENDANCES);

const StopVisit = z.object({
  stop_call_id: Id,
  sequence: z.int(),
  stop_id: Id,
  name_ar: z.string(),
  name_en: z.string(),
  at: DateTime,
});

export const ManifestItem = z
  .object({
    manifest_item_id: Id,
    manifest_item_type: z.enum(MANIFEST_ITEM_TYPES),
    booking_id: Id.nullable(),
    booking_code: z.string().nullable(),
    journey_id: Id.nullable(),
    traveller_name: z.string(),
    phone: z.string().nullable(),
    seat_number: z.string(),
    ticket_status: z.string().nullable().meta({ description: 'null for a legacy BOOKING item' }),
    booking_status: z.string().nullable(),
    boarding: StopVisit.meta({ description: 'where and when the traveller boards' }),
    alighting: StopVisit,
    payment: z
      .object({
        status: z.enum(['UNPAID', 'PAID', 'REFUNDED']),
        total_price: z.number(),
        currency: z.string(),
        pending_cash: z.boolean().meta({
          description:
            'a cash payment is announced by the traveller or recorded by the driver, and not yet verified by the office',
        }),
        cash_to_collect: z.boolean().meta({
          description:
            "the driver app's cash to collect: the booking travels (CONFIRMED or CHECKED_IN), is UNPAID, its total_price " +
            'is above 0, and its driver has not recorded taking the cash (POST /driver/api/trips/{id}/bookings/' +
            '{bookingId}/cash-collection)',
        }),
      })
      .nullable(),
    attendance: z.object({
      status: Attendance,
      at: DateTime.nullable(),
      by: z.object({ id: Id, name: z.string() }).nullable(),
      source: z.string().nullable(),
    }),
    awaiting_confirmation: z.boolean(),
  })
  .meta({ id: 'ManifestItem' });

const Blocker = z.object({
  code: z.string(),
  message: z.string(),
  blocks: z.array(Action),
  count: z.int().optional(),
});

/** How the trip's travellers stand (the operations room and the driver app's manifest). */
export const AttendanceCounters = z.object({
  total: z.int(),
  checked_in: z.int(),
  no_show: z.int(),
  pending: z.int(),
  awaiting_confirmation: z.int(),
});
const City = z.object({ id: Id, name_ar: z.string(), name_en: z.string() });
export const DispatchView = successWith(
  z.object({
    trip: z.object({
      id: Id,
      status: TripStatus,
      ...TripTimesOut,
      seats_total: z.int(),
      route: z.object({ id: Id, name_ar: z.string(), name_en: z.string(), origin: City, destination: City }),
      stop_calls: z.array(
        z.object({
          id: Id,
          sequence: z.int(),
          stop_id: Id,
          name_ar: z.string(),
          name_en: z.string(),
          arrival_at: DateTime,
          departure_at: DateTime,
        }),
      ),
    }),
    bus: z.object({
      id: Id,
      plate_number: z.string(),
      model: z.string(),
      status: z.string(),
      capacity: z.int(),
      layout: z
        .object({ id: Id, version: z.int(), seat_count: z.int() })
        .nullable()
        .meta({ description: 'the active, valid seat layout; null when there is none' }),
    }),
    driver: z
      .object({ id: Id, name: z.string().nullable(), email: z.string().nullable(), active: z.boolean() })
      .nullable(),
    manifest: z.array(ManifestItem),
    counters: AttendanceCounters,
    readiness: z.object({ ready: z.boolean(), blockers: z.array(Blocker) }),
    allowed_actions: AllowedActions,
    events: z.array(
      z.object({
        id: z.string(),
        action: Action,
        actor: z.object({ id: Id.nullable(), name: z.string().nullable(), role: z.string() }),
        channel: z.string(),
        manifest_item_type: z.enum(MANIFEST_ITEM_TYPES).nullable(),
        manifest_item_id: Id.nullable(),
        before: z.record(z.string(), z.unknown()),
        after: z.record(z.string(), z.unknown()),
        reason: z.string().nullable(),
        details: z.record(z.string(), z.unknown()),
        at: DateTime,
      }),
    ),
    pickup: z.object({
      snapshot: PickupLocationSchema,
      confirmation: z.object({
        status: z.enum(['CONFIRMED', 'UNCONFIRMED']),
        issues: z.array(z.enum(['STOP_DISABLED', 'OUTSIDE_ORIGIN_CITY', 'NOT_A_PICKUP_POINT'])),
      }),
    }),
  }),
);

export const DispatchOutcome = z
  .object({
    trip_id: Id,
    action: Action,
    replayed: z.boolean().meta({ description: 'COMPLETE of a completed trip: nothing changed' }),
    previous_status: TripStatus,
    status: TripStatus,
    trip: z.object({
      status: TripStatus,
      delay_minutes: z.int(),
      actual_departure_at: DateTime.nullable(),
      actual_arrival_at: DateTime.nullable(),
    }),
    traveller: z
      .object({
        manifest_item_type: z.enum(MANIFEST_ITEM_TYPES),
        manifest_item_id: Id,
        booking_id: Id.nullable(),
        attendance: Attendance,
        previous_attendance: Attendance,
        ticket_status: z.string().nullable(),
        booking_status: z.string().nullable(),
        at: DateTime,
      })
      .optional(),
    effects: z
      .record(z.string(), z.int())
      .optional()
      .meta({
        description:
          'what CANCEL or COMPLETE changed: cancelled_journeys, cancelled_bookings, released_seats, revoked_credentials, ' +
          'cancelled_payments, refund_due_payments, completed_bookings, no_shows, events',
      }),
    loyalty: z
      .object({ bookings_credited: z.int(), points_credited: z.int(), referrals_rewarded: z.int() })
      .optional()
      .meta({
        description:
          'COMPLETE: what this call credited (0 when already credited): bookings_credited counts the bookings it ' +
          'posted points for, to the account owning the booking then (a booking earning 0 points, a free seat, ' +
          'never counts, first COMPLETE or replay; one owned by a disabled account is not credited, a replay ' +
          'credits it once the account is active again), ' +
          'points_credited their points (each at the tier the traveller had when the trip was completed, ' +
          "before that trip's points), referrals_rewarded the referrals it rewarded",
      }),
  })
  .meta({ id: 'DispatchOutcome' });

export const DispatchResponse = successWith(DispatchOutcome.extend({ allowed_actions: AllowedActions }));

export const STATE_MACHINE =
  `Trip statuses and the status each action leads to (domain/trip-dispatch.ts; "replay" answers 200 with replayed: ` +
  `true and changes nothing):\n\n${dispatchTableMarkdown()}\n\n` +
  'Traveller actions, while the trip is BOARDING, DELAYED, DEPARTED or ARRIVED: CHECK_IN (PENDING → CHECKED_IN; the ' +
  "ticket's credential is consumed: ticket USED, its PDF answers 410, the driver app's verification refuses it), " +
  'MARK_NO_SHOW (PENDING → NO_SHOW, optional reason), RESTORE (CHECKED_IN or NO_SHOW → PENDING, the same traveller ' +
  'only; a restored check-in makes the ticket VALID again). A second CHECK_IN is 409 ALREADY_CHECKED_IN with ' +
  'details.checkedIn {at, byStaffUserId, byName, source, deviceId}; a no-show must be restored before a check-in (409 ' +
  "TRAVELLER_MARKED_NO_SHOW); a traveller whose booking's payment was refunded (a refund that kept the booking, " +
  'as a compensation) is neither checked in nor restored (409 TRAVELLER_REFUNDED: sell a new booking; nothing ' +
  'changes); other attendance conflicts are 409 ATTENDANCE_CONFLICT; a ticket that is not boardable ' +
  '(pending confirmation, cancelled) is 409 TICKET_NOT_BOARDABLE; a RESTORE of a check-in whose cash the driver ' +
  'recorded taking (a PENDING driver payment line) is 409 DRIVER_CASH_RECORDED with details.payment_id until the ' +
  'office cancels that line, when no other traveller of the booking stays checked in (while one does, the booking ' +
  'stays CHECKED_IN and the RESTORE is made).';

const EFFECTS =
  'Effects, in the same transaction: DEPART stamps actual_departure_at and records trip.started for every booking on ' +
  'the trip; ARRIVE stamps actual_arrival_at; COMPLETE marks travellers never checked in NO_SHOW, bookings with a ' +
  'checked-in traveller COMPLETED and the others NO_SHOW (their pending cash payments CANCELLED, cancelled_by the ' +
  "acting user: the payment ledger's trip_completed move), records trip.completed, and after its commit credits loyalty " +
  'points and referral rewards once per booking, under the loyalty terms COMPLETE found (none when the programme was ' +
  'switched off; a second COMPLETE is a replay that only finishes what that completion owed); CANCEL ' +
  '(reason required) ends every journey with a leg on the trip as a whole: its legs on trips that have not departed ' +
  'lose bookings, tickets (CANCELLED, credentials on the revocation list) and seats (a leg on another trip whose ' +
  'traveller is checked in is kept with its booking, tickets, seats and payments, and its journey stands), pending ' +
  'confirmation requests and ' +
  'holds end, the journey is CANCELLED with failure_reason TRIP_CANCELLED (an order still awaiting confirmation ends ' +
  'whole), legacy bookings and seat locks of the trip end, pending cash payments are CANCELLED (cancelled_by the ' +
  "acting user on the trip's company's lines, null on another company's) and collected ones REFUND_DUE " +
  '(refund_due_reason "TRIP_CANCELLED: <reason>" on the trip\'s company\'s lines, "TRIP_CANCELLED" on another ' +
  "company's), which finance then " +
  "refunds (the payment ledger's trip_cancelled moves), a voucher spent on bookings that trip CANCELs all ended " +
  '(this one or earlier ones) is ISSUED again (one whose reward was withdrawn meanwhile is CANCELLED and its points ' +
  'returned, a VOUCHER_REFUND ledger entry; one also spent on a booking the company refunded, ended or kept, or its ' +
  'traveller cancelled while it was live stays spent, whichever ended first), and booking.cancelled is recorded per ' +
  'booking. ' +
  'MARK_DELAYED (reason and delay_minutes required) sets delay_minutes; a delayed trip resumes with START_BOARDING.';

const READINESS =
  'Readiness blockers stop actions: DRIVER_NOT_ASSIGNED, DRIVER_INACTIVE (no active DRIVER membership of the company), ' +
  'LAYOUT_NOT_ACTIVE (no active, valid seat layout), BUS_OUT_OF_SERVICE, BUS_ON_ANOTHER_TRIP and ' +
  'DRIVER_ON_ANOTHER_TRIP (another trip of the bus, or of the driver, is BOARDING or DEPARTED: mark it ARRIVED ' +
  'first) stop START_BOARDING and DEPART; ' +
  'CASH_TO_COLLECT (checked-in travellers with unpaid bookings costing more than 0: record the collection first, ' +
  'at the office or by the driver) and ' +
  'REQUESTS_PENDING (journey requests still awaiting the company decision; a request of a journey or order closed at a ' +
  "decision deadline, its own or another company's, awaits nobody: the DEPART releases that journey or order, " +
  'CANCELLED with DECISION_DEADLINE_PASSED) stop ' +
  'DEPART. A stopped action is 409 ' +
  'TRIP_NOT_READY with details.blockers.';

const ACCESS =
  "The session's company only: another company's trip is 404 TRIP_NOT_FOUND, the same as an id that does not exist.";

export const docs = taggedOperations(TAGS, {
  getTripDispatch: {
    summary: 'The trip operations room: set-up, manifest, readiness, allowed actions, recent events',
    description:
      `${ACCESS} Any dashboard role may read it. The trip with its route and stop calls, the bus and its active layout, ` +
      'the driver; the manifest: one JOURNEY_TICKET item per modern traveller (ticket pending confirmation, valid or ' +
      'used; cancelled and re-issued tickets are not travellers) and a BOOKING item only per legacy booking without ' +
      'tickets, each with boarding and alighting stop, seat, payment state and attendance (who recorded it, when, from ' +
      "where), ordered by boarding stop, then by seat in the bus's seat order (lower deck first, then the label's " +
      'natural order: 2 before 10, 1A before 12B, numbered labels before lettered ones), legacy bookings last; ' +
      'attendance counters; readiness blockers; the actions allowed now; the last 25 operations log entries ' +
      "(actor, action, state before and after, reason, time), newest first; and the pickup snapshot (the trip's " +
      'pickupLocation) with its confirmation status: CONFIRMED when the stop is enabled, in the route origin city and a ' +
      'pickup point of the company (or a public one), else UNCONFIRMED with the issues.\n\n' +
      `${STATE_MACHINE}\n\n${READINESS}`,
    responses: answers(200, 'The operations room view', DispatchView, [400, 401, 404]),
  },
  dispatchTripAction: {
    summary: 'Take one dispatch action on a trip or one of its travellers',
    description:
      `Exactly one action per request (SPEC "Trip dispatch actions"); OWNER, ADMIN or DISPATCHER of an active company ` +
      `(403 ROLE_NOT_ALLOWED, COMPANY_SUSPENDED); X-CSRF-Token. The member is judged as they stand when the action is ` +
      'made, after any change committed while the request waited: signed out or deactivated 401 INVALID_CREDENTIAL, ' +
      `no longer of those roles 403 ROLE_NOT_ALLOWED, nothing changed. ${ACCESS} Each action is one company-scoped transaction ` +
      'that locks the trip, then the traveller, checks the sequence and readiness, syncs the seats and booking rows and ' +
      'writes the operations log (actor, action, before/after, reason, time); the same transition serves PATCH ' +
      '/trips/{id}, POST /trips/bulk and the driver app. An action not allowed now is 409 TRIP_ACTION_NOT_ALLOWED with ' +
      'details.status and details.allowedActions. A refused body changes nothing: 400 UNKNOWN_ACTION, REASON_REQUIRED ' +
      '(MARK_DELAYED, CANCEL without a reason or with a blank one; MARK_NO_SHOW takes an optional reason, and a blank ' +
      'one is recorded as none), DELAY_MINUTES_REQUIRED (MARK_DELAYED without delay_minutes), MANIFEST_ITEM_REQUIRED ' +
      '(CHECK_IN, MARK_NO_SHOW or RESTORE without manifest_item_id or manifest_item_type, or with null), ' +
      'VALIDATION_FAILED (a field the action does not take, a reason over 500 ' +
      'characters or with a control or bidirectional-override character other than line breaks and tabs, ' +
      'delay_minutes that is not a whole number from 1 to 1440, a malformed id or one that is not text, an unknown ' +
      'manifest_item_type); PATCH /trips/{id} checks ' +
      'its body the same way. A manifest item that is not a traveller of this trip is 404 ' +
      'MANIFEST_ITEM_NOT_FOUND. The answer carries the new state and the actions allowed now.\n\n' +
      `${STATE_MACHINE}\n\n${EFFECTS}\n\n${READINESS}`,
    responses: answers(
      200,
      'The action was taken (or replayed)',
      DispatchResponse,
      [400, 401, 403, 404, 409],
    ),
  },
});
