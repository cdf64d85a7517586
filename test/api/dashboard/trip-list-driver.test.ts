import { beforeAll, describe, expect, it } from 'vitest';
import { atDamascus, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { dispatchView } from '../../support/operations.js';
import { dashboard, planningWorld, type PlanningWorld } from '../../support/planning.js';
import { addMembership, createStaffMember } from '../../support/staff.js';

/**
 * The dashboard's trip list (SPEC dashboard: GET /trips "plus driver") says whether each trip's
 * driver is still active: a deactivation leaves the driver on their trips (the dispatch view's
 * readiness blocker DRIVER_INACTIVE), so a dispatcher scanning the day's list sees which trips
 * need another driver. The flag is the dispatch view's own `driver.active`, judged in the trip's
 * company only.
 */
describe("GET /dashboard/api/trips: the driver's active flag", () => {
  const app = useTestApp();
  let world: PlanningWorld;
  let other: PlanningWorld;
  const date = futureDay(16);

  beforeAll(async () => {
    world = await planningWorld(app);
    other = await planningWorld(app);
  });

  const owner = () => world.sessions.OWNER;

  /** A trip planned through POST /trips on the day; its id. */
  const planTrip = async (
    within: PlanningWorld,
    time: string,
    driverId: string | null,
    session = within.sessions.OWNER,
  ) => {
    const response = await dashboard(app, session, 'POST', '/trips', {
      route_id: within.routeId,
      bus_id: within.bus.id,
      driver_id: driverId,
      pickup_stop_id: within.originStop.id,
      departure_at: atDamascus(date, time).toISOString(),
      price_base: 30_000,
    });
    expect(response.status, response.text).toBe(201);
    return response.body.data as { id: string; driver: unknown };
  };

  const setActive = (membershipId: string, active: boolean) =>
    dashboard(app, owner(), 'PATCH', `/team/${membershipId}`, { active });

  /** The day's list as `within`'s dispatcher reads it: each trip's driver by trip id. */
  const driversListed = async (within: PlanningWorld) => {
    const response = await dashboard(app, within.sessions.DISPATCHER, 'GET', `/trips?date=${date}`);
    expect(response.status, response.text).toBe(200);
    const trips = response.body.data as { id: string; driver: unknown }[];
    return {
      drivers: Object.fromEntries(trips.map((trip) => [trip.id, trip.driver])),
      counters: response.body.counters as Record<string, number>,
    };
  };

  it('shows a deactivated driver inactive on their trips, an active driver active, and no driver as null', async () => {
    const leaving = await createStaffMember(app.db, world.companyId, 'DRIVER', { name: 'Leaving driver' });
    const planned = await planTrip(world, '06:00', leaving.userId);
    expect(planned.driver).toMatchObject({ id: leaving.userId, active: true });
    const staying = await planTrip(world, '10:00', world.driverId);
    const unassigned = await planTrip(world, '14:00', null);
    expect((await driversListed(world)).drivers[planned.id]).toMatchObject({ active: true });

    expect((await setActive(leaving.membershipId, false)).status).toBe(200);

    const { drivers, counters } = await driversListed(world);
    expect(drivers).toEqual({
      [planned.id]: {
        id: leaving.userId,
        name: 'Leaving driver',
        email: leaving.email,
        active: false,
      },
      [staying.id]: expect.objectContaining({ id: world.driverId, active: true }),
      [unassigned.id]: null,
    });
    // The counters still count trip statuses only: the flag is on each trip, not a new counter.
    expect(Object.keys(counters).sort()).toEqual([
      'ARRIVED',
      'BOARDING',
      'CANCELLED',
      'COMPLETED',
      'DELAYED',
      'DEPARTED',
      'SCHEDULED',
    ]);
    // The list and the dispatch view tell the same thing about the trip.
    const view = await dispatchView(app, world.sessions.DISPATCHER, planned.id);
    expect(view.body.data.driver).toMatchObject({ id: leaving.userId, active: false });
    expect(view.body.data.readiness.blockers).toEqual([expect.objectContaining({ code: 'DRIVER_INACTIVE' })]);

    expect((await setActive(leaving.membershipId, true)).status).toBe(200);
    expect((await driversListed(world)).drivers[planned.id]).toMatchObject({
      id: leaving.userId,
      active: true,
    });
  });

  it('shows a driver whose staff account is disabled inactive too', async () => {
    const disabled = await createStaffMember(app.db, world.companyId, 'DRIVER');
    const trip = await planTrip(world, '18:00', disabled.userId);
    await app.db.query(`update staff_users set status = 'DISABLED' where id = $1`, [disabled.userId]);
    expect((await driversListed(world)).drivers[trip.id]).toMatchObject({
      id: disabled.userId,
      active: false,
    });
  });

  it("judges a driver of two companies in each company alone, and another company sees none of this company's trips", async () => {
    const shared = await createStaffMember(app.db, world.companyId, 'DRIVER');
    await addMembership(app.db, shared.userId, other.companyId, 'DRIVER');
    const ours = await planTrip(world, '22:00', shared.userId);
    const theirs = await planTrip(other, '09:00', shared.userId);
    expect((await setActive(shared.membershipId, false)).status).toBe(200);

    expect((await driversListed(world)).drivers[ours.id]).toMatchObject({ active: false });
    const listed = await driversListed(other);
    expect(listed.drivers).toEqual({
      [theirs.id]: expect.objectContaining({ id: shared.userId, active: true }),
    });
    expect(listed.counters.SCHEDULED).toBe(1);
  });
});
