import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../domain/analytics.js';
import { commitScheduleBatch } from '../../../db/writes/planning/schedule-batches.js';
import { claimTripSchedule } from '../../../db/writes/planning/trip-schedules.js';
import { searchAttributeKeys, workflowIds } from '../../../workflows/shared.js';
import { bookingBody, lockSeats, postBooking } from '../../support/bookings.js';
import { atDamascus, createBus, createTrip, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { eventually, waitUntil, webTraveller } from '../../support/journeys.js';
import { createStaffMember } from '../../support/staff.js';
import { demotedWhileWriting, signedOutWhileWriting } from '../../support/suspension.js';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { signedInAdmin } from '../admin/helpers.js';
import {
  dashboard,
  expectNoDoubleBookedBus,
  planningSnapshot,
  planningWorld,
  scheduleTrips,
  type PlanningWorld,
} from '../../support/planning.js';

const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];

/** The first date at least `daysAhead` days from today (Damascus) that falls on `weekday` (0 = Sunday). */
function nextWeekday(weekday: number, daysAhead = 3): string {
  for (let day = daysAhead; ; day++) {
    const date = futureDay(day);
    if (new Date(`${date}T12:00:00Z`).getUTCDay() === weekday) return date;
  }
}

describe('trip schedules: preview, commit and the trip-schedule workflow', () => {
  // Batches of 7 trips, so a schedule of a few weeks runs several batch transactions.
  const app = useTestApp({ SCHEDULE_BATCH_SIZE: 7, SEARCH_RATE_LIMIT_PER_MINUTE: 0 });
  let world: PlanningWorld;
  let other: PlanningWorld;

  beforeAll(async () => {
    world = await planningWorld(app);
    other = await planningWorld(app);
  });

  /**
   * A daily week from `start`. A test that checks dates or counts reads the day once and passes it
   * here and to its expectations: read again, after midnight (21:00 UTC), it is the next day.
   */
  const scheduleBody = (w: PlanningWorld, change: Record<string, unknown> = {}, start = futureDay(3)) => ({
    route_id: w.routeId,
    pickup_stop_id: w.originStop.id,
    bus_id: w.bus.id,
    driver_id: w.driverId,
    start_date: start,
    end_date: addDays(start, 6),
    departure_time: '08:00',
    days_of_week: ALL_DAYS,
    price_base: 25_000,
    price_vip: null,
    notes: 'Daily morning service',
    commit: true,
    ...change,
  });
  const post = (w: PlanningWorld, body: unknown, session = w.sessions.OWNER) =>
    dashboard(app, session, 'POST', '/trip-schedules', body);
  /** A trip of another company-owned bus, blocking the world's bus, driver or route at a time. */
  const blockingTrip = (
    w: PlanningWorld,
    options: { busId: string; day: string; time: string; driverId?: string },
  ) =>
    createTrip(app.db, {
      companyId: w.companyId,
      busId: options.busId,
      routeId: w.routeId,
      departAt: atDamascus(options.day, options.time),
      calls: [
        { stop: w.originStop, at: 0 },
        { stop: w.destinationStop, at: 60 },
      ],
    }).then(async (trip) => {
      if (options.driverId)
        await app.db.query('update trips set driver_id = $2 where id = $1', [trip.id, options.driverId]);
      return trip;
    });

  it('previews every trip and every conflict (bus, driver, departure) and writes nothing', async () => {
    const w = await planningWorld(app);
    const start = futureDay(3);
    const otherBus = await createBus(app.db, w.companyId);
    const bus = await blockingTrip(w, { busId: w.bus.id, day: addDays(start, 1), time: '09:00' });
    const driver = await blockingTrip(w, {
      busId: otherBus.id,
      day: addDays(start, 2),
      time: '10:00',
      driverId: w.driverId,
    });
    const departure = await blockingTrip(w, {
      busId: (await createBus(app.db, w.companyId)).id,
      day: addDays(start, 3),
      time: '08:00',
    });
    const before = await planningSnapshot(app.db, w.companyId);
    const { commit: _commit, ...previewBody } = scheduleBody(w, {}, start);
    const response = await post(w, previewBody, w.sessions.DISPATCHER);
    expect(response.status, response.text).toBe(200);
    expect(response.body.preview).toBe(true);
    const { trips, conflicts, summary } = response.body.data;
    expect(trips).toHaveLength(7);
    expect(trips[0]).toEqual({
      operating_date: start,
      departure_at: atDamascus(start, '08:00').toISOString(),
      arrival_at: atDamascus(start, '11:30').toISOString(),
      conflicts: [],
    });
    expect(
      conflicts.map((conflict: { kind: string; trip_id: string }) => [conflict.kind, conflict.trip_id]),
    ).toEqual([
      ['BUS_BUSY', bus.id],
      ['DRIVER_BUSY', driver.id],
      ['DEPARTURE_TAKEN', departure.id],
    ]);
    expect(trips.map((trip: { conflicts: string[] }) => trip.conflicts)).toEqual([
      [],
      ['BUS_BUSY'],
      ['DRIVER_BUSY'],
      ['DEPARTURE_TAKEN'],
      [],
      [],
      [],
    ]);
    expect(summary).toEqual({ trips_planned: 7, conflicting: 3, would_create: 4 });
    const explicit = await post(w, { ...previewBody, commit: false });
    expect(explicit.body.data.summary).toEqual(summary);
    expect(await planningSnapshot(app.db, w.companyId)).toEqual(before);
  });

  it('commits in batches through the workflow: 201 with the schedule, trips with their stop calls, progress recorded', async () => {
    const start = futureDay(3);
    const body = scheduleBody(
      world,
      { departure_time: ['16:00', '08:00'], end_date: addDays(start, 13) },
      start,
    );
    const response = await post(world, body);
    expect(response.status, response.text).toBe(201);
    const schedule = response.body.data;
    expect(schedule).toMatchObject({
      status: 'COMPLETED',
      route_id: world.routeId,
      bus_id: world.bus.id,
      driver_id: world.driverId,
      pickup_stop_id: world.originStop.id,
      start_date: start,
      end_date: addDays(start, 13),
      departure_time: '08:00',
      departure_times: ['08:00', '16:00'],
      days_of_week: ALL_DAYS,
      duration_minutes: 210,
      price_base: 25_000,
      notes: 'Daily morning service',
      progress: { batches_total: 4, batches_done: 4, trips_planned: 28, trips_created: 28, trips_skipped: 0 },
      failure_reason: null,
      conflicts: [],
    });
    const trips = await scheduleTrips(app.db, schedule.id);
    expect(trips).toHaveLength(28);
    expect(trips.every((trip) => trip.calls === 3 && trip.driver_id === world.driverId)).toBe(true);
    // Who committed it, as a trip's creation is recorded: one audit row, with the claim.
    const audited = await app.db.query<{
      actor_kind: string;
      actor_id: string;
      action: string;
      details: object;
    }>(
      `select actor_kind, actor_id, action, details from audit_log where target_kind = 'trip_schedule' and target_id = $1`,
      [schedule.id],
    );
    expect(audited).toEqual([
      {
        actor_kind: 'STAFF',
        actor_id: world.sessions.OWNER.staffUserId,
        action: 'company.trip-schedule.commit',
        details: expect.objectContaining({
          companyId: world.companyId,
          tripsPlanned: 28,
          tripsSkippedAtClaim: 0,
        }),
      },
    ]);
    expect(new Set(trips.map((trip) => trip.departure_at)).size).toBe(28);
    expect(trips[0]!.operating_date).toBe(start);

    const listed = await dashboard(app, world.sessions.DISPATCHER, 'GET', '/trip-schedules');
    expect(listed.status).toBe(200);
    expect(listed.body.data[0]).toMatchObject({ id: schedule.id, status: 'COMPLETED' });
    const total = listed.body.pagination.total as number;
    const past = await dashboard(
      app,
      world.sessions.DISPATCHER,
      'GET',
      `/trip-schedules?offset=${total + 5}`,
    );
    expect(past.body).toMatchObject({ data: [], pagination: { total } });
    const one = await dashboard(app, world.sessions.ADMIN, 'GET', `/trip-schedules/${schedule.id}`);
    expect(one.body.data).toMatchObject({ id: schedule.id, workflow_progress: null });

    // The run writes COMPLETED in its last activity and closes just after: wait for the close.
    const described = await eventually(
      () => app.temporal.workflow.getHandle(workflowIds.tripSchedule(schedule.id)).describe(),
      (run) => run.status.name !== 'RUNNING',
    );
    expect(described.status.name).toBe('COMPLETED');
    expect(described.typedSearchAttributes.get(searchAttributeKeys.processStatus)).toBe('COMPLETED');
    expect(described.typedSearchAttributes.get(searchAttributeKeys.companyIds)).toEqual([world.companyId]);
    await expectNoDoubleBookedBus(app.db, world.bus.id);
  });

  it('computes operating dates and days of the week in Damascus', async () => {
    const w = await planningWorld(app);
    const monday = nextWeekday(1);
    const response = await post(
      w,
      scheduleBody(w, {
        start_date: monday,
        end_date: monday,
        departure_time: '01:00',
        days_of_week: [1],
      }),
    );
    expect(response.status, response.text).toBe(201);
    const trips = await scheduleTrips(app.db, response.body.data.id);
    expect(trips.length).toBeGreaterThanOrEqual(1);
    expect(trips[0]!.operating_date).toBe(monday);
    expect(new Date(trips[0]!.departure_at).toISOString()).toBe(atDamascus(monday, '01:00').toISOString());
    expect(new Date(trips[0]!.departure_at).getUTCDay()).toBe(0);
  });

  it('refuses conflicts without skip_conflicts (409 naming them, nothing created) and skips them when told', async () => {
    const w = await planningWorld(app);
    const start = futureDay(3);
    const blocked = addDays(start, 2);
    const blocking = await blockingTrip(w, { busId: w.bus.id, day: blocked, time: '07:30' });
    const before = await planningSnapshot(app.db, w.companyId);
    const refused = await post(w, scheduleBody(w, {}, start));
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'SCHEDULE_CONFLICTS']);
    expect(refused.body.details).toEqual({
      total: 1,
      conflicts: [
        expect.objectContaining({
          kind: 'BUS_BUSY',
          trip_id: blocking.id,
          departure_at: atDamascus(blocked, '08:00').toISOString(),
        }),
      ],
    });
    expect(await planningSnapshot(app.db, w.companyId)).toEqual(before);

    const skipped = await post(w, scheduleBody(w, { skip_conflicts: true }, start));
    expect(skipped.status, skipped.text).toBe(201);
    expect(skipped.body.data.progress).toMatchObject({
      trips_planned: 7,
      trips_created: 6,
      trips_skipped: 1,
    });
    expect(skipped.body.data.conflicts).toEqual([
      expect.objectContaining({ kind: 'BUS_BUSY', trip_id: blocking.id }),
    ]);
    const trips = await scheduleTrips(app.db, skipped.body.data.id);
    expect(trips.map((trip) => trip.operating_date)).not.toContain(blocked);
    await expectNoDoubleBookedBus(app.db, w.bus.id);
  });

  it('never creates an empty schedule (422), whether no day matches or every trip conflicts', async () => {
    const w = await planningWorld(app);
    const monday = nextWeekday(1);
    const before = await planningSnapshot(app.db, w.companyId);
    const noDay = await post(w, scheduleBody(w, { start_date: monday, end_date: monday, days_of_week: [2] }));
    expect([noDay.status, noDay.body.errorCode]).toEqual([422, 'SCHEDULE_EMPTY']);
    await blockingTrip(w, { busId: w.bus.id, day: monday, time: '09:00' });
    const snapshot = await planningSnapshot(app.db, w.companyId);
    const allConflicting = await post(
      w,
      scheduleBody(w, { start_date: monday, end_date: monday, skip_conflicts: true }),
    );
    expect([allConflicting.status, allConflicting.body.errorCode]).toEqual([422, 'SCHEDULE_EMPTY']);
    expect(await planningSnapshot(app.db, w.companyId)).toEqual(snapshot);
    expect(before.schedules).toEqual([]);
  });

  it('refuses bad input with a clear 400 and changes nothing', async () => {
    const w = await planningWorld(app);
    const start = futureDay(3);
    const day = (offset: number) => addDays(start, offset);
    const cases: [Record<string, unknown>, string][] = [
      [{ end_date: day(180) }, 'SCHEDULE_RANGE_TOO_LONG'],
      [{ end_date: day(-1) }, 'END_BEFORE_START'],
      [{ start_date: day(-4), end_date: day(1) }, 'START_DATE_IN_PAST'],
      [{ days_of_week: [] }, 'VALIDATION_FAILED'],
      [{ days_of_week: [1, 1] }, 'VALIDATION_FAILED'],
      [{ days_of_week: [7] }, 'VALIDATION_FAILED'],
      [{ departure_time: '25:00' }, 'VALIDATION_FAILED'],
      [{ departure_time: [] }, 'VALIDATION_FAILED'],
      [{ duration_minutes: 0 }, 'VALIDATION_FAILED'],
      [{ duration_minutes: 11 }, 'DURATION_TOO_SHORT'],
      [{ departure_time: ['08:00', '10:00'] }, 'SCHEDULE_OVERLAPS_ITSELF'],
      [{ start_date: '2026-02-30' }, 'VALIDATION_FAILED'],
      [{ route_id: 'route-1' }, 'VALIDATION_FAILED'],
      [{ bus_id: '123' }, 'VALIDATION_FAILED'],
      [{ frequency: 'daily' }, 'VALIDATION_FAILED'],
      [{ company_id: other.companyId }, 'SESSION_FIELD_REFUSED'],
      [{ commit: 'yes' }, 'VALIDATION_FAILED'],
    ];
    // The operation's prose in the OpenAPI document names each code: a client reads there what it means.
    const contract = (await app.request('/api/openapi.json')).body.paths['/dashboard/api/trip-schedules'].post
      .description as string;
    const before = await planningSnapshot(app.db, w.companyId);
    for (const [change, code] of cases) {
      const response = await post(w, scheduleBody(w, change, start));
      expect([response.status, response.body.errorCode], JSON.stringify(change)).toEqual([400, code]);
      expect(contract, `${code} is named in the OpenAPI operation`).toContain(code);
    }
    expect(await planningSnapshot(app.db, w.companyId)).toEqual(before);
    const longest = await post(w, scheduleBody(w, { start_date: start, end_date: day(179), commit: false }));
    expect(longest.status, longest.text).toBe(200);
    expect(longest.body.data.summary.trips_planned).toBe(180);
  });

  it('refuses a schedule whose trips would arrive after 9999-12-31 in Damascus (400), never leaving it COMMITTING', async () => {
    const w = await planningWorld(app);
    const lastDays = {
      driver_id: null,
      start_date: '9999-12-30',
      end_date: '9999-12-31',
      departure_time: '23:30',
    };
    const preview = await post(w, scheduleBody(w, { ...lastDays, commit: false }));
    expect([preview.status, preview.body.errorCode], preview.text).toEqual([400, 'TRIP_AFTER_LAST_DATE']);
    const response = await post(w, scheduleBody(w, lastDays));
    // A schedule accepted for these trips would retry its batch: give it time for a few attempts.
    if (response.status === 202) await new Promise((resolve) => setTimeout(resolve, 8000));
    const [row] = await app.db.query<{ status: string; trips_created: number } | undefined>(
      'select status, trips_created from trip_schedules where bus_id = $1',
      [w.bus.id],
    );
    expect(
      { answer: response.status, stored: row ?? null },
      `${response.text}: the schedule's batch cannot insert its trips and is retried for ever`,
    ).not.toMatchObject({ answer: 202, stored: { status: 'COMMITTING' } });
    expect(response.status, response.text).toBe(400);
    expect(response.body.errorCode).toBe('TRIP_AFTER_LAST_DATE');
  }, 30_000);

  /**
   * A schedule's claim row as the workflow's claim writes it (no driver, one batch of 7, skip_conflicts
   * false), claimed `claimedDaysAgo` days ago: its batch is then run directly, as the activity runs it.
   */
  const claimedSchedule = async (
    w: PlanningWorld,
    claim: {
      startDate: string;
      endDate: string;
      departureTime: string;
      tripsPlanned: number;
      daysOfWeek?: number[];
      claimedDaysAgo?: number;
    },
  ) => {
    const scheduleId = randomUUID();
    await app.db.query(
      `insert into trip_schedules (id, company_id, route_id, pickup_stop_id, bus_id, start_date, end_date,
          departure_times, days_of_week, duration_minutes, price_base, skip_conflicts, plan_from, batch_size,
          batches_total, trips_planned, created_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 210, 25000, false, now() - $10 * interval '1 day', 7, 1, $11, $12)`,
      [
        scheduleId,
        w.companyId,
        w.routeId,
        w.originStop.id,
        w.bus.id,
        claim.startDate,
        claim.endDate,
        [claim.departureTime],
        claim.daysOfWeek ?? ALL_DAYS,
        claim.claimedDaysAgo ?? 0,
        claim.tripsPlanned,
        w.sessions.OWNER.staffUserId,
      ],
    );
    return scheduleId;
  };

  it('skips the departures already past when its batch runs late (worker down since the claim): DEPARTURE_IN_PAST', async () => {
    const w = await planningWorld(app);
    // Claimed four days ago for the three days before today and the three after (today's weekday left
    // out, so no departure is due while the test runs); the batch only runs now.
    const base = futureDay(0);
    const on = (offset: number) => addDays(base, offset);
    const today = new Date(`${base}T12:00:00Z`).getUTCDay();
    const scheduleId = await claimedSchedule(w, {
      startDate: on(-3),
      endDate: on(3),
      departureTime: '08:00',
      daysOfWeek: ALL_DAYS.filter((day) => day !== today),
      tripsPlanned: 6,
      claimedDaysAgo: 4,
    });
    const progress = await commitScheduleBatch(app.db, { scheduleId, batchIndex: 0 });
    expect(progress).toMatchObject({ status: 'COMPLETED', batchesDone: 1, tripsCreated: 3, tripsSkipped: 3 });
    const trips = await scheduleTrips(app.db, scheduleId);
    expect(trips.map((trip) => trip.operating_date)).toEqual([on(1), on(2), on(3)]);
    expect(trips.filter((trip) => new Date(trip.departure_at).getTime() <= Date.now())).toEqual([]);
    const read = await dashboard(app, w.sessions.DISPATCHER, 'GET', `/trip-schedules/${scheduleId}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toMatchObject({
      status: 'COMPLETED',
      failure_reason: null,
      progress: { batches_done: 1, trips_planned: 6, trips_created: 3, trips_skipped: 3 },
    });
    expect(read.body.data.conflicts).toEqual(
      [-3, -2, -1].map((day) => ({
        kind: 'DEPARTURE_IN_PAST',
        departure_at: atDamascus(on(day), '08:00').toISOString(),
        trip_id: null,
        schedule_id: null,
        busy_from: atDamascus(on(day), '08:00').toISOString(),
        busy_until: atDamascus(on(day), '11:30').toISOString(),
      })),
    );
  });

  /**
   * The workflow's claim of a daily 08:00 schedule (start_date to end_date, batches of 7, no driver), run
   * directly as its activity runs it; its batches are then run one by one with runBatches.
   */
  const claimDirectly = (
    w: PlanningWorld,
    claim: { startDate: string; endDate: string; departureTime?: string; skipConflicts: boolean },
  ) =>
    claimTripSchedule(app.db, {
      scheduleId: randomUUID(),
      companyId: w.companyId,
      staffUserId: w.sessions.OWNER.staffUserId,
      actor: {
        sessionId: w.sessions.OWNER.sessionId,
        membershipId: w.sessions.OWNER.membershipId,
        staffUserId: w.sessions.OWNER.staffUserId,
        allowedRoles: ['OWNER', 'ADMIN', 'DISPATCHER'],
      },
      request: {
        routeId: w.routeId,
        pickupStopId: w.originStop.id,
        busId: w.bus.id,
        driverId: null,
        startDate: claim.startDate,
        endDate: claim.endDate,
        departureTimes: [claim.departureTime ?? '08:00'],
        daysOfWeek: ALL_DAYS,
        priceBase: 25_000,
        priceVip: null,
        notes: '',
      },
      skipConflicts: claim.skipConflicts,
      batchSize: 7,
      notBefore: Date.now(),
    });
  const runBatches = async (scheduleId: string, batches: number) => {
    for (let batchIndex = 0; batchIndex < batches; batchIndex++)
      await commitScheduleBatch(app.db, { scheduleId, batchIndex });
  };

  it('frees at once what a departure skipped at the claim would have taken: another trip may take the bus meanwhile', async () => {
    const w = await planningWorld(app);
    const start = futureDay(3);
    const day = addDays(start, 9);
    // The bus is out 07:30-08:30 that day: the schedule's 08:00 departure (until 11:30) is skipped.
    const blocking = await blockingTrip(w, { busId: w.bus.id, day, time: '07:30' });
    const claim = await claimDirectly(w, {
      startDate: start,
      endDate: addDays(start, 13),
      skipConflicts: true,
    });
    // While the schedule commits, the bus is free that day from 08:30: a dispatcher plans a 10:00 trip.
    const manual = await dashboard(app, w.sessions.DISPATCHER, 'POST', '/trips', {
      route_id: w.routeId,
      bus_id: w.bus.id,
      driver_id: null,
      pickup_stop_id: w.originStop.id,
      departure_at: atDamascus(day, '10:00').toISOString(),
      price_base: 30_000,
      price_vip: null,
    });
    expect([manual.status, manual.body.errorCode], manual.text).toEqual([201, undefined]);
    // The claim counted and listed the skipped departure; its batches leave it out for good.
    expect(claim).toMatchObject({ status: 'COMMITTING', tripsPlanned: 14, tripsSkipped: 1 });
    const listed = await dashboard(app, w.sessions.OWNER, 'GET', `/trip-schedules/${claim.scheduleId}`);
    expect(listed.body.data.conflicts).toEqual([
      expect.objectContaining({ kind: 'BUS_BUSY', trip_id: blocking.id }),
    ]);
    await runBatches(claim.scheduleId, 2);
    const read = await dashboard(app, w.sessions.OWNER, 'GET', `/trip-schedules/${claim.scheduleId}`);
    expect(read.body.data).toMatchObject({
      status: 'COMPLETED',
      failure_reason: null,
      progress: { trips_planned: 14, trips_created: 13, trips_skipped: 1 },
    });
    expect(read.body.data.conflicts).toEqual([
      expect.objectContaining({ kind: 'BUS_BUSY', trip_id: blocking.id }),
    ]);
    const trips = await scheduleTrips(app.db, claim.scheduleId);
    expect(trips.map((trip) => trip.operating_date)).not.toContain(day);
    await expectNoDoubleBookedBus(app.db, w.bus.id);
  });

  it('skips only the departure a delay announced after the claim runs into, and creates the rest of the schedule', async () => {
    const w = await planningWorld(app);
    const start = futureDay(3);
    const day = addDays(start, 9);
    // 08:00-09:00 on `day` (batch 1): no conflict with the 09:30 departures when claimed.
    const earlier = await blockingTrip(w, { busId: w.bus.id, day, time: '08:00' });
    const claim = await claimDirectly(w, {
      startDate: start,
      endDate: addDays(start, 27),
      departureTime: '09:30',
      skipConflicts: false,
    });
    expect(claim).toMatchObject({ status: 'COMMITTING', tripsPlanned: 28, tripsSkipped: 0 });
    await runBatches(claim.scheduleId, 1);
    const delayed = await dashboard(app, w.sessions.DISPATCHER, 'POST', `/trips/${earlier.id}/dispatch`, {
      action: 'MARK_DELAYED',
      reason: 'Road works',
      delay_minutes: 60,
    });
    expect(delayed.status, delayed.text).toBe(200);
    await runBatches(claim.scheduleId, 4);
    const read = await dashboard(app, w.sessions.OWNER, 'GET', `/trip-schedules/${claim.scheduleId}`);
    expect(read.body.data).toMatchObject({
      status: 'COMPLETED',
      failure_reason: null,
      progress: { batches_done: 4, trips_planned: 28, trips_created: 27, trips_skipped: 1 },
    });
    expect(read.body.data.conflicts).toEqual([
      expect.objectContaining({
        kind: 'BUS_BUSY',
        trip_id: earlier.id,
        departure_at: atDamascus(day, '09:30').toISOString(),
      }),
    ]);
    const trips = await scheduleTrips(app.db, claim.scheduleId);
    expect(trips).toHaveLength(27);
    expect(trips.map((trip) => trip.operating_date)).not.toContain(day);
    await expectNoDoubleBookedBus(app.db, w.bus.id);
  });

  it('ends FAILED at its batch a schedule claimed for trips after 9999-12-31 before the claim refused them', async () => {
    const w = await planningWorld(app);
    const scheduleId = await claimedSchedule(w, {
      startDate: '9999-12-30',
      endDate: '9999-12-31',
      departureTime: '23:30',
      tripsPlanned: 2,
    });
    const progress = await commitScheduleBatch(app.db, { scheduleId, batchIndex: 0 });
    expect(progress).toMatchObject({
      status: 'FAILED',
      failureReason: 'TRIP_AFTER_LAST_DATE',
      batchesDone: 0,
      tripsCreated: 0,
    });
    expect(await scheduleTrips(app.db, scheduleId)).toEqual([]);
  });

  it("answers 404 for another company's route, bus, driver or schedule, and keeps schedules to planners", async () => {
    const mine = await post(
      world,
      scheduleBody(world, { start_date: futureDay(40), end_date: futureDay(41) }),
    );
    expect(mine.status, mine.text).toBe(201);
    const before = await planningSnapshot(app.db, other.companyId);
    for (const [change, code] of [
      [{ route_id: world.routeId, pickup_stop_id: world.originStop.id }, 'ROUTE_NOT_FOUND'],
      [{ bus_id: world.bus.id }, 'BUS_NOT_FOUND'],
      [{ driver_id: world.driverId }, 'DRIVER_NOT_FOUND'],
    ] as const) {
      const response = await post(other, scheduleBody(other, change));
      expect([response.status, response.body.errorCode]).toEqual([404, code]);
    }
    expect(await planningSnapshot(app.db, other.companyId)).toEqual(before);
    const theirs = await dashboard(app, other.sessions.OWNER, 'GET', `/trip-schedules/${mine.body.data.id}`);
    expect([theirs.status, theirs.body.errorCode]).toEqual([404, 'SCHEDULE_NOT_FOUND']);
    const list = await dashboard(app, other.sessions.OWNER, 'GET', '/trip-schedules');
    expect(list.body.data.map((schedule: { id: string }) => schedule.id)).not.toContain(mine.body.data.id);
    expect((await dashboard(app, world.sessions.OWNER, 'GET', '/trip-schedules/not-a-uuid')).status).toBe(
      400,
    );
    for (const role of ['STAFF', 'ACCOUNTANT'] as const) {
      const read = await dashboard(app, world.sessions[role], 'GET', '/trip-schedules');
      expect([read.status, read.body.errorCode]).toEqual([403, 'ROLE_NOT_ALLOWED']);
      const write = await post(world, scheduleBody(world, { commit: false }), world.sessions[role]);
      expect([write.status, write.body.errorCode]).toEqual([403, 'ROLE_NOT_ALLOWED']);
    }
  });

  it('refuses a write without the CSRF header and a suspended company', async () => {
    const w = await planningWorld(app);
    const noCsrf = await dashboard(app, w.sessions.OWNER, 'POST', '/trip-schedules', scheduleBody(w), {
      Cookie: w.sessions.OWNER.cookie,
    });
    expect([noCsrf.status, noCsrf.body.errorCode]).toEqual([403, 'CSRF_TOKEN_INVALID']);
    const suspended = await planningWorld(app, { status: 'SUSPENDED' });
    const refused = await post(suspended, scheduleBody(suspended));
    expect([refused.status, refused.body.errorCode]).toEqual([403, 'COMPANY_SUSPENDED']);
    expect((await planningSnapshot(app.db, suspended.companyId)).trips).toEqual([]);
    expect((await planningSnapshot(app.db, w.companyId)).schedules).toEqual([]);
  });

  /** An administrator's suspension of the company (POST /admin/api/companies/{id}/suspend). */
  const suspend = async (w: PlanningWorld) =>
    (await signedInAdmin(app, { role: 'ADMIN' })).browser.send('POST', `/companies/${w.companyId}/suspend`, {
      reason: 'Fraud investigation',
    });

  it('refuses the claim of a company suspended while its commit waited (403 COMPANY_SUSPENDED, nothing created)', async () => {
    const w = await planningWorld(app);
    const held = await holdLock(app.db, `select id from companies where id = '${w.companyId}' for update`);
    let suspension, committing;
    try {
      suspension = suspend(w);
      await waitersOf(app.db, held.pid, 1);
      // The commit passed the authenticator before the suspension committed; its claim comes after it.
      committing = post(w, scheduleBody(w));
      await waitersOf(app.db, held.pid, 2);
    } finally {
      await held.release();
    }
    expect((await suspension).status).toBe(200);
    const answer = await committing;
    expect([answer.status, answer.body.errorCode], answer.text).toEqual([403, 'COMPANY_SUSPENDED']);
    const after = await planningSnapshot(app.db, w.companyId);
    expect({ schedules: after.schedules, trips: after.trips }).toEqual({ schedules: [], trips: [] });
  });

  it.each([
    ['demoted to STAFF', [403, 'ROLE_NOT_ALLOWED']],
    ['signed out', [401, 'INVALID_CREDENTIAL']],
  ] as const)(
    'refuses the claim of a DISPATCHER %s while the commit waited (%j, nothing created)',
    async (change, answer) => {
      const w = await planningWorld(app);
      const dispatcher = w.sessions.DISPATCHER;
      const commit = () => post(w, scheduleBody(w), dispatcher);
      const refused =
        change === 'signed out'
          ? await signedOutWhileWriting(app.db, w.companyId, dispatcher.sessionId, commit)
          : await demotedWhileWriting(app.db, w.companyId, dispatcher.membershipId, 'STAFF', commit);
      expect([refused.status, refused.body.errorCode], refused.text).toEqual(answer);
      const after = await planningSnapshot(app.db, w.companyId);
      expect({ schedules: after.schedules, trips: after.trips }).toEqual({ schedules: [], trips: [] });
    },
  );

  it('answers 503 SCHEDULE_UNAVAILABLE to a commit whose claim outlasts the wait and writes nothing: the retry commits', async () => {
    const w = await planningWorld(app);
    // Something else holds the bus (a layout save, another batch) for longer than the API waits for the claim.
    const held = await holdLock(app.db, `select id from buses where id = '${w.bus.id}' for update`);
    let answer;
    try {
      const committing = post(w, scheduleBody(w));
      await waitersOf(app.db, held.pid, 1);
      answer = await committing;
    } finally {
      await held.release();
    }
    expect([answer.status, answer.body.errorCode], answer.text).toEqual([503, 'SCHEDULE_UNAVAILABLE']);
    // The workflow that POST started claims once the bus is free, past its deadline: refused, nothing written.
    const started = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const run of app.temporal.workflow.list({
          query: `WorkflowType = 'tripSchedule' AND CompanyId = '${w.companyId}'`,
        }))
          ids.push(run.workflowId);
        return ids;
      },
      (ids) => ids.length > 0,
    );
    expect(started).toHaveLength(1);
    const outcome = await app.temporal.workflow.getHandle(started[0]!).result();
    expect(outcome.phase).toBe('REFUSED');
    const after = await planningSnapshot(app.db, w.companyId);
    expect({ schedules: after.schedules, trips: after.trips }).toEqual({ schedules: [], trips: [] });
    const retry = await post(w, scheduleBody(w));
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.data.progress).toMatchObject({ trips_created: 7, trips_skipped: 0 });
  }, 60_000);

  it('ends FAILED with COMPANY_SUSPENDED a schedule whose company is suspended between batches: no trip after', async () => {
    const w = await planningWorld(app);
    // Batch 0 waits inside its transaction (its trips' stop calls name this stop) until released.
    const stop = await holdLock(
      app.db,
      `select id from stops where id = '${w.destinationStop.id}' for update`,
    );
    let suspension, committing;
    try {
      const start = futureDay(3);
      committing = post(w, scheduleBody(w, { end_date: addDays(start, 27) }, start));
      await waitersOf(app.db, stop.pid, 1);
      suspension = suspend(w);
      // The suspension waits for batch 0, which holds the company row; batches 1 to 3 are still to come.
      await waitersOf(app.db, stop.pid, 2);
    } finally {
      await stop.release();
    }
    expect((await suspension).status).toBe(200);
    const [{ id }] = (await app.db.query<{ id: string }>(
      'select id from trip_schedules where company_id = $1',
      [w.companyId],
    )) as [{ id: string }];
    const atSuspension = (await scheduleTrips(app.db, id)).length;
    expect([201, 202]).toContain((await committing).status);
    await waitUntil(
      () => app.db.query<{ status: string }>('select status from trip_schedules where id = $1', [id]),
      (rows) => rows[0]!.status !== 'COMMITTING',
      20_000,
      'the schedule to leave COMMITTING',
    );
    const read = await dashboard(app, w.sessions.OWNER, 'GET', `/trip-schedules/${id}`);
    expect({
      status: read.body.data.status,
      failureReason: read.body.data.failure_reason,
      tripsCreated: read.body.data.progress.trips_created,
      tripsAfterSuspension: (await scheduleTrips(app.db, id)).length - atSuspension,
    }).toEqual({
      status: 'FAILED',
      failureReason: 'COMPANY_SUSPENDED',
      tripsCreated: 7,
      tripsAfterSuspension: 0,
    });
  }, 30_000);

  it('creates trips travellers find with POST /api/journeys/search and book', async () => {
    const w = await planningWorld(app);
    const day = futureDay(6);
    const committed = await post(
      w,
      scheduleBody(w, { end_date: addDays(day, 2), departure_time: '10:15' }, day),
    );
    expect(committed.status, committed.text).toBe(201);
    const search = await app.request('/api/journeys/search', {
      method: 'POST',
      json: {
        origin_city_id: w.origin.id,
        destination_city_id: w.destination.id,
        departure_date: day,
        passengers: 1,
      },
    });
    expect(search.status, search.text).toBe(200);
    const [trip] = await scheduleTrips(app.db, committed.body.data.id);
    const legs = search.body.data.journeys.flatMap(
      (journey: { legs: { trip_id: string; price?: number }[] }) => journey.legs,
    );
    expect(legs.map((leg: { trip_id: string }) => leg.trip_id)).toContain(trip!.id);
    const traveller = await webTraveller(app);
    const lock = await lockSeats(app, traveller, trip!.id, ['2']);
    const booked = await postBooking(
      app,
      traveller,
      bookingBody({ tripId: trip!.id, seatNumbers: ['2'], seatLockSessionId: lock }),
    );
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body.data.finalPrice).toBe(25_000);
  });

  it('two commits of overlapping schedules for one bus at once: one wins, the other is refused, no double booking', async () => {
    const w = await planningWorld(app);
    const drivers = await Promise.all([0, 1].map(() => createStaffMember(app.db, w.companyId, 'DRIVER')));
    const start = futureDay(3);
    const answers = await Promise.all(
      ['08:00', '09:30'].map((time, index) =>
        post(
          w,
          scheduleBody(
            w,
            { departure_time: time, driver_id: drivers[index]!.userId, end_date: addDays(start, 17) },
            start,
          ),
        ),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.errorCode).toBe('SCHEDULE_CONFLICTS');
    await expectNoDoubleBookedBus(app.db, w.bus.id);
    const [created] = await app.db.query<{ trips: number }>(
      'select count(*)::int as trips from trips where bus_id = $1 and schedule_id is not null',
      [w.bus.id],
    );
    expect(created!.trips).toBe(18);
  });

  it('many commits with skip_conflicts for one bus at once: every trip created once, none double-booked', async () => {
    const w = await planningWorld(app);
    const start = futureDay(3);
    const answers = await Promise.all(
      [['06:00', '13:00'], ['07:00', '17:30'], ['08:00', '21:30'], ['09:00']].map((times) =>
        post(
          w,
          scheduleBody(
            w,
            { departure_time: times, driver_id: null, skip_conflicts: true, end_date: addDays(start, 13) },
            start,
          ),
        ),
      ),
    );
    for (const answer of answers) expect([201, 422], answer.text).toContain(answer.status);
    await expectNoDoubleBookedBus(app.db, w.bus.id);
    const schedules = await app.db.query<{
      id: string;
      trips_planned: number;
      trips_created: number;
      trips_skipped: number;
      trips: number;
    }>(
      `select s.id, s.trips_planned, s.trips_created, s.trips_skipped,
              (select count(*)::int from trips t where t.schedule_id = s.id) as trips
       from trip_schedules s where s.bus_id = $1`,
      [w.bus.id],
    );
    expect(schedules.length).toBe(answers.filter((answer) => answer.status === 201).length);
    for (const schedule of schedules) {
      expect(schedule.trips).toBe(schedule.trips_created);
      expect(schedule.trips_created + schedule.trips_skipped).toBe(schedule.trips_planned);
    }
    expect(schedules.reduce((total, schedule) => total + schedule.trips_created, 0)).toBeGreaterThanOrEqual(
      28,
    );
  });
});
