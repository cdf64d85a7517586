import { beforeAll, describe, expect, it } from 'vitest';
import { atDamascus, createBus, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { createStaffMember } from '../../support/staff.js';
import { dashboard, planningSnapshot, planningWorld, type PlanningWorld } from '../../support/planning.js';

/**
 * README "Conflicts": an arrived trip keeps its bus and driver until its actual arrival, so a trip
 * that arrived early frees them then, not at its planned arrival (db/queries/planning.ts
 * busyWindowSql). The route takes 210 minutes: a trip planned 08:00 arrives at 11:30.
 */
describe('POST /trips and schedule previews after a trip arrived early', () => {
  const app = useTestApp();
  let world: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
  });

  const tripBody = (change: Record<string, unknown> = {}) => ({
    route_id: world.routeId,
    bus_id: world.bus.id,
    driver_id: world.driverId,
    pickup_stop_id: world.originStop.id,
    price_base: 30_000,
    price_vip: 45_000,
    ...change,
  });
  const plan = (body: unknown) => dashboard(app, world.sessions.OWNER, 'POST', '/trips', body);

  /** Plans the world's bus and driver at 08:00 on `day`, then records it left on time and arrived `minutes` off plan. */
  const arrivedTrip = async (day: string, minutes: number): Promise<string> => {
    const trip = await plan(tripBody({ departure_at: atDamascus(day, '08:00').toISOString() }));
    expect(trip.status, trip.text).toBe(201);
    await app.db.query(
      `update trips set status = 'ARRIVED', actual_departure_at = departure_at,
                        actual_arrival_at = arrival_at + $2 * interval '1 minute' where id = $1`,
      [trip.body.data.id, minutes],
    );
    return trip.body.data.id as string;
  };

  it('frees the bus and the driver at the actual arrival, and refuses them before it', async () => {
    const day = futureDay(23);
    const at = (time: string) => atDamascus(day, time).toISOString();
    const otherBus = await createBus(app.db, world.companyId);
    const otherDriver = await createStaffMember(app.db, world.companyId, 'DRIVER');
    const tripId = await arrivedTrip(day, -60);

    const before = await planningSnapshot(app.db, world.companyId);
    const cases: [Record<string, unknown>, string][] = [
      [{ departure_at: at('10:00'), driver_id: otherDriver.userId }, 'BUS_BUSY'],
      [{ departure_at: at('10:00'), bus_id: otherBus.id }, 'DRIVER_BUSY'],
    ];
    for (const [change, kind] of cases) {
      const refused = await plan(tripBody(change));
      expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'TRIP_CONFLICT']);
      expect(refused.body.details.conflicts).toEqual([
        expect.objectContaining({ kind, trip_id: tripId, busy_from: at('08:00'), busy_until: at('10:30') }),
      ]);
    }
    expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);

    // Back to back with the actual arrival, and both before the planned 11:30.
    const bus = await plan(tripBody({ departure_at: at('10:30'), driver_id: otherDriver.userId }));
    expect(bus.status, bus.text).toBe(201);
    const driver = await plan(tripBody({ departure_at: at('11:00'), bus_id: otherBus.id }));
    expect(driver.status, driver.text).toBe(201);
  });

  it('previews a schedule with the same windows: free after an early arrival, busy until a late one', async () => {
    const early = futureDay(24);
    const late = futureDay(25);
    const lateTripId = await arrivedTrip(late, 60);
    await arrivedTrip(early, -60);
    const preview = (date: string, time: string) =>
      dashboard(app, world.sessions.OWNER, 'POST', '/trip-schedules', {
        route_id: world.routeId,
        pickup_stop_id: world.originStop.id,
        bus_id: world.bus.id,
        driver_id: world.driverId,
        start_date: date,
        end_date: date,
        departure_time: time,
        days_of_week: [0, 1, 2, 3, 4, 5, 6],
        price_base: 25_000,
        price_vip: null,
        commit: false,
      });

    const free = await preview(early, '10:30');
    expect(free.status, free.text).toBe(200);
    expect(free.body.data.conflicts).toEqual([]);
    expect(free.body.data.summary).toEqual({ trips_planned: 1, conflicting: 0, would_create: 1 });

    const busy = await preview(late, '12:00');
    expect(busy.status, busy.text).toBe(200);
    expect(
      busy.body.data.conflicts.map((conflict: { kind: string; trip_id: string; busy_until: string }) => [
        conflict.kind,
        conflict.trip_id,
        conflict.busy_until,
      ]),
    ).toEqual([
      ['BUS_BUSY', lateTripId, atDamascus(late, '12:30').toISOString()],
      ['DRIVER_BUSY', lateTripId, atDamascus(late, '12:30').toISOString()],
    ]);
  });
});
