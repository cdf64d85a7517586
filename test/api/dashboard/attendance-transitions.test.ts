import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { legacyPassengerBooking } from '../../support/legacy-bookings.js';
import {
  bookSeats,
  dispatch,
  operationsSnapshot,
  operationsWorld,
  setTripStatus,
  travellerAction,
} from '../../support/operations.js';

/**
 * SPEC "Trip dispatch actions": CHECK_IN, MARK_NO_SHOW and RESTORE name a manifest item,
 * "`JOURNEY_TICKET` for every modern traveller, or `BOOKING` only for legacy bookings"; README "Trip
 * operations": "PENDING → CHECK_IN → CHECKED_IN, PENDING → MARK_NO_SHOW → NO_SHOW, and RESTORE back to
 * PENDING" (a legacy booking's attendance is its status), a second CHECK_IN 409 ALREADY_CHECKED_IN, a
 * no-show's check-in 409 TRAVELLER_MARKED_NO_SHOW, a cancelled traveller 409 TICKET_NOT_BOARDABLE for all
 * three, anything else 409 ATTENDANCE_CONFLICT, nothing changed. Every cell for a legacy BOOKING; for a
 * JOURNEY_TICKET the two cells dispatch.test.ts does not name (a second MARK_NO_SHOW of a traveller
 * checked in or already a no-show).
 */
type Attendance = 'PENDING' | 'CHECKED_IN' | 'NO_SHOW';
type Action = 'CHECK_IN' | 'MARK_NO_SHOW' | 'RESTORE';
const ATTENDANCES = ['PENDING', 'CHECKED_IN', 'NO_SHOW'] as const;
const ACTIONS = ['CHECK_IN', 'MARK_NO_SHOW', 'RESTORE'] as const;

/** The attendance an action leads to, or the errorCode of its refusal. */
const TABLE: Record<Attendance, Record<Action, string>> = {
  PENDING: { CHECK_IN: 'CHECKED_IN', MARK_NO_SHOW: 'NO_SHOW', RESTORE: 'ATTENDANCE_CONFLICT' },
  CHECKED_IN: { CHECK_IN: 'ALREADY_CHECKED_IN', MARK_NO_SHOW: 'ATTENDANCE_CONFLICT', RESTORE: 'PENDING' },
  NO_SHOW: { CHECK_IN: 'TRAVELLER_MARKED_NO_SHOW', MARK_NO_SHOW: 'ATTENDANCE_CONFLICT', RESTORE: 'PENDING' },
};
/** A legacy booking's status for each attendance. */
const BOOKING_STATUS = { PENDING: 'CONFIRMED', CHECKED_IN: 'CHECKED_IN', NO_SHOW: 'NO_SHOW' } as const;
const isAttendance = (value: string): value is Attendance =>
  (ATTENDANCES as readonly string[]).includes(value);

/** A boarding trip with one imported (legacy) booking in `status`: no journey, no tickets. */
async function legacyTraveller(app: TestApp, status: 'CONFIRMED' | 'CHECKED_IN' | 'NO_SHOW' | 'CANCELLED') {
  const world = await operationsWorld(app, { seats: 4 });
  const traveller = await app.signIn();
  const bookingId = await legacyPassengerBooking(app.db, {
    trip: { id: world.trip.tripId, companyId: world.companyId },
    passengerId: traveller.passengerId,
    status,
  });
  await setTripStatus(app.db, world.trip.tripId, 'BOARDING');
  const act = (action: Action) =>
    dispatch(app, world.dispatcher, world.trip.tripId, {
      action,
      manifest_item_id: bookingId,
      manifest_item_type: 'BOOKING',
    });
  return { world, bookingId, act };
}

describe('traveller attendance transitions', () => {
  const app = useTestApp();

  describe('a legacy BOOKING: every cell of the table', () => {
    for (const from of ATTENDANCES) {
      for (const action of ACTIONS) {
        const expected = TABLE[from][action];
        it(`${from} × ${action} → ${isAttendance(expected) ? expected : `409 ${expected}, nothing changed`}`, async () => {
          const { world, bookingId, act } = await legacyTraveller(app, BOOKING_STATUS[from]);
          const before = await operationsSnapshot(app.db, world.trip.tripId);
          const response = await act(action);
          if (!isAttendance(expected)) {
            expect([response.status, response.body.errorCode], response.text).toEqual([409, expected]);
            expect(await operationsSnapshot(app.db, world.trip.tripId)).toEqual(before);
            return;
          }
          expect(response.status, response.text).toBe(200);
          expect(response.body.data.traveller).toMatchObject({
            attendance: expected,
            previous_attendance: from,
            booking_status: BOOKING_STATUS[expected],
          });
          const [booking] = await app.db.query(`select status from bookings where id = $1`, [bookingId]);
          expect(booking).toEqual({ status: BOOKING_STATUS[expected] });
          const events = await app.db.query(
            `select action, manifest_item_type, before, after from trip_operation_events where manifest_item_id = $1`,
            [bookingId],
          );
          expect(events).toEqual([
            {
              action,
              manifest_item_type: 'BOOKING',
              before: expect.objectContaining({ bookingStatus: BOOKING_STATUS[from] }),
              after: expect.objectContaining({ bookingStatus: BOOKING_STATUS[expected] }),
            },
          ]);
        });
      }
    }

    it('CANCELLED: CHECK_IN, MARK_NO_SHOW and RESTORE are each 409 TICKET_NOT_BOARDABLE, nothing changed', async () => {
      const { world, act } = await legacyTraveller(app, 'CANCELLED');
      const before = await operationsSnapshot(app.db, world.trip.tripId);
      for (const action of ACTIONS) {
        const response = await act(action);
        expect([response.status, response.body.errorCode], `${action}: ${response.text}`).toEqual([
          409,
          'TICKET_NOT_BOARDABLE',
        ]);
      }
      expect(await operationsSnapshot(app.db, world.trip.tripId)).toEqual(before);
    });
  });

  describe('a JOURNEY_TICKET: a second MARK_NO_SHOW', () => {
    for (const from of ['CHECKED_IN', 'NO_SHOW'] as const) {
      it(`${from} × MARK_NO_SHOW → 409 ATTENDANCE_CONFLICT (RESTORE first), nothing changed`, async () => {
        const world = await operationsWorld(app, { seats: 4 });
        const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
        await setTripStatus(app.db, world.trip.tripId, 'BOARDING');
        const ticketId = booked.ticketIds[0]!;
        const first = await travellerAction(
          app,
          world.dispatcher,
          world.trip.tripId,
          from === 'CHECKED_IN' ? 'CHECK_IN' : 'MARK_NO_SHOW',
          ticketId,
        );
        expect(first.status, first.text).toBe(200);
        const before = await operationsSnapshot(app.db, world.trip.tripId);
        const again = await travellerAction(
          app,
          world.dispatcher,
          world.trip.tripId,
          'MARK_NO_SHOW',
          ticketId,
        );
        expect([again.status, again.body.errorCode], again.text).toEqual([409, 'ATTENDANCE_CONFLICT']);
        expect(again.body.details).toEqual({ attendance: from, allowedActions: ['RESTORE'] });
        expect(await operationsSnapshot(app.db, world.trip.tripId)).toEqual(before);
      });
    }
  });
});
