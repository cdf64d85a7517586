import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../domain/analytics.js';
import { legacyLayout } from '../../../domain/layout-templates.js';
import { LEGACY_BUS_LAYOUTS } from '../../../db/migrations/Migration20261206185000_legacy_bus_layouts.js';
import { atDamascus, createTrip, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import {
  bookJourney,
  holdForConfirm,
  setConfirmation,
  webTraveller,
  type TripFixture,
} from '../../support/journeys.js';
import {
  dashboard,
  planningSnapshot,
  planningWorld,
  scheduleTrips,
  type PlanningWorld,
} from '../../support/planning.js';

/**
 * README "Company planning", Layouts: a bus imported before canonical layouts
 * (buses.legacy_seat_map, never set by the API) sells its capacity until it gets a layout. Every seat
 * path reads the active layout, so planning the first trip on it (POST /trips, a schedule's batch)
 * gives it a generated active layout of exactly its capacity (domain/layout-templates.ts
 * legacyLayout): its trips then sell, board and show a seat map like any other bus's. Discarding a
 * draft never touches its capacity; archiving an active layout does.
 */
describe('a bus imported before canonical layouts', () => {
  const app = useTestApp({ SCHEDULE_BATCH_SIZE: 3 });
  let world: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
    await setConfirmation(app.db, world.companyId, { mode: 'AUTO_CONFIRM' });
  });

  const legacyBus = async (capacity = 33) => {
    const [bus] = await app.db.query<{ id: string }>(
      `insert into buses (company_id, plate_number, capacity, legacy_seat_map) values ($1, $2, $3, true) returning id`,
      [world.companyId, `LEGACY-${randomUUID().slice(0, 6)}`, capacity],
    );
    return bus!.id;
  };

  const plan = (busId: string, day: string, change: Record<string, unknown> = {}) =>
    dashboard(app, world.sessions.OWNER, 'POST', '/trips', {
      route_id: world.routeId,
      bus_id: busId,
      driver_id: null,
      pickup_stop_id: world.originStop.id,
      departure_at: atDamascus(day, '07:00').toISOString(),
      price_base: 30_000,
      price_vip: null,
      ...change,
    });

  const fixture = async (tripId: string, seatCount: number): Promise<TripFixture> => {
    const calls = await app.db.query<{ id: string }>(
      'select id from trip_stop_calls where trip_id = $1 order by sequence',
      [tripId],
    );
    return { companyId: world.companyId, tripId, stopCallIds: calls.map((call) => call.id), seatCount };
  };

  const layoutOf = async (busId: string) => {
    const response = await dashboard(app, world.sessions.DISPATCHER, 'GET', `/buses/${busId}/layout`);
    expect(response.status, response.text).toBe(200);
    return response.body.data;
  };

  const layoutVersions = (busId: string) =>
    app.db.query<{ version: number; status: string; seat_count: number }>(
      'select version, status, seat_count from bus_layouts where bus_id = $1 order by version',
      [busId],
    );

  it('plans its first trip on a generated layout of its capacity: a traveller quotes, holds and confirms a seat', async () => {
    const busId = await legacyBus();
    const planned = await plan(busId, futureDay(11));
    expect(planned.status, planned.text).toBe(201);
    expect(planned.body.data.seats_total).toBe(33);

    // The bus's layout, as the dashboard reads it: the generated one, active, its capacity unchanged.
    const layout = await layoutOf(busId);
    expect(layout.bus).toMatchObject({ capacity: 33, legacy_seat_map: true, layout: { seat_count: 33 } });
    expect(layout.active).toMatchObject({ status: 'active', validation_status: 'valid', seat_count: 33 });
    expect(layout.active.layoutDocument).toEqual(legacyLayout(33));
    expect(layout.draft).toBeNull();
    const [audited] = await app.db.query<{ actor_id: string; details: object }>(
      `select actor_id, details from audit_log where action = 'company.bus.layout.generate' and target_id = $1`,
      [busId],
    );
    expect(audited).toEqual({
      actor_id: world.sessions.OWNER.staffUserId,
      details: { companyId: world.companyId, version: layout.active.version, seatCount: 33 },
    });

    const caller = await webTraveller(app);
    const trip = await fixture(planned.body.data.id, 33);
    const { quoted, confirmed } = await bookJourney(app, caller, [{ trip }]);
    expect(quoted.total_price).toBe(30_000);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    expect(confirmed.body.data.tickets.map((ticket: { seat_number: string }) => ticket.seat_number)).toEqual([
      '1',
    ]);

    // Its next trip plans on that layout: no second one.
    const next = await plan(busId, futureDay(12));
    expect([next.status, next.body.data?.seats_total], next.text).toEqual([201, 33]);
    expect(await layoutVersions(busId)).toEqual([{ version: 1, status: 'active', seat_count: 33 }]);
  });

  it('lets its trip board: readiness has no LAYOUT_NOT_ACTIVE blocker and START_BOARDING is allowed', async () => {
    const planned = await plan(await legacyBus(), futureDay(15), { driver_id: world.driverId });
    expect(planned.status, planned.text).toBe(201);
    const tripId = planned.body.data.id as string;
    const room = await dashboard(app, world.sessions.OWNER, 'GET', `/trips/${tripId}/dispatch`);
    expect(room.status, room.text).toBe(200);
    const codes = (room.body.data.readiness.blockers as { code: string }[]).map((blocker) => blocker.code);
    expect(codes).not.toContain('LAYOUT_NOT_ACTIVE');
    const boarding = await dashboard(app, world.sessions.OWNER, 'POST', `/trips/${tripId}/dispatch`, {
      action: 'START_BOARDING',
    });
    expect([boarding.status, boarding.body.errorCode], boarding.text).toEqual([200, undefined]);
  });

  it('gives it the layout when a schedule commits its first batch, once', async () => {
    const busId = await legacyBus(30);
    const start = futureDay(20);
    const committed = await dashboard(app, world.sessions.OWNER, 'POST', '/trip-schedules', {
      route_id: world.routeId,
      pickup_stop_id: world.originStop.id,
      bus_id: busId,
      driver_id: null,
      start_date: start,
      end_date: addDays(start, 6),
      departure_time: '13:00',
      days_of_week: [0, 1, 2, 3, 4, 5, 6],
      price_base: 25_000,
      price_vip: null,
      commit: true,
    });
    expect(committed.status, committed.text).toBe(201);
    expect(committed.body.data).toMatchObject({ status: 'COMPLETED', progress: { trips_created: 7 } });
    const trips = await scheduleTrips(app.db, committed.body.data.id);
    expect(trips).toHaveLength(7);
    expect(await layoutVersions(busId)).toEqual([{ version: 1, status: 'active', seat_count: 30 }]);
    // Recorded as POST /trips records it, the act of the member who committed the schedule.
    const audited = await app.db.query<{ actor_id: string; details: object }>(
      `select actor_id, details from audit_log where action = 'company.bus.layout.generate' and target_id = $1`,
      [busId],
    );
    expect(audited).toEqual([
      {
        actor_id: world.sessions.OWNER.staffUserId,
        details: {
          companyId: world.companyId,
          version: 1,
          seatCount: 30,
          scheduleId: committed.body.data.id,
        },
      },
    ]);
    const held = await holdForConfirm(app, await webTraveller(app), [
      { trip: await fixture(trips[6]!.id, 30) },
    ]);
    expect(held.held.body.data.holdBatchId).toEqual(expect.any(String));
  });

  it('generates nothing when the plan is refused: the bus stays as it was', async () => {
    const busId = await legacyBus();
    const before = await planningSnapshot(app.db, world.companyId);
    const refused = await plan(busId, futureDay(16), { pickup_stop_id: world.destinationStop.id });
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([400, 'PICKUP_STOP_WRONG_CITY']);
    expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    expect(await layoutVersions(busId)).toEqual([]);
  });

  it('keeps its capacity and its trips’ seats when a draft is discarded; archiving its active layout zeroes them', async () => {
    const busId = await legacyBus();
    const templates = await dashboard(app, world.sessions.OWNER, 'GET', '/bus-templates');
    const draft = await dashboard(app, world.sessions.OWNER, 'PUT', `/buses/${busId}/layout`, {
      layoutDocument: templates.body.data[0].layoutDocument,
      saveMode: 'draft',
    });
    expect(draft.status, draft.text).toBe(200);
    const discarded = await dashboard(app, world.sessions.OWNER, 'DELETE', `/buses/${busId}/layout`);
    expect([discarded.status, discarded.body.data?.archivedVersions], discarded.text).toEqual([200, [1]]);
    expect((await layoutOf(busId)).bus.capacity).toBe(33);

    const planned = await plan(busId, futureDay(13));
    expect([planned.status, planned.body.errorCode, planned.body.data?.seats_total], planned.text).toEqual([
      201,
      undefined,
      33,
    ]);
    expect(await layoutVersions(busId)).toEqual([
      { version: 1, status: 'archived', seat_count: 48 },
      { version: 2, status: 'active', seat_count: 33 },
    ]);

    // Archiving the active layout (no bookings yet) is what stops it selling.
    const archived = await dashboard(app, world.sessions.OWNER, 'DELETE', `/buses/${busId}/layout`);
    expect([archived.status, archived.body.data?.archivedVersions], archived.text).toEqual([200, [2]]);
    expect((await layoutOf(busId)).bus.capacity).toBe(0);
    const [trip] = await app.db.query<{ seats_total: number }>(
      'select seats_total from trips where id = $1',
      [planned.body.data.id],
    );
    expect(trip!.seats_total).toBe(0);
    const again = await plan(busId, futureDay(14));
    expect([again.status, again.body.errorCode], again.text).toEqual([409, 'BUS_LAYOUT_REQUIRED']);
  });

  it('the migration gives a legacy bus with trips planned before this release the same layout: they sell', async () => {
    // A trip planned on the legacy bus before this release: on its capacity, the bus without a layout.
    const busId = await legacyBus(21);
    const idle = await legacyBus(40);
    const old = await createTrip(app.db, {
      companyId: world.companyId,
      busId: world.bus.id,
      routeId: world.routeId,
      departAt: atDamascus(futureDay(17), '05:00'),
      calls: [
        { stop: world.originStop, at: 0 },
        { stop: world.destinationStop, at: 200 },
      ],
    });
    await app.db.query('update trips set bus_id = $2, seats_total = 21 where id = $1', [old.id, busId]);

    await app.db.query(LEGACY_BUS_LAYOUTS);

    const layout = await layoutOf(busId);
    expect(layout.active.layoutDocument).toEqual(legacyLayout(21));
    expect(layout.bus).toMatchObject({ capacity: 21, layout: { version: 1, seat_count: 21 } });
    const seats = await app.db.query<{ seat_id: string; seat_number: string; seat_class: string }>(
      `select s.seat_id, s.seat_number, s.seat_class from layout_seats s join bus_layouts l on l.id = s.layout_id
       where l.bus_id = $1 and l.status = 'active' order by s.seat_number::int`,
      [busId],
    );
    expect(seats.map((seat) => [seat.seat_id, seat.seat_number, seat.seat_class])).toEqual(
      legacyLayout(21)
        .elements.filter((element) => element.type === 'seat')
        .map((seat) => [seat.seatId, seat.seatNumber, 'STANDARD']),
    );
    // A legacy bus without trips to run gets its layout when it is first planned, not here.
    expect(await layoutVersions(idle)).toEqual([]);

    const trip: TripFixture = {
      companyId: world.companyId,
      tripId: old.id,
      stopCallIds: old.stopCallIds,
      seatCount: 21,
    };
    const { confirmed } = await bookJourney(app, await webTraveller(app), [{ trip }]);
    expect(confirmed.body.data.confirmation.status).toBe('CONFIRMED');
    // Run again, it finds nothing left to do.
    await app.db.query(LEGACY_BUS_LAYOUTS);
    expect(await layoutVersions(busId)).toEqual([{ version: 1, status: 'active', seat_count: 21 }]);
  });
});
