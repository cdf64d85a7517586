import { describe, expect, it } from 'vitest';
import { futureDay } from '../../support/factories.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { bookJourney, mobileTraveller, setConfirmation, tripOf } from '../../support/journeys.js';
import {
  bookSeats,
  dispatch,
  operationsSnapshot,
  operationsWorld,
  setTripStatus,
} from '../../support/operations.js';
import { dashboard, planningSnapshot, planningWorld } from '../../support/planning.js';
import { PROSE, UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';

/**
 * Reasons and notes a company writes on the dashboard for other people to read: a trip action's
 * reason (the operations log, and finance's refund due "TRIP_CANCELLED: <reason>"), a booking
 * decision's reason, a trip schedule's notes. They are prose: line breaks and tabs are kept, but no
 * other control character and no bidirectional override, which would make one text read as another.
 * A refusal is 400 VALIDATION_FAILED (the route's code for a bad field), and changes nothing.
 */

/**
 * Sends each text through each of `writes`, expects each refused 400 VALIDATION_FAILED (naming
 * `field` when `field` is given), and `rows` (everything the writes could change) as they were.
 */
async function expectEachRefused(
  writes: Record<string, (text: string) => Promise<TestResponse>>,
  field: string | undefined,
  rows: () => Promise<unknown>,
) {
  const before = await rows();
  for (const [how, write] of Object.entries(writes)) {
    for (const [what, text] of Object.entries(UNPRINTABLE_TEXTS)) {
      const refused = await write(text);
      expect([refused.status, refused.body.errorCode], `${how}: ${what}`).toEqual([400, 'VALIDATION_FAILED']);
      if (field) {
        expect(refused.body.details.issues, `${how}: ${what}`).toContainEqual(
          expect.objectContaining({ path: `body.${field}` }),
        );
      }
    }
  }
  expect(await rows()).toEqual(before);
}

describe('the dashboard: reasons and notes other people read', () => {
  const app = useTestApp();

  it("a trip's CANCEL and MARK_DELAYED reason, through the operations room, the legacy PATCH and the bulk command", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const tripId = world.trip.tripId;
    await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const headers = world.dispatcher.writeHeaders;
    const legacy = (json: object) =>
      app.request(`/dashboard/api/trips/${tripId}`, { method: 'PATCH', headers, json });
    const bulk = (json: object) =>
      app.request('/dashboard/api/trips/bulk', {
        method: 'POST',
        headers,
        json: { trip_ids: [tripId], ...json },
      });

    await expectEachRefused(
      {
        CANCEL: (reason) => dispatch(app, world.dispatcher, tripId, { action: 'CANCEL', reason }),
        MARK_DELAYED: (reason) =>
          dispatch(app, world.dispatcher, tripId, { action: 'MARK_DELAYED', reason, delay_minutes: 20 }),
        'PATCH CANCELLED': (reason) => legacy({ status: 'CANCELLED', reason }),
        'PATCH DELAYED': (reason) => legacy({ status: 'DELAYED', reason, delay_minutes: 20 }),
        'bulk cancel': (reason) => bulk({ action: 'cancel', reason }),
        'bulk mark_delayed': (reason) => bulk({ action: 'mark_delayed', reason, delay_minutes: 20 }),
      },
      'reason',
      () => operationsSnapshot(app.db, tripId),
    );
    // A reason left out or blank keeps its own code.
    for (const body of [{ action: 'CANCEL' }, { action: 'CANCEL', reason: ' \n\t ' }]) {
      const refused = await dispatch(app, world.dispatcher, tripId, body);
      expect([refused.status, refused.body.errorCode]).toEqual([400, 'REASON_REQUIRED']);
    }

    // Prose keeps its line breaks and tabs, as written, in the log and in finance's refund due.
    for (const body of [
      { action: 'MARK_DELAYED', reason: PROSE, delay_minutes: 20 },
      { action: 'CANCEL', reason: PROSE },
    ]) {
      const done = await dispatch(app, world.dispatcher, tripId, body);
      expect(done.status, done.text).toBe(200);
    }
    const events = await app.db.query(
      `select action, reason from trip_operation_events where trip_id = $1 and reason is not null order by id`,
      [tripId],
    );
    expect(events).toEqual([
      { action: 'MARK_DELAYED', reason: PROSE },
      { action: 'CANCEL', reason: PROSE },
    ]);
  });

  it("a traveller's MARK_NO_SHOW reason", async () => {
    const world = await operationsWorld(app, { seats: 8 });
    const tripId = world.trip.tripId;
    const booked = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    await setTripStatus(app.db, tripId, 'BOARDING');
    const noShow = (reason: string) =>
      dispatch(app, world.dispatcher, tripId, {
        action: 'MARK_NO_SHOW',
        manifest_item_id: booked.ticketIds[0],
        manifest_item_type: 'JOURNEY_TICKET',
        reason,
      });
    await expectEachRefused({ MARK_NO_SHOW: noShow }, 'reason', () => operationsSnapshot(app.db, tripId));

    const marked = await noShow(PROSE);
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.data.traveller.attendance).toBe('NO_SHOW');
    const events = await app.db.query(
      `select reason from trip_operation_events where trip_id = $1 and action = 'MARK_NO_SHOW'`,
      [tripId],
    );
    expect(events).toEqual([{ reason: PROSE }]);
  });

  it("a booking decision's reason, in the decision body and the legacy status body", async () => {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM' });
    const { journeyId } = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
    const [booking] = await app.db.query<{ id: string }>(`select id from bookings where journey_id = $1`, [
      journeyId,
    ]);
    const staff = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    const decide = (json: object) =>
      app.request(`/dashboard/api/bookings/${booking!.id}/status`, {
        method: 'PATCH',
        headers: staff.writeHeaders,
        json,
      });
    const rows = async () => ({
      requests: await app.db.query(`select * from confirmation_requests where scope_id = $1`, [journeyId]),
      journey: await app.db.query(`select * from journeys where id = $1`, [journeyId]),
      bookings: await app.db.query(`select * from bookings where journey_id = $1 order by id`, [journeyId]),
      tickets: await app.db.query(`select * from journey_tickets where journey_id = $1 order by id`, [
        journeyId,
      ]),
    });
    // The body is one of two shapes, so a refusal names the body rather than the reason.
    await expectEachRefused(
      {
        REJECT: (reason) => decide({ decision: 'REJECT', reason }),
        'legacy CANCELLED': (reason) => decide({ status: 'CANCELLED', reason }),
        APPROVE: (reason) => decide({ decision: 'APPROVE', reason }),
      },
      undefined,
      rows,
    );
    expect((await rows()).requests).toMatchObject([{ status: 'PENDING' }]);

    const rejected = await decide({ decision: 'REJECT', reason: PROSE });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body.data).toMatchObject({ outcome: 'CANCELLED', failure_reason: 'COMPANY_REJECTED' });
    expect((await rows()).requests).toMatchObject([{ reason: PROSE }]);
  });

  it("a trip schedule's notes, previewed or committed", async () => {
    const world = await planningWorld(app);
    const start = futureDay(3);
    const schedule = (notes: string, commit: boolean) =>
      dashboard(app, world.sessions.OWNER, 'POST', '/trip-schedules', {
        route_id: world.routeId,
        pickup_stop_id: world.originStop.id,
        bus_id: world.bus.id,
        driver_id: world.driverId,
        start_date: start,
        end_date: start,
        departure_time: '08:00',
        days_of_week: [0, 1, 2, 3, 4, 5, 6],
        price_base: 25_000,
        notes,
        commit,
      });
    await expectEachRefused(
      { preview: (notes) => schedule(notes, false), commit: (notes) => schedule(notes, true) },
      'notes',
      () => planningSnapshot(app.db, world.companyId),
    );

    const committed = await schedule(PROSE, true);
    expect(committed.status, committed.text).toBe(201);
    expect(committed.body.data.notes).toBe(PROSE);
    const read = await dashboard(
      app,
      world.sessions.DISPATCHER,
      'GET',
      `/trip-schedules/${committed.body.data.id}`,
    );
    expect(read.body.data.notes).toBe(PROSE);
  });
});
