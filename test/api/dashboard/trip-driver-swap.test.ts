import { beforeAll, describe, expect, it } from 'vitest';
import { atDamascus, createBus, futureDay } from '../../support/factories.js';
import { useTestApp, type TestResponse } from '../../support/harness.js';
import {
  advance,
  bookSeats,
  createDriver,
  dispatch,
  dispatchView,
  operationsWorld,
  scan,
} from '../../support/operations.js';
import { dashboard, planningSnapshot, planningWorld, type PlanningWorld } from '../../support/planning.js';

/**
 * POST /dashboard/api/trips with trip_id on a BOARDING or DELAYED trip (README "Trips",
 * domain/trip-planning.ts DRIVER_ONLY_REPLAN_STATUSES): the trip gets another driver and keeps
 * everything else. Without it a trip whose driver was deactivated (DRIVER_INACTIVE), that never had
 * one (DRIVER_NOT_ASSIGNED) could never board or depart. Any other change stays 409
 * TRIP_NOT_EDITABLE; the new driver must be active and free while the trip runs; the driver app
 * follows the trip's driver at once, and what the previous driver recorded stays theirs.
 */
describe('re-planning a boarding or delayed trip with another driver', () => {
  const app = useTestApp();
  let world: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
  });

  const owner = () => world.sessions.OWNER;
  const dispatcher = () => world.sessions.DISPATCHER;

  /** A trip body on `busId` departing 08:00 `days` days ahead (the route runs 210 minutes). */
  const tripBody = (
    busId: string,
    driverId: string | null,
    days: number,
    change: Record<string, unknown> = {},
  ) => ({
    route_id: world.routeId,
    bus_id: busId,
    driver_id: driverId,
    pickup_stop_id: world.originStop.id,
    departure_at: atDamascus(futureDay(days), '08:00').toISOString(),
    price_base: 30_000,
    price_vip: 45_000,
    ...change,
  });

  /** A trip planned through POST /trips on a bus of its own (so no other trip holds its bus). */
  const planTrip = async (driverId: string | null, days: number) => {
    const bus = await createBus(app.db, world.companyId);
    const planned = await dashboard(app, owner(), 'POST', '/trips', tripBody(bus.id, driverId, days));
    expect(planned.status, planned.text).toBe(201);
    const tripId = planned.body.data.id as string;
    const body = (driver: string | null, change: Record<string, unknown> = {}) => ({
      ...tripBody(bus.id, driver, days, change),
      trip_id: tripId,
    });
    return { tripId, busId: bus.id, body };
  };

  const replan = (body: Record<string, unknown>) => dashboard(app, dispatcher(), 'POST', '/trips', body);
  const blockersOf = async (tripId: string) =>
    (await dispatchView(app, dispatcher(), tripId)).body.data.readiness.blockers.map(
      (blocker: { code: string }) => blocker.code,
    );
  const deactivate = async (membershipId: string) => {
    const answer = await dashboard(app, owner(), 'PATCH', `/team/${membershipId}`, { active: false });
    expect(answer.status, answer.text).toBe(200);
  };
  const replanAudits = (tripId: string) =>
    app.db.query<{ details: Record<string, unknown> }>(
      `select details from audit_log where action = 'company.trip.replan' and target_id = $1 order by created_at`,
      [tripId],
    );
  const expectStatus = (response: TestResponse, status: number, errorCode?: string) =>
    expect([response.status, response.body.errorCode], response.text).toEqual([status, errorCode]);

  it('a BOARDING trip whose driver was deactivated gets another driver, keeps everything else, and departs', async () => {
    const gone = await createDriver(app, world.companyId);
    const next = await createDriver(app, world.companyId);
    const trip = await planTrip(gone.staffUserId, 40);
    await advance(app, dispatcher(), trip.tripId, 'START_BOARDING');
    await deactivate(gone.membershipId);
    expect(await blockersOf(trip.tripId)).toEqual(['DRIVER_INACTIVE']);
    const stuck = await dispatch(app, dispatcher(), trip.tripId, { action: 'DEPART' });
    expectStatus(stuck, 409, 'TRIP_NOT_READY');
    const [before] = await app.db.query('select * from trips where id = $1', [trip.tripId]);

    const replanned = await replan(trip.body(next.staffUserId));
    expectStatus(replanned, 200, undefined);
    expect(replanned.body.data).toMatchObject({
      id: trip.tripId,
      status: 'BOARDING',
      driver: { id: next.staffUserId, active: true },
      bus: { id: trip.busId },
      price_base: 30_000,
      price_vip: 45_000,
    });
    // Only the driver changed.
    const [after] = await app.db.query('select * from trips where id = $1', [trip.tripId]);
    expect(after).toEqual({ ...before, driver_id: next.staffUserId });
    expect(await replanAudits(trip.tripId)).toEqual([
      {
        details: expect.objectContaining({
          driverId: next.staffUserId,
          previousDriverId: gone.staffUserId,
          status: 'BOARDING',
        }),
      },
    ]);

    expect(await blockersOf(trip.tripId)).toEqual([]);
    const departed = await dispatch(app, dispatcher(), trip.tripId, { action: 'DEPART' });
    expect([departed.status, departed.body.data?.status], departed.text).toEqual([200, 'DEPARTED']);
    // Once it has left, nothing is re-planned any more.
    const late = await replan(trip.body(world.driverId));
    expectStatus(late, 409, 'TRIP_NOT_EDITABLE');
    expect(late.body.details).toEqual({ status: 'DEPARTED' });
  });

  it('a DELAYED trip gets another driver, free for its whole expected window, and then boards', async () => {
    const gone = await createDriver(app, world.companyId);
    const next = await createDriver(app, world.companyId);
    const busy = await createDriver(app, world.companyId);
    const trip = await planTrip(gone.staffUserId, 41);
    const delayed = await dispatch(app, dispatcher(), trip.tripId, {
      action: 'MARK_DELAYED',
      reason: 'Road works',
      delay_minutes: 180,
    });
    expect([delayed.status, delayed.body.data?.status], delayed.text).toEqual([200, 'DELAYED']);
    await deactivate(gone.membershipId);
    expect(await blockersOf(trip.tripId)).toEqual(['DRIVER_INACTIVE']);

    // Planned 08:00-11:30, expected until 14:30: a driver leaving at 12:00 on another trip is taken.
    const other = await dashboard(app, owner(), 'POST', '/trips', {
      ...tripBody((await createBus(app.db, world.companyId)).id, busy.staffUserId, 41),
      departure_at: atDamascus(futureDay(41), '12:00').toISOString(),
    });
    expect(other.status, other.text).toBe(201);
    const before = await planningSnapshot(app.db, world.companyId);
    const taken = await replan(trip.body(busy.staffUserId));
    expectStatus(taken, 409, 'TRIP_CONFLICT');
    expect(taken.body.details.conflicts).toEqual([
      expect.objectContaining({ kind: 'DRIVER_BUSY', trip_id: other.body.data.id }),
    ]);
    expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    expect(await replanAudits(trip.tripId)).toEqual([]);

    const replanned = await replan(trip.body(next.staffUserId));
    expectStatus(replanned, 200, undefined);
    expect(replanned.body.data).toMatchObject({ status: 'DELAYED', driver: { id: next.staffUserId } });
    expect(await blockersOf(trip.tripId)).toEqual([]);
    const boarding = await dispatch(app, dispatcher(), trip.tripId, { action: 'START_BOARDING' });
    expect([boarding.status, boarding.body.data?.status], boarding.text).toEqual([200, 'BOARDING']);
  });

  it('a DELAYED trip planned without a driver is given one and boards', async () => {
    const trip = await planTrip(null, 42);
    await advance(app, dispatcher(), trip.tripId, 'MARK_DELAYED');
    expect(await blockersOf(trip.tripId)).toEqual(['DRIVER_NOT_ASSIGNED']);
    const driver = await createDriver(app, world.companyId);

    const assigned = await replan(trip.body(driver.staffUserId));
    expectStatus(assigned, 200, undefined);
    expect(await replanAudits(trip.tripId)).toEqual([
      { details: expect.objectContaining({ driverId: driver.staffUserId, previousDriverId: null }) },
    ]);
    const boarding = await dispatch(app, dispatcher(), trip.tripId, { action: 'START_BOARDING' });
    expect([boarding.status, boarding.body.data?.status], boarding.text).toEqual([200, 'BOARDING']);
  });

  it('refuses any other change of a BOARDING trip 409 TRIP_NOT_EDITABLE naming it, and an inactive driver 404, changing nothing', async () => {
    const driver = await createDriver(app, world.companyId);
    const next = await createDriver(app, world.companyId);
    const inactive = await createDriver(app, world.companyId);
    await deactivate(inactive.membershipId);
    const trip = await planTrip(driver.staffUserId, 43);
    await advance(app, dispatcher(), trip.tripId, 'START_BOARDING');
    const otherBus = await createBus(app.db, world.companyId);
    const before = await planningSnapshot(app.db, world.companyId);

    const cases: [Record<string, unknown>, string[]][] = [
      [{ bus_id: otherBus.id }, ['bus_id']],
      [{ pickup_stop_id: world.originStop2.id }, ['pickup_stop_id']],
      [{ price_base: 31_000 }, ['price_base']],
      [{ price_vip: null }, ['price_vip']],
      [{ departure_at: atDamascus(futureDay(43), '09:00').toISOString() }, ['departure_at']],
      [{ duration_minutes: 240 }, ['duration_minutes']],
      [{ price_base: 31_000, pickup_stop_id: world.originStop2.id }, ['pickup_stop_id', 'price_base']],
    ];
    for (const [change, fields] of cases) {
      const refused = await replan(trip.body(next.staffUserId, change));
      expectStatus(refused, 409, 'TRIP_NOT_EDITABLE');
      expect(refused.body.message).toBe('Once a trip is boarding or delayed only its driver can change');
      expect(refused.body.details).toEqual({ status: 'BOARDING', fields });
    }
    const notADriver = await replan(trip.body(inactive.staffUserId));
    expectStatus(notADriver, 404, 'DRIVER_NOT_FOUND');
    expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    expect(await replanAudits(trip.tripId)).toEqual([]);

    // The same driver again is answered as it stands and writes nothing.
    const same = await replan(trip.body(driver.staffUserId));
    expectStatus(same, 200, undefined);
    expect(same.body.data).toMatchObject({ status: 'BOARDING', driver: { id: driver.staffUserId } });
    expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    expect(await replanAudits(trip.tripId)).toEqual([]);
  });

  it('the replaced driver no longer works the trip in the driver app, the new one does; the cash each recorded stays theirs', async () => {
    const ops = await operationsWorld(app, { seats: 8 });
    const tripId = ops.trip.tripId;
    const [rami, sara] = [
      await bookSeats(app, ops.trip, [ops.trip.seatNumbers[0]!]),
      await bookSeats(app, ops.trip, [ops.trip.seatNumbers[1]!]),
    ];
    await advance(app, ops.dispatcher, tripId, 'START_BOARDING');
    const first = ops.driver;
    const collect = (token: string, bookingId: string) =>
      app.request(`/driver/api/trips/${tripId}/bookings/${bookingId}/cash-collection`, {
        method: 'POST',
        token,
      });
    expect((await scan(app, first.token, tripId, rami.credentials[0]!)).status).toBe(200);
    const firstCash = await collect(first.token, rami.bookingId);
    expect(firstCash.status, firstCash.text).toBe(201);

    // The dispatcher gives the trip another driver, repeating its plan as it stands.
    const second = await createDriver(app, ops.companyId);
    const [plan] = await app.db.query<Record<string, unknown>>(
      `select route_id, bus_id, pickup_stop_id, to_json(departure_at) #>> '{}' as departure_at,
              price_base::float8 as price_base, price_vip::float8 as price_vip from trips where id = $1`,
      [tripId],
    );
    const replanned = await app.request('/dashboard/api/trips', {
      method: 'POST',
      headers: ops.dispatcher.writeHeaders,
      json: { ...plan, trip_id: tripId, driver_id: second.staffUserId },
    });
    expect(replanned.status, replanned.text).toBe(200);

    // The previous driver: the trip is gone from their list and every act on it is 403 TRIP_NOT_ASSIGNED.
    const listed = await app.request('/driver/api/trips', { token: first.token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((trip: { id: string }) => trip.id)).not.toContain(tripId);
    const refusals = [
      await app.request(`/driver/api/trips/${tripId}/manifest`, { token: first.token }),
      await scan(app, first.token, tripId, sara.credentials[0]!),
      await collect(first.token, sara.bookingId),
      await app.request(`/driver/api/trips/${tripId}/positions`, {
        method: 'POST',
        token: first.token,
        json: { positions: [{ lat: 33.5, lon: 36.3, time: new Date().toISOString() }] },
      }),
    ];
    for (const refused of refusals) expectStatus(refused, 403, 'TRIP_NOT_ASSIGNED');

    // The new driver lists it, boards the rest, and records the cash they take.
    const theirs = await app.request('/driver/api/trips', { token: second.token });
    expect(theirs.body.data.map((trip: { id: string }) => trip.id)).toContain(tripId);
    const manifest = await app.request(`/driver/api/trips/${tripId}/manifest`, { token: second.token });
    expect(manifest.status, manifest.text).toBe(200);
    const scanned = await scan(app, second.token, tripId, sara.credentials[0]!);
    expect(scanned.body.data, scanned.text).toMatchObject({ outcome: 'CHECKED_IN' });
    const secondCash = await collect(second.token, sara.bookingId);
    expect(secondCash.status, secondCash.text).toBe(201);

    const lines = await app.db.query<{ booking_id: string; status: string; collected_by: string }>(
      `select booking_id, status, collected_by from payment_operations
        where booking_id = any($1::uuid[]) and source = 'driver' order by created_at`,
      [[rami.bookingId, sara.bookingId]],
    );
    expect(lines).toEqual([
      { booking_id: rami.bookingId, status: 'PENDING', collected_by: first.staffUserId },
      { booking_id: sara.bookingId, status: 'PENDING', collected_by: second.staffUserId },
    ]);
    const departed = await dispatch(app, ops.dispatcher, tripId, { action: 'DEPART' });
    expect([departed.status, departed.body.data?.status], departed.text).toEqual([200, 'DEPARTED']);
  });
});
