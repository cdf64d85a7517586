import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../domain/analytics.js';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { lockSeats } from '../../support/bookings.js';
import { atDamascus, createBus, createStop, createTrip, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { decisionWindowRanOut } from '../../support/journey-rows.js';
import { bookJourney, mobileTraveller, setConfirmation, webTraveller } from '../../support/journeys.js';
import { createStaffMember } from '../../support/staff.js';
import { demotedWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';
import {
  dashboard,
  expectNoDoubleBookedBus,
  planningSnapshot,
  planningWorld,
  type PlanningWorld,
} from '../../support/planning.js';

describe('GET and POST /dashboard/api/trips', () => {
  const app = useTestApp();
  let world: PlanningWorld;
  let other: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
    other = await planningWorld(app);
  });

  const owner = () => world.sessions.OWNER;
  const tripBody = (change: Record<string, unknown> = {}) => ({
    route_id: world.routeId,
    bus_id: world.bus.id,
    driver_id: world.driverId,
    pickup_stop_id: world.originStop.id,
    departure_at: atDamascus(futureDay(10), '08:00').toISOString(),
    price_base: 30_000,
    price_vip: 45_000,
    ...change,
  });
  const plan = (body: unknown, session = owner()) => dashboard(app, session, 'POST', '/trips', body);
  /** Each change is refused 409 TRIP_CONFLICT with exactly one conflict: of its kind, with `window`'s fields. */
  const expectConflicts = async (
    cases: [Record<string, unknown>, string][],
    window: Record<string, unknown>,
  ) => {
    for (const [change, kind] of cases) {
      const response = await plan(tripBody(change));
      expect([response.status, response.body.errorCode], kind).toEqual([409, 'TRIP_CONFLICT']);
      expect(response.body.details.conflicts).toEqual([expect.objectContaining({ kind, ...window })]);
    }
  };

  describe('GET /trips', () => {
    let date: string;
    let ids: Record<'noon' | 'morning' | 'night' | 'earlyMorning' | 'nextDay', string>;

    beforeAll(async () => {
      date = futureDay(12);
      const bus = await createBus(app.db, world.companyId);
      const trip = (time: string, day = date) =>
        createTrip(app.db, {
          companyId: world.companyId,
          busId: bus.id,
          routeId: world.routeId,
          departAt: atDamascus(day, time),
          calls: [
            { stop: world.originStop, at: 0 },
            { stop: world.destinationStop, at: 60 },
          ],
        });
      ids = {
        noon: (await trip('14:00')).id,
        morning: (await trip('08:00')).id,
        night: (await trip('20:00')).id,
        earlyMorning: (await trip('01:00')).id,
        nextDay: (await trip('08:00', addDays(date, 1))).id,
      };
      await app.db.query(`update trips set status = 'DELAYED', delay_minutes = 25 where id = $1`, [ids.noon]);
      await app.db.query(
        `update trips set status = 'DEPARTED', actual_departure_at = departure_at + interval '3 minutes', driver_id = $2
         where id = $1`,
        [ids.morning, world.driverId],
      );
      await createTrip(app.db, {
        companyId: other.companyId,
        busId: other.bus.id,
        routeId: other.routeId,
        departAt: atDamascus(date, '09:00'),
        calls: [
          { stop: other.originStop, at: 0 },
          { stop: other.destinationStop, at: 60 },
        ],
      });
    });

    it('lists a Damascus operating date in departure order with counters of every status', async () => {
      const response = await dashboard(app, world.sessions.STAFF, 'GET', `/trips?date=${date}`);
      expect(response.status, response.text).toBe(200);
      const trips = response.body.data as Record<string, any>[];
      expect(trips.map((trip) => trip.id)).toEqual([ids.earlyMorning, ids.morning, ids.noon, ids.night]);
      expect(trips[0]!.operating_date).toBe(date);
      expect(trips[0]!.departure_at).toBe(atDamascus(date, '01:00').toISOString());
      expect(response.body.counters).toEqual({
        SCHEDULED: 2,
        BOARDING: 0,
        DELAYED: 1,
        DEPARTED: 1,
        ARRIVED: 0,
        COMPLETED: 0,
        CANCELLED: 0,
      });
      expect(response.body.pagination).toEqual({ limit: 20, offset: 0, total: 4 });
      expect(trips[1]).toMatchObject({
        status: 'DEPARTED',
        driver: { id: world.driverId },
        actual_departure_at: new Date(atDamascus(date, '08:03')).toISOString(),
        pickupLocation: { id: world.originStop.id },
      });
      expect(trips[2]).toMatchObject({
        status: 'DELAYED',
        delay_minutes: 25,
        driver: null,
        actual_departure_at: null,
      });
    });

    it('pages on the server, filters by status without changing the counters, and lists history latest first', async () => {
      const first = await dashboard(app, owner(), 'GET', `/trips?date=${date}&limit=3`);
      const second = await dashboard(app, owner(), 'GET', `/trips?date=${date}&limit=3&offset=3`);
      expect([...first.body.data, ...second.body.data].map((trip: { id: string }) => trip.id)).toEqual([
        ids.earlyMorning,
        ids.morning,
        ids.noon,
        ids.night,
      ]);
      expect(second.body.pagination).toEqual({ limit: 3, offset: 3, total: 4 });
      const delayed = await dashboard(app, owner(), 'GET', `/trips?date=${date}&status=DELAYED`);
      expect(delayed.body.data.map((trip: { id: string }) => trip.id)).toEqual([ids.noon]);
      expect(delayed.body.counters.SCHEDULED).toBe(2);
      expect(delayed.body.pagination.total).toBe(1);
      const history = await dashboard(app, owner(), 'GET', '/trips?limit=100');
      const order = history.body.data.map((trip: { id: string }) => trip.id) as string[];
      expect(order.indexOf(ids.nextDay)).toBeLessThan(order.indexOf(ids.night));
      expect(order.indexOf(ids.night)).toBeLessThan(order.indexOf(ids.earlyMorning));
      const departures = history.body.data.map(
        (trip: { departure_at: string }) => trip.departure_at,
      ) as string[];
      expect([...departures].sort().reverse()).toEqual(departures);
    });

    it("never lists another company's trips and refuses a bad query", async () => {
      const foreign = await dashboard(app, other.sessions.OWNER, 'GET', `/trips?date=${date}`);
      expect(foreign.body.data).toHaveLength(1);
      expect(foreign.body.data[0].id).not.toBe(ids.noon);
      for (const query of ['date=2026-02-30', 'status=LOST', 'limit=500', 'bus_id=nope', 'company_id=x']) {
        expect((await dashboard(app, owner(), 'GET', `/trips?${query}`)).status, query).toBe(400);
      }
    });
  });

  describe('POST /trips', () => {
    it("plans a trip whose stop calls come from the route's stops, in Damascus time", async () => {
      // The day read once, for the plan and the answer alike (a second read may fall after midnight).
      const day = futureDay(10);
      const response = await plan(
        tripBody({ departure_at: atDamascus(day, '08:00').toISOString() }),
        world.sessions.DISPATCHER,
      );
      expect(response.status, response.text).toBe(201);
      const trip = response.body.data;
      expect(trip).toMatchObject({
        status: 'SCHEDULED',
        operating_date: day,
        departure_at: atDamascus(day, '08:00').toISOString(),
        arrival_at: atDamascus(day, '11:30').toISOString(),
        seats_total: world.bus.seatCount,
        driver: { id: world.driverId },
        price_base: 30_000,
        price_vip: 45_000,
      });
      const calls = await app.db.query(
        `select stop_id, sequence, fare_share_bp, to_char(arrival_at at time zone 'Asia/Damascus', 'HH24:MI') as arrival,
                to_char(departure_at at time zone 'Asia/Damascus', 'HH24:MI') as departure
         from trip_stop_calls where trip_id = $1 order by sequence`,
        [trip.id],
      );
      expect(calls).toEqual([
        { stop_id: world.originStop.id, sequence: 0, fare_share_bp: 0, arrival: '08:00', departure: '08:00' },
        {
          stop_id: world.middleStop.id,
          sequence: 1,
          fare_share_bp: 4000,
          arrival: '09:30',
          departure: '09:40',
        },
        {
          stop_id: world.destinationStop.id,
          sequence: 2,
          fare_share_bp: 10_000,
          arrival: '11:30',
          departure: '11:30',
        },
      ]);
    });

    it('scales the running times to another duration and picks travellers up at another stop of the origin city', async () => {
      const bus = await createBus(app.db, world.companyId);
      const day = futureDay(10);
      const response = await plan(
        tripBody({
          bus_id: bus.id,
          driver_id: null,
          duration_minutes: 300,
          pickup_stop_id: world.originStop2.id,
          departure_at: atDamascus(day, '12:00').toISOString(),
        }),
      );
      expect(response.status, response.text).toBe(201);
      expect(response.body.data.arrival_at).toBe(atDamascus(day, '17:00').toISOString());
      expect(response.body.data.pickupLocation.id).toBe(world.originStop2.id);
      const short = await plan(tripBody({ bus_id: bus.id, driver_id: null, duration_minutes: 5 }));
      expect([short.status, short.body.errorCode]).toEqual([400, 'DURATION_TOO_SHORT']);
    });

    it('refuses a bus, driver, route or pickup stop that does not fit, and changes nothing', async () => {
      const noLayout = (
        await app.db.query<{ id: string }>(
          `insert into buses (company_id, plate_number, capacity) values ($1, $2, 40) returning id`,
          [world.companyId, `NOLAYOUT-${randomUUID().slice(0, 6)}`],
        )
      )[0]!.id;
      const inactiveDriver = await createStaffMember(app.db, world.companyId, 'DRIVER', { active: false });
      const dispatcherAsDriver = await createStaffMember(app.db, world.companyId, 'DISPATCHER');
      const foreignStop = await createStop(app.db, world.origin.id, {
        companyId: other.companyId,
        kind: 'BOARDING_POINT',
      });
      const depot = await createStop(app.db, world.origin.id, { companyId: world.companyId, kind: 'DEPOT' });
      const emptyRoute = (
        await app.db.query<{ id: string }>(
          `insert into routes (company_id, origin_city_id, destination_city_id, name_ar, name_en)
         values ($1, $2, $3, 'خط', 'Empty') returning id`,
          [world.companyId, world.origin.id, world.destination.id],
        )
      )[0]!.id;
      const inactiveRoute = (
        await app.db.query<{ id: string }>(
          `insert into routes (company_id, origin_city_id, destination_city_id, name_ar, name_en, active)
         values ($1, $2, $3, 'خط قديم', 'No longer run', false) returning id`,
          [world.companyId, world.origin.id, world.destination.id],
        )
      )[0]!.id;
      const cases: [Record<string, unknown>, number, string][] = [
        [{ bus_id: noLayout }, 409, 'BUS_LAYOUT_REQUIRED'],
        [{ bus_id: other.bus.id }, 404, 'BUS_NOT_FOUND'],
        [{ route_id: other.routeId }, 404, 'ROUTE_NOT_FOUND'],
        [{ route_id: emptyRoute }, 409, 'ROUTE_HAS_NO_STOPS'],
        [{ route_id: inactiveRoute }, 409, 'ROUTE_INACTIVE'],
        [{ duration_minutes: 1 }, 400, 'DURATION_TOO_SHORT'],
        [{ driver_id: other.driverId }, 404, 'DRIVER_NOT_FOUND'],
        [{ driver_id: inactiveDriver.userId }, 404, 'DRIVER_NOT_FOUND'],
        [{ driver_id: dispatcherAsDriver.userId }, 404, 'DRIVER_NOT_FOUND'],
        [{ pickup_stop_id: world.destinationStop.id }, 400, 'PICKUP_STOP_WRONG_CITY'],
        [{ pickup_stop_id: foreignStop.id }, 400, 'PICKUP_STOP_NOT_ALLOWED'],
        [{ pickup_stop_id: depot.id }, 400, 'PICKUP_STOP_NOT_ALLOWED'],
        [{ departure_at: new Date(Date.now() - 3_600_000).toISOString() }, 400, 'DEPARTURE_IN_PAST'],
        [{ departure_at: '2026-13-01T08:00:00+03:00' }, 400, 'VALIDATION_FAILED'],
        [{ departure_at: '2026-12-01 08:00' }, 400, 'VALIDATION_FAILED'],
        [{ bus_id: 'bus-1' }, 400, 'VALIDATION_FAILED'],
        [{ seats: 40 }, 400, 'VALIDATION_FAILED'],
        [{ company_id: other.companyId }, 400, 'SESSION_FIELD_REFUSED'],
        [{ price_base: -1 }, 400, 'VALIDATION_FAILED'],
      ];
      // The operation's prose in the OpenAPI document names each code: a client reads there what it means.
      const contract = (await app.request('/api/openapi.json')).body.paths['/dashboard/api/trips'].post
        .description as string;
      const before = await planningSnapshot(app.db, world.companyId);
      for (const [change, status, code] of cases) {
        const response = await plan(
          tripBody({ departure_at: atDamascus(futureDay(30), '06:00').toISOString(), ...change }),
        );
        expect([response.status, response.body.errorCode], JSON.stringify(change)).toEqual([status, code]);
        expect(contract, `${code} is named in the OpenAPI operation`).toContain(code);
      }
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('refuses a trip arriving after 9999-12-31 in Damascus with a 400, not a 500, and changes nothing', async () => {
      const before = await planningSnapshot(app.db, world.companyId);
      const response = await plan(tripBody({ departure_at: '9999-12-31T21:00:00Z' }));
      expect([response.status, response.body.errorCode], response.text).not.toEqual([500, 'INTERNAL_ERROR']);
      expect(response.status, response.text).toBe(400);
      expect(response.body.errorCode).toBe('TRIP_AFTER_LAST_DATE');
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('lets a bus imported before canonical layouts run trips on its recorded capacity until it gets a layout', async () => {
      const [legacy] = await app.db.query<{ id: string }>(
        `insert into buses (company_id, plate_number, capacity, legacy_seat_map) values ($1, $2, 33, true) returning id`,
        [world.companyId, `LEGACY-${randomUUID().slice(0, 6)}`],
      );
      const response = await plan(
        tripBody({
          bus_id: legacy!.id,
          driver_id: null,
          departure_at: atDamascus(futureDay(11), '07:00').toISOString(),
        }),
      );
      expect(response.status, response.text).toBe(201);
      expect(response.body.data.seats_total).toBe(33);
    });

    it('refuses the bus or driver busy in an overlapping window and a departure the route already has', async () => {
      const day = futureDay(14);
      const first = await plan(tripBody({ departure_at: atDamascus(day, '08:00').toISOString() }));
      expect(first.status, first.text).toBe(201);
      const otherBus = await createBus(app.db, world.companyId);
      const otherDriver = await createStaffMember(app.db, world.companyId, 'DRIVER');
      const cases: [Record<string, unknown>, string][] = [
        [{ departure_at: atDamascus(day, '10:00').toISOString(), driver_id: otherDriver.userId }, 'BUS_BUSY'],
        [{ departure_at: atDamascus(day, '06:00').toISOString(), bus_id: otherBus.id }, 'DRIVER_BUSY'],
        [
          {
            departure_at: atDamascus(day, '08:00').toISOString(),
            bus_id: otherBus.id,
            driver_id: otherDriver.userId,
          },
          'DEPARTURE_TAKEN',
        ],
      ];
      await expectConflicts(cases, {
        trip_id: first.body.data.id,
        busy_from: atDamascus(day, '08:00').toISOString(),
      });
      const backToBack = await plan(tripBody({ departure_at: atDamascus(day, '11:30').toISOString() }));
      expect(backToBack.status, backToBack.text).toBe(201);
    });

    it("keeps a late trip's bus and driver busy until its expected arrival: the announced delay or a late departure", async () => {
      const day = futureDay(21);
      const at = (time: string, date = day) => atDamascus(date, time).toISOString();
      const otherBus = await createBus(app.db, world.companyId);
      const otherDriver = await createStaffMember(app.db, world.companyId, 'DRIVER');
      const first = await plan(tripBody({ departure_at: at('08:00') }));
      expect(first.status, first.text).toBe(201);
      const delayed = await dashboard(app, owner(), 'POST', `/trips/${first.body.data.id}/dispatch`, {
        action: 'MARK_DELAYED',
        reason: 'Engine',
        delay_minutes: 180,
      });
      expect(delayed.status, delayed.text).toBe(200);
      // The route takes 210 minutes: planned 08:00-11:30, expected 11:00-14:30.
      const before = await planningSnapshot(app.db, world.companyId);
      const cases: [Record<string, unknown>, string][] = [
        [{ departure_at: at('12:00'), driver_id: otherDriver.userId }, 'BUS_BUSY'],
        [{ departure_at: at('12:00'), bus_id: otherBus.id }, 'DRIVER_BUSY'],
      ];
      await expectConflicts(cases, {
        trip_id: first.body.data.id,
        busy_from: at('08:00'),
        busy_until: at('14:30'),
      });
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
      const afterDelay = await plan(tripBody({ departure_at: at('14:30') }));
      expect(afterDelay.status, afterDelay.text).toBe(201);

      // A trip that left two hours late (10:00) is out until 13:30, its planned duration later.
      const nextDay = addDays(day, 1);
      const late = await plan(tripBody({ departure_at: at('08:00', nextDay) }));
      expect(late.status, late.text).toBe(201);
      await app.db.query(
        `update trips set status = 'DEPARTED', actual_departure_at = departure_at + interval '2 hours' where id = $1`,
        [late.body.data.id],
      );
      await expectConflicts(
        [[{ departure_at: at('12:00', nextDay), driver_id: otherDriver.userId }, 'BUS_BUSY']],
        {
          trip_id: late.body.data.id,
          busy_until: at('13:30', nextDay),
        },
      );
      const afterArrival = await plan(
        tripBody({ departure_at: at('13:30', nextDay), driver_id: otherDriver.userId }),
      );
      expect(afterArrival.status, afterArrival.text).toBe(201);
    });

    it('books the bus once when many plans for overlapping times arrive at once', async () => {
      const bus = await createBus(app.db, world.companyId);
      const day = futureDay(15);
      const answers = await Promise.all(
        ['08:00', '08:30', '09:00', '09:30', '10:00', '10:30'].map((time) =>
          plan(
            tripBody({ bus_id: bus.id, driver_id: null, departure_at: atDamascus(day, time).toISOString() }),
          ),
        ),
      );
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(5);
      await expectNoDoubleBookedBus(app.db, bus.id);
    });

    it('re-plans a trip: driver and fares change any time, its bus and pickup stop only while it has no bookings', async () => {
      const day = futureDay(16);
      const created = await plan(tripBody({ departure_at: atDamascus(day, '08:00').toISOString() }));
      const tripId = created.body.data.id as string;
      const unbooked = await plan(
        tripBody({
          trip_id: tripId,
          departure_at: atDamascus(day, '08:00').toISOString(),
          pickup_stop_id: world.originStop2.id,
        }),
      );
      expect(unbooked.status, unbooked.text).toBe(200);
      expect(unbooked.body.data.pickupLocation.id).toBe(world.originStop2.id);

      await lockSeats(app, await webTraveller(app), tripId, ['1']);
      const secondDriver = await createStaffMember(app.db, world.companyId, 'DRIVER');
      const sameStop = tripBody({
        trip_id: tripId,
        departure_at: atDamascus(day, '08:00').toISOString(),
        pickup_stop_id: world.originStop2.id,
        driver_id: secondDriver.userId,
        price_base: 35_000,
      });
      const driverChange = await plan(sameStop);
      expect(driverChange.status, driverChange.text).toBe(200);
      expect(driverChange.body.data).toMatchObject({
        driver: { id: secondDriver.userId },
        price_base: 35_000,
      });

      const before = await planningSnapshot(app.db, world.companyId);
      const stopChange = await plan({ ...sameStop, pickup_stop_id: world.originStop.id });
      expect([stopChange.status, stopChange.body.errorCode]).toEqual([409, 'TRIP_HAS_BOOKINGS']);
      expect(stopChange.body.details.fields).toEqual(['pickup_stop_id']);
      const moved = await plan({ ...sameStop, departure_at: atDamascus(day, '09:00').toISOString() });
      expect([moved.status, moved.body.errorCode]).toEqual([409, 'TRIP_TIMETABLE_FIXED']);
      const foreign = await plan({ ...sameStop, trip_id: randomUUID() });
      expect([foreign.status, foreign.body.errorCode]).toEqual([404, 'TRIP_NOT_FOUND']);
      const theirs = await dashboard(app, other.sessions.OWNER, 'POST', '/trips', {
        ...sameStop,
        route_id: other.routeId,
        bus_id: other.bus.id,
        driver_id: null,
        pickup_stop_id: other.originStop.id,
      });
      expect([theirs.status, theirs.body.errorCode]).toEqual([404, 'TRIP_NOT_FOUND']);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
    });

    it('judges a re-plan by the bookings made while it waited for its bus, not by what it read before', async () => {
      const day = futureDay(17);
      const created = await plan(tripBody({ departure_at: atDamascus(day, '08:00').toISOString() }));
      const tripId = created.body.data.id as string;
      // The re-plan reads the trip (no bookings yet), then waits for its bus, which the test holds.
      const bus = await holdLock(app.db, `select id from buses where id = '${world.bus.id}' for update`);
      const replan = plan(
        tripBody({
          trip_id: tripId,
          departure_at: atDamascus(day, '08:00').toISOString(),
          pickup_stop_id: world.originStop2.id,
        }),
      );
      await waitersOf(app.db, bus.pid);
      // Meanwhile a traveller locks a seat (or waits for the re-plan to finish, when it holds the trip).
      const seatLock = lockSeats(app, await webTraveller(app), tripId, ['1']);
      await answeredOrWaiting(seatLock, app.db, bus.pid, 2);
      await bus.release();

      const replanned = await replan;
      await seatLock;
      expect([replanned.status, replanned.body.errorCode], replanned.text).toEqual([
        409,
        'TRIP_HAS_BOOKINGS',
      ]);
      const [trip] = await app.db.query<{ pickup_stop_id: string }>(
        `select pickup_stop_id from trips where id = $1`,
        [tripId],
      );
      expect(trip!.pickup_stop_id).toBe(world.originStop.id);
    });

    it("frees the trip's bus and pickup stop once a request's decision deadline passed, before any worker releases it", async () => {
      const manual = await planningWorld(app);
      const body = {
        route_id: manual.routeId,
        bus_id: manual.bus.id,
        driver_id: manual.driverId,
        pickup_stop_id: manual.originStop.id,
        departure_at: atDamascus(futureDay(19), '08:00').toISOString(),
        price_base: 30_000,
        price_vip: 45_000,
      };
      const created = await dashboard(app, manual.sessions.OWNER, 'POST', '/trips', body);
      expect(created.status, created.text).toBe(201);
      const tripId = created.body.data.id as string;
      const calls = await app.db.query<{ id: string }>(
        `select id from trip_stop_calls where trip_id = $1 order by sequence`,
        [tripId],
      );
      await setConfirmation(app.db, manual.companyId, { mode: 'MANUAL_CONFIRM' });
      const trip = {
        companyId: manual.companyId,
        tripId,
        stopCallIds: calls.map((call) => call.id),
        seatCount: manual.bus.seatCount,
      };
      const booked = await bookJourney(app, await mobileTraveller(app), [{ trip }]);
      expect(booked.confirmed.body.data.confirmation.status).toBe('REQUESTED');
      const moved = { ...body, trip_id: tripId, pickup_stop_id: manual.originStop2.id };

      // Awaiting the company's decision, the request holds its seat: the pickup stop is fixed.
      const before = await planningSnapshot(app.db, manual.companyId);
      const refused = await dashboard(app, manual.sessions.OWNER, 'POST', '/trips', moved);
      expect([refused.status, refused.body.errorCode]).toEqual([409, 'TRIP_HAS_BOOKINGS']);
      expect(await planningSnapshot(app.db, manual.companyId)).toEqual(before);

      // The company never decided: the window ran out a minute ago, and no worker has released it yet.
      await decisionWindowRanOut(app.db, [booked.journeyId]);
      const seats = await app.request(`/api/trips/${tripId}/seats`);
      expect(seats.body.data.seats.every((seat: { available: boolean }) => seat.available)).toBe(true);
      const replanned = await dashboard(app, manual.sessions.OWNER, 'POST', '/trips', moved);
      expect([replanned.status, replanned.body.errorCode], replanned.text).toEqual([200, undefined]);
      expect(replanned.body.data.pickupLocation.id).toBe(manual.originStop2.id);
    });

    it('plans one trip when two plans of the same departure of a route, on other buses and drivers, arrive at once', async () => {
      const departure = atDamascus(futureDay(18), '08:00').toISOString();
      const crews = await Promise.all(
        [0, 1].map(async () => ({
          bus_id: (await createBus(app.db, world.companyId)).id,
          driver_id: (await createStaffMember(app.db, world.companyId, 'DRIVER')).userId,
        })),
      );
      // Both plans pass their checks before either writes its trip: the test holds the trips table.
      const trips = await holdLock(app.db, 'lock table trips in share mode');
      const answers = Promise.all(crews.map((crew) => plan(tripBody({ ...crew, departure_at: departure }))));
      await waitersOf(app.db, trips.pid, 2);
      await trips.release();

      const statuses = (await answers).map((answer) => [answer.status, answer.body.errorCode ?? null]);
      expect(statuses.sort()).toEqual([
        [201, null],
        [409, 'TRIP_CONFLICT'],
      ]);
      const planned = await app.db.query(
        `select id from trips where route_id = $1 and departure_at = $2 and status <> 'CANCELLED'`,
        [world.routeId, departure],
      );
      expect(planned).toHaveLength(1);
    });

    it('refuses a plan that reaches the company after its suspension committed meanwhile, changing nothing', async () => {
      const suspended = await planningWorld(app);
      const before = await planningSnapshot(app.db, suspended.companyId);
      const refused = await suspendedWhileWriting(app.db, suspended.companyId, () =>
        plan(
          tripBody({
            route_id: suspended.routeId,
            bus_id: suspended.bus.id,
            driver_id: suspended.driverId,
            pickup_stop_id: suspended.originStop.id,
            departure_at: atDamascus(futureDay(21), '08:00').toISOString(),
          }),
          suspended.sessions.DISPATCHER,
        ),
      );
      expect([refused.status, refused.body.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
      expect(await planningSnapshot(app.db, suspended.companyId)).toEqual(before);
    });

    it('refuses a DISPATCHER demoted to STAFF while the plan waits for the company 403 ROLE_NOT_ALLOWED, changing nothing', async () => {
      const demoted = await planningWorld(app);
      const before = await planningSnapshot(app.db, demoted.companyId);
      const dispatcher = demoted.sessions.DISPATCHER;
      // Only the demotion itself changed.
      const demotedRole = (members: unknown[]) =>
        members.map((m) =>
          (m as { id: string }).id === dispatcher.membershipId ? { ...(m as object), role: 'STAFF' } : m,
        );
      const refused = await demotedWhileWriting(
        app.db,
        demoted.companyId,
        dispatcher.membershipId,
        'STAFF',
        () =>
          plan(
            tripBody({
              route_id: demoted.routeId,
              bus_id: demoted.bus.id,
              driver_id: demoted.driverId,
              pickup_stop_id: demoted.originStop.id,
              departure_at: atDamascus(futureDay(22), '08:00').toISOString(),
            }),
            dispatcher,
          ),
      );
      expect([refused.status, refused.body.errorCode, refused.body.details], refused.text).toEqual([
        403,
        'ROLE_NOT_ALLOWED',
        { role: 'STAFF', allowedRoles: ['OWNER', 'ADMIN', 'DISPATCHER'] },
      ]);
      expect(await planningSnapshot(app.db, demoted.companyId)).toEqual({
        ...before,
        members: demotedRole(before.members),
      });
    });

    it('refuses STAFF, ACCOUNTANT, a missing CSRF header and a suspended company, changing nothing', async () => {
      const before = await planningSnapshot(app.db, world.companyId);
      const body = tripBody({ departure_at: atDamascus(futureDay(20), '08:00').toISOString() });
      for (const role of ['STAFF', 'ACCOUNTANT'] as const) {
        const response = await plan(body, world.sessions[role]);
        expect([response.status, response.body.errorCode]).toEqual([403, 'ROLE_NOT_ALLOWED']);
      }
      const noCsrf = await dashboard(app, owner(), 'POST', '/trips', body, { Cookie: owner().cookie });
      expect([noCsrf.status, noCsrf.body.errorCode]).toEqual([403, 'CSRF_TOKEN_INVALID']);
      expect(await planningSnapshot(app.db, world.companyId)).toEqual(before);
      const suspended = await planningWorld(app, { status: 'SUSPENDED' });
      const refused = await dashboard(app, suspended.sessions.DISPATCHER, 'POST', '/trips', {
        ...body,
        route_id: suspended.routeId,
        bus_id: suspended.bus.id,
        driver_id: null,
        pickup_stop_id: suspended.originStop.id,
      });
      expect([refused.status, refused.body.errorCode]).toEqual([403, 'COMPANY_SUSPENDED']);
      expect((await planningSnapshot(app.db, suspended.companyId)).trips).toEqual([]);
    });
  });
});
