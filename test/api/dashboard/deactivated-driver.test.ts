import { beforeAll, describe, expect, it } from 'vitest';
import { atDamascus, futureDay } from '../../support/factories.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import {
  createDriver,
  dispatch,
  dispatchView,
  operationsSnapshot,
  setTripStatus,
} from '../../support/operations.js';
import { dashboard, planningSnapshot, planningWorld, type PlanningWorld } from '../../support/planning.js';

/**
 * A company deactivates a driver who still has trips (SPEC dashboard: dispatch "readiness
 * blockers"). The trips keep their driver: nothing is unassigned behind the dispatcher's back. The
 * deactivation answers which trips still to run name the driver; each of them shows the readiness
 * blocker DRIVER_INACTIVE and refuses START_BOARDING and DEPART (409 TRIP_NOT_READY, nothing
 * changed) until it is re-planned with another driver; the driver's sessions end at once.
 */
describe('a deactivated driver and the trips still assigned to them', () => {
  const app = useTestApp();
  let world: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
  });

  const owner = () => world.sessions.OWNER;
  const dispatcher = () => world.sessions.DISPATCHER;

  const tripBody = (driverId: string, days: number, change: Record<string, unknown> = {}) => ({
    route_id: world.routeId,
    bus_id: world.bus.id,
    driver_id: driverId,
    pickup_stop_id: world.originStop.id,
    departure_at: atDamascus(futureDay(days), '08:00').toISOString(),
    price_base: 30_000,
    price_vip: 45_000,
    ...change,
  });

  /** A trip planned through POST /trips with the driver; its id and departure. */
  const planTrip = async (driverId: string, days: number) => {
    const response = await dashboard(app, owner(), 'POST', '/trips', tripBody(driverId, days));
    expect(response.status, response.text).toBe(201);
    return { id: response.body.data.id as string, departureAt: response.body.data.departure_at as string };
  };

  const setActive = (membershipId: string, active: boolean) =>
    dashboard(app, owner(), 'PATCH', `/team/${membershipId}`, { active });

  const codesOf = (response: TestResponse) =>
    (response.body.data?.readiness ?? response.body.details).blockers.map(
      (blocker: { code: string }) => blocker.code,
    );

  const driverOf = async (tripId: string) =>
    (
      await app.db.query<{ driver_id: string | null }>('select driver_id from trips where id = $1', [tripId])
    )[0]!.driver_id;

  it('deactivating a DRIVER answers the trips still to run that name them, unassigns none and ends their sessions', async () => {
    const driver = await createDriver(app, world.companyId);
    const [first, second, done] = [
      await planTrip(driver.staffUserId, 20),
      await planTrip(driver.staffUserId, 21),
      await planTrip(driver.staffUserId, 22),
    ];
    await setTripStatus(app.db, second.id, 'DELAYED');
    await setTripStatus(app.db, done.id, 'COMPLETED');
    const listed = await app.request('/driver/api/trips', { token: driver.token });
    expect(listed.status, listed.text).toBe(200);

    const deactivated = await setActive(driver.membershipId, false);
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body.data).toMatchObject({
      membershipId: driver.membershipId,
      role: 'DRIVER',
      status: 'INACTIVE',
      assignedTrips: {
        total: 2,
        trips: [
          { id: first.id, status: 'SCHEDULED', departureAt: first.departureAt },
          { id: second.id, status: 'DELAYED', departureAt: second.departureAt },
        ],
      },
    });
    for (const trip of [first, second, done]) expect(await driverOf(trip.id)).toBe(driver.staffUserId);

    // The driver app's session ended with the membership: no trip list, no position report.
    expect((await app.request('/driver/api/trips', { token: driver.token })).status).toBe(401);
    const positions = await app.request(`/driver/api/trips/${first.id}/positions`, {
      method: 'POST',
      token: driver.token,
      json: { positions: [{ lat: 33.5, lon: 36.3, time: new Date().toISOString() }] },
    });
    expect([positions.status, positions.body.errorCode]).toEqual([401, 'INVALID_CREDENTIAL']);

    // GET /team lists the member as it did; the reactivation answers the same trips, none flagged any more.
    const team = await dashboard(app, owner(), 'GET', '/team?limit=100');
    const shown = team.body.data.find(
      (member: { membershipId: string }) => member.membershipId === driver.membershipId,
    );
    expect(shown).toMatchObject({ status: 'INACTIVE' });
    expect(shown).not.toHaveProperty('assignedTrips');
    const reactivated = await setActive(driver.membershipId, true);
    expect(reactivated.body.data).toMatchObject({ status: 'ACTIVE', assignedTrips: { total: 2 } });
    expect(codesOf(await dispatchView(app, dispatcher(), first.id))).toEqual([]);
  });

  it('a staff member other than a DRIVER is answered without assignedTrips', async () => {
    const staff = await dashboard(app, owner(), 'GET', '/team?limit=100');
    const member = staff.body.data.find((row: { role: string }) => row.role === 'STAFF');
    const answer = await setActive(member.membershipId, false);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).not.toHaveProperty('assignedTrips');
  });

  describe.each([
    [
      'whose membership is deactivated',
      24,
      (driver: { membershipId: string }) => setActive(driver.membershipId, false),
    ],
    [
      'whose staff account is disabled',
      25,
      (driver: { staffUserId: string }) =>
        app.db.query(`update staff_users set status = 'DISABLED' where id = $1`, [driver.staffUserId]),
    ],
  ] as const)('a trip whose driver is one %s', (_name, days, deactivate) => {
    it('shows DRIVER_INACTIVE and refuses START_BOARDING and DEPART 409 TRIP_NOT_READY, changing nothing', async () => {
      const driver = await createDriver(app, world.companyId);
      const trip = await planTrip(driver.staffUserId, days);
      expect(codesOf(await dispatchView(app, dispatcher(), trip.id))).toEqual([]);
      await deactivate(driver);
      // The driver's own session no longer opens the driver app: nobody can board the trip as its driver.
      expect((await app.request('/driver/api/trips', { token: driver.token })).status).toBe(401);

      const view = await dispatchView(app, dispatcher(), trip.id);
      expect(view.status, view.text).toBe(200);
      expect(view.body.data.driver).toMatchObject({ id: driver.staffUserId, active: false });
      expect(view.body.data.readiness).toEqual({
        ready: false,
        blockers: [
          {
            code: 'DRIVER_INACTIVE',
            message: expect.any(String),
            blocks: ['START_BOARDING', 'DEPART'],
          },
        ],
      });
      expect(view.body.data.allowed_actions).toEqual(['MARK_DELAYED', 'CANCEL']);

      for (const [status, action] of [
        ['SCHEDULED', 'START_BOARDING'],
        ['DELAYED', 'START_BOARDING'],
        ['BOARDING', 'DEPART'],
      ] as const) {
        await setTripStatus(app.db, trip.id, status);
        const before = await operationsSnapshot(app.db, trip.id);
        const refused = await dispatch(app, dispatcher(), trip.id, { action });
        expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'TRIP_NOT_READY']);
        expect(refused.body.details).toMatchObject({ status, blockers: [{ code: 'DRIVER_INACTIVE' }] });
        expect(await operationsSnapshot(app.db, trip.id)).toEqual(before);
      }
      await setTripStatus(app.db, trip.id, 'SCHEDULED');
    });
  });

  it('a deactivated driver is neither given a trip nor kept by a re-plan (404 DRIVER_NOT_FOUND, nothing changed); with another driver the trip boards', async () => {
    const driver = await createDriver(app, world.companyId);
    const trip = await planTrip(driver.staffUserId, 27);
    expect((await setActive(driver.membershipId, false)).status).toBe(200);

    const before = await planningSnapshot(app.db, world.companyId);
    const fresh = await dashboard(app, owner(), 'POST', '/trips', tripBody(driver.staffUserId, 28));
    const kept = await dashboard(app, owner(), 'POST', '/trips', {
      ...tripBody(driver.staffUserId, 27),
      trip_id: trip.id,
      price_base: 31_000,
    });
    for (const refused of [fresh, kept]) {
      expect([refused.status, refused.body.errorCode], refused.text).toEqual([404, 'DRIVER_NOT_FOUND']);
    }
    expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);

    const replanned = await dashboard(app, dispatcher(), 'POST', '/trips', {
      ...tripBody(world.driverId, 27),
      trip_id: trip.id,
    });
    expect(replanned.status, replanned.text).toBe(200);
    expect(codesOf(await dispatchView(app, dispatcher(), trip.id))).toEqual([]);
    const boarding = await dispatch(app, dispatcher(), trip.id, { action: 'START_BOARDING' });
    expect([boarding.status, boarding.body.data?.status], boarding.text).toEqual([200, 'BOARDING']);
    await setTripStatus(app.db, trip.id, 'SCHEDULED');
  });
});
