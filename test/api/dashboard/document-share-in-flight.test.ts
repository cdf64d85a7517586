import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import {
  createShare,
  NO_SHARE_IP_LIMIT,
  shareableBooking,
  shareFixture,
} from '../../support/document-shares.js';
import type { TestApp } from '../../support/harness.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { createBooking } from '../../support/bookings.js';
import { atDamascus, createBus, futureDay } from '../../support/factories.js';
import { mobileTraveller } from '../../support/journeys.js';
import { createDriver } from '../../support/operations.js';
import { dashboard, planningWorld } from '../../support/planning.js';
import { signedOutWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';

/**
 * POST /dashboard/api/document-shares judges the company and the issuing member as they stand when
 * the grant is written, after the document was rendered (README: a suspended company's staff and
 * drivers neither issue nor revoke document shares; deactivation and sign-out end a session at
 * once): a suspension, deactivation or sign-out committed while the share waited is refused as the
 * next request would be, and no grant is written. A traveller's share of their own booking is no
 * write of the company and is issued all the same. A driver reaches a booking only while they drive
 * its trip (README "Trips": a re-plan with another driver ends the previous one's access to the
 * trip), so their assignment is read again too.
 */

const shareBody = (bookingId: string) => ({
  bookingId,
  documentKind: 'BOOKING_CONFIRMATION',
  presentation: 'VIEW',
});

const dashboardShare = (app: TestApp, headers: Record<string, string>, bookingId: string) =>
  app.request('/dashboard/api/document-shares', { method: 'POST', headers, json: shareBody(bookingId) });

const grantsOf = async (app: TestApp, bookingId: string) =>
  app.db.query<{ issuer_kind: string; status: string }>(
    `select issuer_kind, status from document_share_grants where booking_id = $1`,
    [bookingId],
  );

describe('POST /dashboard/api/document-shares: the company and the issuer are checked when the grant is written', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);

  it('an OWNER whose company is suspended while the share waits for the company row is 403 COMPANY_SUSPENDED; no grant', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const owner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');

    const refused = await suspendedWhileWriting(app.db, fixture.companyId, () =>
      dashboardShare(app, owner.writeHeaders, bookingId),
    );

    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    expect(await grantsOf(app, bookingId)).toEqual([]);
  });

  it('an OWNER deactivated by PATCH /team while the share waits for its booking is 401 INVALID_CREDENTIAL; no grant', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const owner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');
    const otherOwner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');

    // The share has passed the session guard and rendered; its grant waits for the booking row.
    const held = await holdLock(app.db, `select id from bookings where id = '${bookingId}' for update`);
    const sharing = dashboardShare(app, owner.writeHeaders, bookingId);
    await waitersOf(app.db, held.pid);
    const deactivated = await app.request(`/dashboard/api/team/${owner.membershipId}`, {
      method: 'PATCH',
      headers: otherOwner.writeHeaders,
      json: { active: false },
    });
    expect(deactivated.status, deactivated.text).toBe(200);
    await held.release();

    const refused = await sharing;
    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([401, 'INVALID_CREDENTIAL']);
    expect(await grantsOf(app, bookingId)).toEqual([]);
  });

  it('an OWNER signed out while the share waits for the company row is 401 INVALID_CREDENTIAL; no grant', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);
    const owner = await staffSession(app.db, app.config, fixture.companyId, 'OWNER');

    const refused = await signedOutWhileWriting(app.db, fixture.companyId, owner.sessionId, () =>
      dashboardShare(app, owner.writeHeaders, bookingId),
    );

    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([401, 'INVALID_CREDENTIAL']);
    expect(await grantsOf(app, bookingId)).toEqual([]);
  });

  it('a traveller sharing their own booking while its company is suspended still gets the share', async () => {
    const fixture = await shareFixture(app);
    const bookingId = await shareableBooking(app, fixture);

    const { response } = await suspendedWhileWriting(app.db, fixture.companyId, () =>
      createShare(app, { Authorization: `Bearer ${fixture.owner.token}` }, shareBody(bookingId)),
    );

    expect(response.status, response.text).toBe(201);
    expect(await grantsOf(app, bookingId)).toEqual([{ issuer_kind: 'TRAVELLER', status: 'CREATED' }]);
  });
});

/**
 * A trip planned through the dashboard with a driver, a traveller's booking on it, another driver of
 * the company, and the dispatcher's re-plan of the trip with a given driver (or none).
 */
async function drivenBooking(app: TestApp) {
  const world = await planningWorld(app);
  const driver = await createDriver(app, world.companyId);
  const otherDriver = await createDriver(app, world.companyId);
  const bus = await createBus(app.db, world.companyId);
  const plan = (driverId: string | null) => ({
    route_id: world.routeId,
    bus_id: bus.id,
    driver_id: driverId,
    pickup_stop_id: world.originStop.id,
    departure_at: atDamascus(futureDay(30), '08:00').toISOString(),
    price_base: 30_000,
  });
  const planned = await dashboard(app, world.sessions.OWNER, 'POST', '/trips', plan(driver.staffUserId));
  expect(planned.status, planned.text).toBe(201);
  const tripId = planned.body.data.id as string;
  const booking = await createBooking(app, await mobileTraveller(app), { tripId, seatNumbers: ['1'] });
  const replan = (driverId: string | null) =>
    dashboard(app, world.sessions.DISPATCHER, 'POST', '/trips', { ...plan(driverId), trip_id: tripId });
  return { driver, otherDriver, tripId, bookingId: booking.id, replan };
}

/** The driver app's share (POST /api/document-shares with the company session as a bearer token). */
const driverShare = (app: TestApp, headers: Record<string, string>, bookingId: string) =>
  app.request('/api/document-shares', { method: 'POST', headers, json: shareBody(bookingId) });

describe('POST /api/document-shares: a driver’s assignment to the trip is checked when the grant is written', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);

  it.each([{ to: 'another driver' }, { to: 'no driver' }])(
    'a driver whose trip is re-planned with $to while the share waits for its booking is 404 BOOKING_NOT_FOUND; no grant',
    async ({ to }) => {
      const { driver, otherDriver, tripId, bookingId, replan } = await drivenBooking(app);
      const nextDriverId = to === 'another driver' ? otherDriver.staffUserId : null;

      // The share has passed its checks and rendered; its grant waits for the booking row.
      const held = await holdLock(app.db, `select id from bookings where id = '${bookingId}' for update`);
      const sharing = driverShare(app, driver.writeHeaders, bookingId);
      await waitersOf(app.db, held.pid);
      const replanned = await replan(nextDriverId);
      expect(replanned.status, replanned.text).toBe(200);
      await held.release();

      const refused = await sharing;
      expect([refused.status, refused.body?.errorCode], refused.text).toEqual([404, 'BOOKING_NOT_FOUND']);
      expect(await grantsOf(app, bookingId)).toEqual([]);
      const trip = await app.db.query(`select driver_id from trips where id = $1`, [tripId]);
      expect(trip).toEqual([{ driver_id: nextDriverId }]);
      if (nextDriverId) {
        // The trip's driver now shares the same booking.
        const shared = await driverShare(app, otherDriver.writeHeaders, bookingId);
        expect(shared.status, shared.text).toBe(201);
        expect(await grantsOf(app, bookingId)).toEqual([{ issuer_kind: 'DRIVER', status: 'CREATED' }]);
      }
    },
  );
});
