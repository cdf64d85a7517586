import { describe, expect, it, onTestFinished } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  bookJourney,
  bookingOfCompany,
  eventually,
  journeyFacts,
  mobileTraveller,
  setConfirmation,
  tripOf,
  waitUntil,
} from '../../support/journeys.js';
import { bookSeats, dispatch, operationsSnapshot, operationsWorld, scan } from '../../support/operations.js';
import { usePrivateDatabase } from '../../support/private-database.js';
import { usePrivateWorker } from '../../support/private-worker.js';
import { createStaffMember, staffLogin, type StaffBrowser } from '../../support/staff.js';
import { expectError, signedInAdmin, type AdminBrowser } from '../admin/helpers.js';

/**
 * What a maintenance window leaves open to a company deciding a journey request, and what a
 * refused write is told. Windows are global to the platform, so this file runs against a database
 * of its own, with a worker and task queue of its own for the confirmation workflows (as
 * test/contract/schemathesis.test.ts does); the API polls the change counters every second.
 */
const TASK_QUEUE = `maintenance-decisions-${process.pid}`;
const database = usePrivateDatabase('maintenance_decisions');
const app = useTestApp({
  DATABASE_URL: database.url,
  TEMPORAL_TASK_QUEUE: TASK_QUEUE,
  PLATFORM_STATE_POLL_SECONDS: 1,
});

usePrivateWorker(database.url, TASK_QUEUE, 'maintenance-worker');

/** Schedules a window `startsIn`..`endsIn` ms from now, cancelled when the test ends. */
async function schedule(browser: AdminBrowser, message: string, startsIn: number, endsIn: number) {
  const answer = await browser.send('POST', '/maintenance', {
    message,
    startsAt: new Date(Date.now() + startsIn).toISOString(),
    endsAt: new Date(Date.now() + endsIn).toISOString(),
  });
  expect(answer.status, answer.text).toBe(201);
  const id = answer.body.data.id as string;
  onTestFinished(async () => {
    await app.db.query(
      `update maintenance_windows set cancelled_at = coalesce(cancelled_at, now()) where id = $1`,
      [id],
    );
    await app.db.query(`update platform_state_versions set version = version + 1 where name = 'maintenance'`);
  });
  return answer.body.data as { id: string; endsAt: string };
}

/** A journey request pending on one company, and a dispatcher of that company signed in. */
async function pendingRequest(on: TestApp) {
  const trip = await tripOf(on.db);
  await setConfirmation(on.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 30 });
  const { confirmed, journeyId } = await bookJourney(on, await mobileTraveller(on), [{ trip }]);
  expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
  const staff = await dispatcherOf(on, trip.companyId);
  const bookingId = await bookingOfCompany(on.db, journeyId, trip.companyId);
  return { companyId: trip.companyId, journeyId, bookingId, staff };
}

/** A dispatcher of the company, signed in to the dashboard (sign-in stays open during maintenance). */
async function dispatcherOf(on: TestApp, companyId: string): Promise<StaffBrowser> {
  const member = await createStaffMember(on.db, companyId, 'DISPATCHER');
  const staff = await staffLogin(on, { email: member.email, password: member.password });
  expect(staff.response.status).toBe(200);
  return staff;
}

const settingsOf = async (companyId: string) =>
  app.db.query(`select mode, decision_window_minutes from company_booking_settings where company_id = $1`, [
    companyId,
  ]);

/** A dashboard write maintenance refuses: the company's booking confirmation settings. */
const changeSettings = (staff: StaffBrowser) =>
  app.request('/dashboard/api/settings/booking-confirmation', {
    method: 'PUT',
    headers: staff.writeHeaders,
    json: { mode: 'AUTO_CONFIRM', decisionWindowMinutes: 15, channels: ['CUSTOMER_WEB'] },
  });

describe('maintenance and company decisions', () => {
  it("a company approves a pending journey request during a window (its deadline keeps running); the dashboard's other writes stay refused", async () => {
    const { browser } = await signedInAdmin(app);
    const { companyId, journeyId, bookingId, staff } = await pendingRequest(app);
    const settingsBefore = await settingsOf(companyId);
    await schedule(browser, 'Database upgrade', -1_000, 3_600_000);

    const refused = await eventually(
      () => changeSettings(staff),
      (response) => response.status === 503,
      15_000,
    );
    expectError(refused, 503, 'MAINTENANCE');
    expect(await settingsOf(companyId)).toEqual(settingsBefore);
    // Only PATCH of the decision route is open: another method on the same path is refused.
    const otherMethod = await app.request(`/dashboard/api/bookings/${bookingId}/status`, {
      method: 'POST',
      headers: staff.writeHeaders,
      json: { decision: 'APPROVE' },
    });
    expectError(otherMethod, 503, 'MAINTENANCE');

    const approved = await app.request(`/dashboard/api/bookings/${bookingId}/status`, {
      method: 'PATCH',
      headers: staff.writeHeaders,
      json: { decision: 'APPROVE' },
    });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data).toMatchObject({ decision: 'APPROVE', outcome: 'CONFIRMED' });
    const facts = await journeyFacts(app.db, journeyId);
    expect(facts.journey).toEqual({ status: 'CONFIRMED', failure_reason: null });
    expect(facts.tickets.map((ticket) => [ticket.status, ticket.boarding_authorized])).toEqual([
      ['VALID', true],
    ]);
    expectError(await changeSettings(staff), 503, 'MAINTENANCE');
  });

  it('a write refused during back-to-back windows is told when writes reopen: the end of the second window', async () => {
    const { browser } = await signedInAdmin(app);
    const staff = await dispatcherOf(app, (await createCompany(app.db)).id);
    // Phase 2 first: once the API refuses with phase 1's message, it knows both windows.
    const second = await schedule(browser, 'Upgrade, phase 2', 600_000, 1_800_000);
    const first = await schedule(browser, 'Upgrade, phase 1', -1_000, 600_000);

    // Refused under these windows (not under one an earlier test cancelled, until the cache sees it).
    const refused = await eventually(
      () => changeSettings(staff),
      (response) => response.body?.details?.message === 'Upgrade, phase 1',
      15_000,
    );
    expectError(refused, 503, 'MAINTENANCE');
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThan(1_700);
    expect(retryAfter).toBeLessThanOrEqual(1_800);
    expect(refused.body.details).toEqual({
      message: 'Upgrade, phase 1',
      endsAt: second.endsAt,
      retryAfterSeconds: retryAfter,
    });
    const listed = await browser.get('/maintenance');
    expect(listed.body.data.active).toMatchObject({ id: first.id, endsAt: first.endsAt });
  });
});

describe('maintenance and the trips running through it', () => {
  it("the operations room runs the day's trips during a window, so the driver app boards travellers; bulk trip changes stay refused", async () => {
    const { browser } = await signedInAdmin(app);
    const world = await operationsWorld(app, { seats: 4 });
    const staff = await dispatcherOf(app, world.companyId);
    // Writes open again in this process (a window of an earlier test is cancelled), then a booking.
    await waitUntil(
      () => changeSettings(staff),
      (response) => response.status !== 503,
      15_000,
      'writes to be open again (a settings change not answered 503)',
    );
    const rami = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    const settingsBefore = await settingsOf(world.companyId);
    await schedule(browser, 'Database upgrade', -1_000, 3_600_000);

    const refused = await eventually(
      () => changeSettings(staff),
      (response) => response.status === 503,
      15_000,
    );
    expectError(refused, 503, 'MAINTENANCE');
    expect(await settingsOf(world.companyId)).toEqual(settingsBefore);
    // Only the operations room's one action route is open: a bulk change of trips is refused and changes nothing.
    const before = await operationsSnapshot(app.db, world.trip.tripId);
    const bulk = await app.request('/dashboard/api/trips/bulk', {
      method: 'POST',
      headers: world.dispatcher.writeHeaders,
      json: { trip_ids: [world.trip.tripId], action: 'start_boarding' },
    });
    expectError(bulk, 503, 'MAINTENANCE');
    expect(await operationsSnapshot(app.db, world.trip.tripId)).toEqual(before);

    const started = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'START_BOARDING' });
    expect(started.status, started.text).toBe(200);
    const scanned = await scan(app, world.driver.token, world.trip.tripId, rami.credentials[0]!);
    expect(scanned.status, scanned.text).toBe(200);
    expect(scanned.body.data).toMatchObject({ outcome: 'CHECKED_IN' });
    // The driver takes the traveller's cash at the door, which a trip must have before it departs.
    const collected = await app.request(
      `/driver/api/trips/${world.trip.tripId}/bookings/${rami.bookingId}/cash-collection`,
      { method: 'POST', token: world.driver.token },
    );
    expect(collected.status, collected.text).toBe(201);
    const departed = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'DEPART' });
    expect(departed.status, departed.text).toBe(200);
    const [trip] = await app.db.query<{ status: string }>(`select status from trips where id = $1`, [
      world.trip.tripId,
    ]);
    expect(trip!.status).toBe('DEPARTED');
  });
});
