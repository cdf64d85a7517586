import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  TRIP_ACTIONS,
  TRIP_STATUSES,
  tripStep,
  type TripAction,
  type TripStatus,
} from '../../../domain/trip-dispatch.js';
import { atDamascus, createBus, createTrip, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import {
  confirmJourney,
  connection,
  holdForConfirm,
  mobileTraveller,
  setConfirmation,
} from '../../support/journeys.js';
import {
  advance,
  anotherTrip,
  assignDriver,
  bookSeats,
  createDriver,
  dispatch,
  dispatchView,
  operationsSnapshot,
  operationsWorld,
  setTripStatus,
  tripOfItsOwn,
  type BookedTraveller,
  type OperationsWorld,
} from '../../support/operations.js';
import { collectCash } from '../../support/payments.js';
import { demotedWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';

/** What a trip action answers from a status, as the domain table says: the next status, a replay, or 409. */
function expectedOf(status: TripStatus, action: TripAction): TripStatus | 'REPLAY' | undefined {
  try {
    const step = tripStep(status, action);
    return step.kind === 'REPLAY' ? 'REPLAY' : step.to;
  } catch {
    return undefined;
  }
}

const bodyOf = (action: TripAction) =>
  action === 'MARK_DELAYED'
    ? { action, reason: 'Road works', delay_minutes: 20 }
    : action === 'CANCEL'
      ? { action, reason: 'Bus breakdown' }
      : { action };

describe('the trip operations room: POST /dashboard/api/trips/{id}/dispatch', () => {
  const app = useTestApp();
  let world: OperationsWorld;

  beforeAll(async () => {
    world = await operationsWorld(app);
  });

  describe('every trip action from every status', () => {
    for (const status of TRIP_STATUSES) {
      for (const action of TRIP_ACTIONS) {
        const expected = expectedOf(status, action);
        it(`${action} from ${status} → ${expected ?? '409'}`, async () => {
          const { tripId } = await tripOfItsOwn(app, world);
          await setTripStatus(app.db, tripId, status);
          const before = await operationsSnapshot(app.db, tripId);
          const response = await dispatch(app, world.dispatcher, tripId, bodyOf(action));
          if (!expected) {
            expect(response.status, response.text).toBe(409);
            expect(response.body).toMatchObject({
              errorCode: 'TRIP_ACTION_NOT_ALLOWED',
              details: { status, action },
            });
            expect(response.body.details.allowedActions).not.toContain(action);
            expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
            return;
          }
          expect(response.status, response.text).toBe(200);
          const after = await operationsSnapshot(app.db, tripId);
          if (expected === 'REPLAY') {
            expect(response.body.data).toMatchObject({ replayed: true, status });
            expect(after.trip).toEqual(before.trip);
            expect(after.events).toHaveLength(0);
            return;
          }
          expect(response.body.data).toMatchObject({
            replayed: false,
            previous_status: status,
            status: expected,
          });
          expect(after.trip).toMatchObject({ status: expected });
          expect(after.events).toHaveLength(1);
          expect(after.events[0]).toMatchObject({
            action,
            actor_id: world.dispatcher.staffUserId,
            actor_role: 'DISPATCHER',
            channel: 'DASHBOARD',
            before: { status },
            after: { status: expected },
            reason: action === 'MARK_DELAYED' || action === 'CANCEL' ? expect.any(String) : null,
          });
        });
      }
    }
  });

  describe('traveller actions by trip status', () => {
    const open = new Set<TripStatus>(['BOARDING', 'DELAYED', 'DEPARTED', 'ARRIVED']);
    for (const status of TRIP_STATUSES) {
      it(`CHECK_IN while ${status}: ${open.has(status) ? 'checked in' : '409'}`, async () => {
        const local = await operationsWorld(app, { seats: 4 });
        const booked = await bookSeats(app, local.trip, [local.trip.seatNumbers[0]!]);
        await setTripStatus(app.db, local.trip.tripId, status);
        const response = await dispatch(app, local.dispatcher, local.trip.tripId, {
          action: 'CHECK_IN',
          manifest_item_id: booked.ticketIds[0],
          manifest_item_type: 'JOURNEY_TICKET',
        });
        const [ticket] = await app.db.query<{ status: string; attendance: string }>(
          'select status, attendance from journey_tickets where id = $1',
          [booked.ticketIds[0]],
        );
        if (open.has(status)) {
          expect(response.status, response.text).toBe(200);
          expect(ticket).toEqual({ status: 'USED', attendance: 'CHECKED_IN' });
        } else {
          expect(response.status).toBe(409);
          expect(response.body).toMatchObject({ errorCode: 'TRIP_ACTION_NOT_ALLOWED', details: { status } });
          expect(ticket).toEqual({ status: 'VALID', attendance: 'PENDING' });
        }
      });
    }
  });

  describe('who may act', () => {
    it('lets OWNER, ADMIN and DISPATCHER act, and STAFF and ACCOUNTANT only read', async () => {
      for (const role of ['OWNER', 'ADMIN', 'DISPATCHER'] as const) {
        const { tripId } = await tripOfItsOwn(app, world);
        const response = await dispatch(app, world.sessions[role], tripId, { action: 'START_BOARDING' });
        expect(response.status, `${role}: ${response.text}`).toBe(200);
      }
      for (const role of ['STAFF', 'ACCOUNTANT'] as const) {
        const tripId = await anotherTrip(app, world);
        const before = await operationsSnapshot(app.db, tripId);
        const refused = await dispatch(app, world.sessions[role], tripId, { action: 'START_BOARDING' });
        expect(refused.status).toBe(403);
        expect(refused.body.errorCode).toBe('ROLE_NOT_ALLOWED');
        expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
        const read = await dispatchView(app, world.sessions[role], tripId);
        expect(read.status).toBe(200);
        expect(read.body.data.trip.status).toBe('SCHEDULED');
      }
    });

    it("answers another company's trip as not found, for reading and for acting", async () => {
      const other = await operationsWorld(app, { seats: 4 });
      const before = await operationsSnapshot(app.db, other.trip.tripId);
      const read = await dispatchView(app, world.dispatcher, other.trip.tripId);
      expect(read.status).toBe(404);
      expect(read.body.errorCode).toBe('TRIP_NOT_FOUND');
      const act = await dispatch(app, world.dispatcher, other.trip.tripId, {
        action: 'CANCEL',
        reason: 'Mine now',
      });
      expect(act.status).toBe(404);
      expect(act.body.errorCode).toBe('TRIP_NOT_FOUND');
      expect(await operationsSnapshot(app.db, other.trip.tripId)).toEqual(before);
      const unknown = await dispatchView(app, world.dispatcher, randomUUID());
      expect(unknown.status).toBe(404);
    });

    it("refuses a suspended company's actions and a write without the CSRF header", async () => {
      const tripId = await anotherTrip(app, world);
      const noCsrf = await app.request(`/dashboard/api/trips/${tripId}/dispatch`, {
        method: 'POST',
        headers: { Cookie: world.dispatcher.cookie },
        json: { action: 'START_BOARDING' },
      });
      expect(noCsrf.status).toBe(403);
      expect(noCsrf.body.errorCode).toBe('CSRF_TOKEN_INVALID');
      const suspended = await operationsWorld(app, { seats: 4 });
      await app.db.query(`update companies set status = 'SUSPENDED' where id = $1`, [suspended.companyId]);
      const refused = await dispatch(app, suspended.dispatcher, suspended.trip.tripId, {
        action: 'START_BOARDING',
      });
      expect(refused.status).toBe(403);
      expect(refused.body.errorCode).toBe('COMPANY_SUSPENDED');
      const [trip] = await app.db.query<{ status: string }>('select status from trips where id = $1', [
        suspended.trip.tripId,
      ]);
      expect(trip!.status).toBe('SCHEDULED');
    });

    it('refuses an action, by either door, that reaches the company after its suspension committed meanwhile', async () => {
      type Door = (session: OperationsWorld['dispatcher'], tripId: string) => ReturnType<typeof dispatch>;
      const doors: [string, Door][] = [
        ['POST /dispatch', (session, tripId) => dispatch(app, session, tripId, { action: 'START_BOARDING' })],
        [
          'the legacy PATCH /trips/{id}',
          (session, tripId) =>
            app.request(`/dashboard/api/trips/${tripId}`, {
              method: 'PATCH',
              headers: session.writeHeaders,
              json: { status: 'BOARDING' },
            }),
        ],
      ];
      for (const [door, act] of doors) {
        const local = await operationsWorld(app, { seats: 4 });
        const { tripId } = await tripOfItsOwn(app, local);
        const before = await operationsSnapshot(app.db, tripId);
        const refused = await suspendedWhileWriting(app.db, local.companyId, () =>
          act(local.dispatcher, tripId),
        );
        expect([refused.status, refused.body.errorCode], `${door}: ${refused.text}`).toEqual([
          403,
          'COMPANY_SUSPENDED',
        ]);
        expect(await operationsSnapshot(app.db, tripId), door).toEqual(before);
      }
    });

    it('refuses a DISPATCHER demoted to STAFF while the action waits for the company 403 ROLE_NOT_ALLOWED', async () => {
      const local = await operationsWorld(app, { seats: 4 });
      const { tripId } = await tripOfItsOwn(app, local);
      const dispatcher = await staffSession(app.db, app.config, local.companyId, 'DISPATCHER');
      const before = await operationsSnapshot(app.db, tripId);
      const refused = await demotedWhileWriting(
        app.db,
        local.companyId,
        dispatcher.membershipId,
        'STAFF',
        () => dispatch(app, dispatcher, tripId, { action: 'START_BOARDING' }),
      );
      expect([refused.status, refused.body.errorCode, refused.body.details], refused.text).toEqual([
        403,
        'ROLE_NOT_ALLOWED',
        { role: 'STAFF', allowedRoles: ['OWNER', 'ADMIN', 'DISPATCHER'] },
      ]);
      expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
    });
  });

  describe('bad input changes nothing', () => {
    let booked: BookedTraveller;
    let tripId: string;
    let dispatcher: OperationsWorld['dispatcher'];
    let foreignTicket: string;

    beforeAll(async () => {
      const local = await operationsWorld(app, { seats: 8 });
      tripId = local.trip.tripId;
      dispatcher = local.dispatcher;
      booked = await bookSeats(app, local.trip, [local.trip.seatNumbers[0]!]);
      await setTripStatus(app.db, tripId, 'BOARDING');
      const elsewhere = await bookSeats(app, world.trip, [world.trip.seatNumbers[5]!]);
      foreignTicket = elsewhere.ticketIds[0]!;
    });

    const cases: [string, () => Record<string, unknown>, number, string][] = [
      ['an unknown action', () => ({ action: 'TELEPORT' }), 400, 'UNKNOWN_ACTION'],
      ['a missing action', () => ({}), 400, 'UNKNOWN_ACTION'],
      ['a lower-case action', () => ({ action: 'depart' }), 400, 'UNKNOWN_ACTION'],
      ['a cancel without reason', () => ({ action: 'CANCEL' }), 400, 'REASON_REQUIRED'],
      ['a blank reason', () => ({ action: 'CANCEL', reason: '   ' }), 400, 'REASON_REQUIRED'],
      [
        'a delay without reason',
        () => ({ action: 'MARK_DELAYED', delay_minutes: 10 }),
        400,
        'REASON_REQUIRED',
      ],
      [
        'a delay without minutes',
        () => ({ action: 'MARK_DELAYED', reason: 'Fog' }),
        400,
        'DELAY_MINUTES_REQUIRED',
      ],
      [
        'a delay of 0 minutes',
        () => ({ action: 'MARK_DELAYED', reason: 'Fog', delay_minutes: 0 }),
        400,
        'VALIDATION_FAILED',
      ],
      ['a check-in without traveller', () => ({ action: 'CHECK_IN' }), 400, 'MANIFEST_ITEM_REQUIRED'],
      [
        'a check-in without manifest_item_type',
        () => ({ action: 'CHECK_IN', manifest_item_id: booked.ticketIds[0] }),
        400,
        'MANIFEST_ITEM_REQUIRED',
      ],
      [
        'a check-in with a null manifest_item_id',
        () => ({ action: 'CHECK_IN', manifest_item_id: null, manifest_item_type: 'JOURNEY_TICKET' }),
        400,
        'MANIFEST_ITEM_REQUIRED',
      ],
      [
        'a manifest item id that is a number',
        () => ({ action: 'CHECK_IN', manifest_item_id: 12345, manifest_item_type: 'JOURNEY_TICKET' }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'a manifest item type that is a number',
        () => ({ action: 'CHECK_IN', manifest_item_id: booked.ticketIds[0], manifest_item_type: 7 }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'a no-show reason over 500 characters',
        () => ({
          action: 'MARK_NO_SHOW',
          manifest_item_id: booked.ticketIds[0],
          manifest_item_type: 'JOURNEY_TICKET',
          reason: 'x'.repeat(501),
        }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'a field the action does not take',
        () => ({ action: 'DEPART', reason: 'now' }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'a malformed manifest item id',
        () => ({ action: 'CHECK_IN', manifest_item_id: 'ticket-1', manifest_item_type: 'JOURNEY_TICKET' }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'an unknown manifest item type',
        () => ({ action: 'CHECK_IN', manifest_item_id: booked.ticketIds[0], manifest_item_type: 'SEAT' }),
        400,
        'VALIDATION_FAILED',
      ],
      [
        'a manifest item of another trip',
        () => ({ action: 'CHECK_IN', manifest_item_id: foreignTicket, manifest_item_type: 'JOURNEY_TICKET' }),
        404,
        'MANIFEST_ITEM_NOT_FOUND',
      ],
      [
        'a modern traveller named as a legacy BOOKING',
        () => ({ action: 'CHECK_IN', manifest_item_id: booked.bookingId, manifest_item_type: 'BOOKING' }),
        404,
        'MANIFEST_ITEM_NOT_FOUND',
      ],
      [
        'a restore of a traveller never checked in',
        () => ({
          action: 'RESTORE',
          manifest_item_id: booked.ticketIds[0],
          manifest_item_type: 'JOURNEY_TICKET',
        }),
        409,
        'ATTENDANCE_CONFLICT',
      ],
    ];

    for (const [name, body, status, errorCode] of cases) {
      it(`refuses ${name} with ${status} ${errorCode}`, async () => {
        // The other trip too: its traveller is the one named in 'a manifest item of another trip'.
        const snapshot = async () => [
          await operationsSnapshot(app.db, tripId),
          await operationsSnapshot(app.db, world.trip.tripId),
        ];
        const before = await snapshot();
        const response = await dispatch(app, dispatcher, tripId, body());
        expect(response.status, response.text).toBe(status);
        expect(response.body.errorCode).toBe(errorCode);
        expect(await snapshot()).toEqual(before);
      });
    }

    it('refuses a malformed trip id', async () => {
      const response = await dispatch(app, dispatcher, 'not-a-uuid', { action: 'DEPART' });
      expect(response.status).toBe(400);
    });
  });

  describe('check-in, no-show and restore', () => {
    let local: OperationsWorld;
    let rami: BookedTraveller;
    let lina: BookedTraveller;

    beforeAll(async () => {
      local = await operationsWorld(app, { seats: 8 });
      rami = await bookSeats(app, local.trip, [local.trip.seatNumbers[0]!]);
      lina = await bookSeats(app, local.trip, [local.trip.seatNumbers[1]!, local.trip.seatNumbers[2]!]);
      await setTripStatus(app.db, local.trip.tripId, 'BOARDING');
    });

    const item = (id: string) => ({ manifest_item_id: id, manifest_item_type: 'JOURNEY_TICKET' });
    const ticketPdf = (traveller: BookedTraveller) =>
      app.request(`/api/bookings/${traveller.bookingId}/document?type=ticket&locale=en`, {
        headers: traveller.caller.headers,
      });

    it("consumes the credential: the ticket is USED, its PDF is gone and the driver's check says so", async () => {
      const response = await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'CHECK_IN',
        ...item(rami.ticketIds[0]!),
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.traveller).toMatchObject({
        attendance: 'CHECKED_IN',
        previous_attendance: 'PENDING',
        ticket_status: 'USED',
        booking_status: 'CHECKED_IN',
      });
      const pdf = await ticketPdf(rami);
      expect(pdf.status).toBe(410);
      expect(pdf.body.errorCode).toBe('DOCUMENT_GONE');
      const verify = await app.request('/driver/api/verify', {
        method: 'POST',
        token: local.driver.token,
        json: {
          payload: rami.credentials[0]!.payload,
          signature: rami.credentials[0]!.signature,
          tripId: local.trip.tripId,
        },
      });
      expect(verify.body.data).toMatchObject({ valid: false, ticket: { status: 'USED' } });
      const again = await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'CHECK_IN',
        ...item(rami.ticketIds[0]!),
      });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({
        errorCode: 'ALREADY_CHECKED_IN',
        details: { checkedIn: { byStaffUserId: local.dispatcher.staffUserId, source: 'DASHBOARD' } },
      });
    });

    it('restores a mistaken check-in of the same traveller only', async () => {
      const other = await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'RESTORE',
        ...item(lina.ticketIds[0]!),
      });
      expect(other.status).toBe(409);
      const [stillUsed] = await app.db.query<{ status: string }>(
        'select status from journey_tickets where id = $1',
        [rami.ticketIds[0]],
      );
      expect(stillUsed!.status).toBe('USED');
      const restored = await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'RESTORE',
        ...item(rami.ticketIds[0]!),
      });
      expect(restored.status, restored.text).toBe(200);
      expect(restored.body.data.traveller).toMatchObject({
        attendance: 'PENDING',
        previous_attendance: 'CHECKED_IN',
        ticket_status: 'VALID',
        booking_status: 'CONFIRMED',
      });
      const pdf = await ticketPdf(rami);
      expect(pdf.status).not.toBe(410);
    });

    it('marks a no-show with a reason, refuses its check-in until restored, and follows the booking', async () => {
      const noShow = await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'MARK_NO_SHOW',
        reason: 'Did not answer the phone',
        ...item(lina.ticketIds[0]!),
      });
      expect(noShow.status, noShow.text).toBe(200);
      expect(noShow.body.data.traveller.booking_status).toBe('CONFIRMED');
      const secondSeat = await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'MARK_NO_SHOW',
        ...item(lina.ticketIds[1]!),
      });
      expect(secondSeat.body.data.traveller.booking_status).toBe('NO_SHOW');
      const checkIn = await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'CHECK_IN',
        ...item(lina.ticketIds[0]!),
      });
      expect(checkIn.status).toBe(409);
      expect(checkIn.body.errorCode).toBe('TRAVELLER_MARKED_NO_SHOW');
      await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'RESTORE',
        ...item(lina.ticketIds[0]!),
      });
      const late = await dispatch(app, local.dispatcher, local.trip.tripId, {
        action: 'CHECK_IN',
        ...item(lina.ticketIds[0]!),
      });
      expect(late.status).toBe(200);
      expect(late.body.data.traveller.booking_status).toBe('CHECKED_IN');
      const [event] = await app.db.query<{ reason: string; before: object; after: object }>(
        `select reason, before, after from trip_operation_events where trip_id = $1 and action = 'MARK_NO_SHOW'
         order by id limit 1`,
        [local.trip.tripId],
      );
      expect(event).toMatchObject({
        reason: 'Did not answer the phone',
        before: { attendance: 'PENDING', ticketStatus: 'VALID' },
        after: { attendance: 'NO_SHOW', ticketStatus: 'VALID' },
      });
    });

    it('takes a blank no-show reason as none (SPEC: the reason is optional): NO_SHOW, logged without a reason', async () => {
      const world = await operationsWorld(app, { seats: 8 });
      const party = await bookSeats(app, world.trip, [
        world.trip.seatNumbers[0]!,
        world.trip.seatNumbers[1]!,
      ]);
      await setTripStatus(app.db, world.trip.tripId, 'BOARDING');
      for (const [ticketId, reason] of [
        [party.ticketIds[0]!, ''],
        [party.ticketIds[1]!, ' \n\t '],
      ] as const) {
        const response = await dispatch(app, world.dispatcher, world.trip.tripId, {
          action: 'MARK_NO_SHOW',
          reason,
          ...item(ticketId),
        });
        expect([response.status, response.body.errorCode], response.text).toEqual([200, undefined]);
        expect(response.body.data.traveller.attendance).toBe('NO_SHOW');
      }
      const events = await app.db.query<{ reason: string | null }>(
        `select reason from trip_operation_events where trip_id = $1 and action = 'MARK_NO_SHOW'`,
        [world.trip.tripId],
      );
      expect(events).toEqual([{ reason: null }, { reason: null }]);
    });

    it('shows the manifest, counters, allowed actions and the latest events', async () => {
      const view = await dispatchView(app, local.dispatcher, local.trip.tripId);
      expect(view.status, view.text).toBe(200);
      const data = view.body.data;
      expect(data.manifest).toHaveLength(3);
      const seat = data.manifest.find(
        (entry: { manifest_item_id: string }) => entry.manifest_item_id === lina.ticketIds[0],
      );
      expect(seat).toMatchObject({
        manifest_item_type: 'JOURNEY_TICKET',
        booking_id: lina.bookingId,
        seat_number: local.trip.seatNumbers[1],
        boarding: { stop_id: local.trip.from.id },
        payment: { status: 'UNPAID', pending_cash: false },
        attendance: { status: 'CHECKED_IN', by: { id: local.dispatcher.staffUserId }, source: 'DASHBOARD' },
      });
      expect(data.counters).toEqual({
        total: 3,
        checked_in: 1,
        no_show: 1,
        pending: 1,
        awaiting_confirmation: 0,
      });
      expect(data.readiness.blockers.map((blocker: { code: string }) => blocker.code)).toEqual([
        'CASH_TO_COLLECT',
      ]);
      expect(data.allowed_actions).toEqual(['MARK_DELAYED', 'CANCEL', 'CHECK_IN', 'MARK_NO_SHOW', 'RESTORE']);
      expect(data.events[0]).toMatchObject({ action: 'CHECK_IN', actor: { role: 'DISPATCHER' } });
      expect(data.driver).toMatchObject({ id: local.driver.staffUserId, active: true });
      expect(data.bus.layout).toMatchObject({ seat_count: 8 });
      expect(data.pickup.snapshot).toMatchObject({ id: local.trip.from.id });
      // The trip picks up at a public station of the route's origin city: a pickup point of every company.
      expect(data.pickup.confirmation).toEqual({ status: 'CONFIRMED', issues: [] });
    });

    it('refuses to depart while cash of a checked-in traveller is uncollected, then departs', async () => {
      const refused = await dispatch(app, local.dispatcher, local.trip.tripId, { action: 'DEPART' });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        errorCode: 'TRIP_NOT_READY',
        details: { blockers: [{ code: 'CASH_TO_COLLECT', count: 1 }] },
      });
      await collectCash(app.db, lina.bookingId, { source: 'driver' });
      const departed = await dispatch(app, local.dispatcher, local.trip.tripId, { action: 'DEPART' });
      expect(departed.status, departed.text).toBe(200);
      expect(departed.body.data.trip.actual_departure_at).not.toBeNull();
      const events = await app.db.query<{ booking_id: string }>(
        `select booking_id from outbox_events where trip_id = $1 and event = 'trip.started' order by booking_id`,
        [local.trip.tripId],
      );
      expect(events.map((event) => event.booking_id).sort()).toEqual([rami.bookingId, lina.bookingId].sort());
    });
    it('a ticket re-issued after a no-show stays a no-show: its check-in is refused until restored', async () => {
      const own = await operationsWorld(app, { seats: 8 });
      const traveller = await bookSeats(app, own.trip, [own.trip.seatNumbers[0]!]);
      await dispatch(app, own.dispatcher, own.trip.tripId, { action: 'START_BOARDING' });
      const noShow = await dispatch(app, own.dispatcher, own.trip.tripId, {
        action: 'MARK_NO_SHOW',
        reason: 'Did not show up',
        ...item(traveller.ticketIds[0]!),
      });
      expect(noShow.body.data.traveller.booking_status, noShow.text).toBe('NO_SHOW');

      const reissued = await app.request('/api/tickets', {
        method: 'POST',
        headers: traveller.caller.headers,
        json: { ticket_id: traveller.ticketIds[0], reason: 'LOST_DEVICE' },
      });
      expect(reissued.status, reissued.text).toBe(201);
      const newTicket = item(reissued.body.data.ticket.id);
      const [row] = await app.db.query<{ attendance: string }>(
        `select attendance from journey_tickets where id = $1`,
        [reissued.body.data.ticket.id],
      );
      expect(row).toEqual({ attendance: 'NO_SHOW' });
      const checkIn = await dispatch(app, own.dispatcher, own.trip.tripId, {
        action: 'CHECK_IN',
        ...newTicket,
      });
      expect([checkIn.status, checkIn.body.errorCode]).toEqual([409, 'TRAVELLER_MARKED_NO_SHOW']);

      await dispatch(app, own.dispatcher, own.trip.tripId, { action: 'RESTORE', ...newTicket });
      const late = await dispatch(app, own.dispatcher, own.trip.tripId, { action: 'CHECK_IN', ...newTicket });
      expect(late.status, late.text).toBe(200);
      expect(late.body.data.traveller.booking_status).toBe('CHECKED_IN');
    });
  });

  describe('readiness', () => {
    it('refuses to start boarding without a driver or an active layout', async () => {
      const { tripId, busId, driverId } = await tripOfItsOwn(app, world);
      await assignDriver(app.db, tripId, null);
      const noDriver = await dispatch(app, world.dispatcher, tripId, { action: 'START_BOARDING' });
      expect(noDriver.status).toBe(409);
      expect(noDriver.body).toMatchObject({
        errorCode: 'TRIP_NOT_READY',
        details: { status: 'SCHEDULED', blockers: [{ code: 'DRIVER_NOT_ASSIGNED' }] },
      });
      expect(noDriver.body.details.allowedActions).toEqual(['MARK_DELAYED', 'CANCEL']);
      const view = await dispatchView(app, world.dispatcher, tripId);
      expect(view.body.data.readiness).toMatchObject({
        ready: false,
        blockers: [{ code: 'DRIVER_NOT_ASSIGNED' }],
      });
      await assignDriver(app.db, tripId, driverId);
      await app.db.query(
        `update bus_layouts set status = 'archived' where bus_id = $1 and status = 'active'`,
        [busId],
      );
      try {
        const noLayout = await dispatch(app, world.dispatcher, tripId, { action: 'START_BOARDING' });
        expect(noLayout.body.details.blockers.map((blocker: { code: string }) => blocker.code)).toEqual([
          'LAYOUT_NOT_ACTIVE',
        ]);
      } finally {
        await app.db.query(
          `update bus_layouts set status = 'active' where id = (select id from bus_layouts where bus_id = $1 order by version desc limit 1)`,
          [busId],
        );
      }
    });

    it('refuses to board or depart a trip while its bus or its driver is still out on another trip', async () => {
      const local = await operationsWorld(app);
      await advance(app, local.dispatcher, local.trip.tripId, 'START_BOARDING', 'DEPART');
      const codesOf = (response: { body: { details: { blockers: { code: string }[] } } }) =>
        response.body.details.blockers.map((blocker) => blocker.code);
      // The next trip of the bus, with another driver; a trip of the driver on another bus.
      const sameBus = await anotherTrip(app, local);
      await assignDriver(app.db, sameBus, (await createDriver(app, local.companyId)).staffUserId);
      const sameDriver = await createTrip(app.db, {
        companyId: local.companyId,
        busId: (await createBus(app.db, local.companyId)).id,
        departAt: atDamascus(futureDay(5), '07:00'),
        calls: [
          { stop: local.trip.from, at: 0 },
          { stop: local.trip.to, at: 180 },
        ],
      });
      await assignDriver(app.db, sameDriver.id, local.driver.staffUserId);
      for (const [tripId, code] of [
        [sameBus, 'BUS_ON_ANOTHER_TRIP'],
        [sameDriver.id, 'DRIVER_ON_ANOTHER_TRIP'],
      ] as const) {
        const before = await operationsSnapshot(app.db, tripId);
        const boarding = await dispatch(app, local.dispatcher, tripId, { action: 'START_BOARDING' });
        expect([boarding.status, boarding.body.errorCode], boarding.text).toEqual([409, 'TRIP_NOT_READY']);
        expect(boarding.body.details).toMatchObject({
          status: 'SCHEDULED',
          blockers: [{ code, message: expect.any(String), blocks: ['START_BOARDING', 'DEPART'] }],
          allowedActions: ['MARK_DELAYED', 'CANCEL'],
        });
        await setTripStatus(app.db, tripId, 'BOARDING');
        const departing = await dispatch(app, local.dispatcher, tripId, { action: 'DEPART' });
        expect([departing.status, codesOf(departing)]).toEqual([409, [code]]);
        await setTripStatus(app.db, tripId, 'SCHEDULED');
        expect(await operationsSnapshot(app.db, tripId)).toEqual(before);
        const view = await dispatchView(app, local.dispatcher, tripId);
        expect(view.body.data.readiness).toMatchObject({ ready: false, blockers: [{ code }] });
      }
      // Back from the road, the bus and the driver are free again: one trip of the bus boards.
      await advance(app, local.dispatcher, local.trip.tripId, 'ARRIVE');
      const [bus, driver] = await Promise.all([
        dispatch(app, local.dispatcher, sameBus, { action: 'START_BOARDING' }),
        dispatch(app, local.dispatcher, sameDriver.id, { action: 'START_BOARDING' }),
      ]);
      expect([bus.status, driver.status]).toEqual([200, 200]);
      // Two trips of one bus asked to board at once: one boards, the other waits for the bus.
      const [first, second] = [await anotherTrip(app, local, 6), await anotherTrip(app, local, 7)];
      await assignDriver(app.db, first, (await createDriver(app, local.companyId)).staffUserId);
      await assignDriver(app.db, second, (await createDriver(app, local.companyId)).staffUserId);
      await advance(app, local.dispatcher, sameBus, 'DEPART', 'ARRIVE');
      const both = await Promise.all(
        [first, second].map((tripId) =>
          dispatch(app, local.dispatcher, tripId, { action: 'START_BOARDING' }),
        ),
      );
      expect(both.map((answer) => answer.status).sort()).toEqual([200, 409]);
    });

    it('departs past a journey request only another company can decide, not past its own', async () => {
      // A connection: A's trip confirms automatically, B's decides by hand. Every booking row of the
      // journey is PENDING_CONFIRMATION, but only B has a request to decide.
      const { first, second } = await connection(app.db);
      await setConfirmation(app.db, second.companyId, { mode: 'MANUAL_CONFIRM', window: 1440 });
      const traveller = await mobileTraveller(app);
      const { confirmBody, journeyId } = await holdForConfirm(app, traveller, [
        { trip: first },
        { trip: second },
      ]);
      const confirmed = await confirmJourney(app, traveller, journeyId, confirmBody);
      expect(confirmed.status, confirmed.text).toBe(200);
      expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
      const requests = await app.db.query<{ company_id: string }>(
        `select company_id from confirmation_requests where scope_id = $1`,
        [journeyId],
      );
      expect(requests.map((request) => request.company_id)).toEqual([second.companyId]);

      const boarding = async (trip: typeof first) => {
        const driver = await createDriver(app, trip.companyId);
        await assignDriver(app.db, trip.tripId, driver.staffUserId);
        const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
        await advance(app, dispatcher, trip.tripId, 'START_BOARDING');
        return dispatcher;
      };
      const dispatcherA = await boarding(first);
      const [bookingA] = await app.db.query<{ id: string; status: string }>(
        `select id, status from bookings where journey_id = $1 and trip_id = $2`,
        [journeyId, first.tripId],
      );
      const decideA = await app.request(`/dashboard/api/bookings/${bookingA!.id}/status`, {
        method: 'PATCH',
        headers: dispatcherA.writeHeaders,
        json: { decision: 'APPROVE' },
      });
      const departA = await dispatch(app, dispatcherA, first.tripId, { action: 'DEPART' });
      const facts =
        `A's booking row=${bookingA!.status}; A deciding=${decideA.status} ${decideA.body?.errorCode}; ` +
        `DEPART=${departA.status} ${departA.body?.errorCode} ${JSON.stringify(departA.body?.details?.blockers?.map((b: { code: string }) => b.code))}`;
      expect(departA.status, facts).toBe(200);

      const dispatcherB = await boarding(second);
      const departB = await dispatch(app, dispatcherB, second.tripId, { action: 'DEPART' });
      expect(departB.status, departB.text).toBe(409);
      expect(departB.body).toMatchObject({
        errorCode: 'TRIP_NOT_READY',
        details: { blockers: [{ code: 'REQUESTS_PENDING', count: 1 }] },
      });
    });

    it('keeps only the last 25 events in the view', async () => {
      const tripId = await anotherTrip(app, world);
      for (let minutes = 1; minutes <= 27; minutes++) {
        const response = await dispatch(app, world.dispatcher, tripId, {
          action: 'MARK_DELAYED',
          reason: `Update ${minutes}`,
          delay_minutes: minutes,
        });
        expect(response.status).toBe(200);
      }
      const view = await dispatchView(app, world.dispatcher, tripId);
      expect(view.body.data.events).toHaveLength(25);
      expect(view.body.data.events[0]).toMatchObject({ reason: 'Update 27', after: { delayMinutes: 27 } });
      expect(view.body.data.trip.delay_minutes).toBe(27);
    });
  });
});
