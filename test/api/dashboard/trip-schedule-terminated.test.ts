import type { PoolClient } from 'pg';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../../domain/analytics.js';
import { workflowIds } from '../../../workflows/shared.js';
import { futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { eventually, waitUntil } from '../../support/journeys.js';
import { dashboard, planningWorld, scheduleTrips, type PlanningWorld } from '../../support/planning.js';

/**
 * A trip schedule whose `trip-schedule/{id}` run closes while it is still COMMITTING (an operator
 * terminates it in the Temporal UI) is resumed by the worker's periodic check; one whose run an
 * operator cancels is stopped (FAILED, OPERATOR_CANCELLED)
 * (worker/schedule-resumer.ts): a new run claims the stored row and creates the trips left, each
 * once. A live run is left alone. The test worker of the run does the checks.
 */
describe('a trip-schedule workflow that an operator ends mid-commit', () => {
  const app = useTestApp({ SCHEDULE_BATCH_SIZE: 4, SCHEDULE_ANSWER_WAIT_MS: 1000 });
  // Today read once: a test commits the same fortnight twice and expects the same days.
  const today = futureDay(0);

  const commit = (world: PlanningWorld, days: [number, number], skip = false) =>
    dashboard(app, world.sessions.OWNER, 'POST', '/trip-schedules', {
      route_id: world.routeId,
      pickup_stop_id: world.originStop.id,
      bus_id: world.bus.id,
      driver_id: world.driverId,
      start_date: addDays(today, days[0]),
      end_date: addDays(today, days[1]),
      departure_time: '07:45',
      days_of_week: [0, 1, 2, 3, 4, 5, 6],
      price_base: 20_000,
      commit: true,
      ...(skip ? { skip_conflicts: true } : {}),
    });

  const stored = async (scheduleId: string) =>
    (
      await app.db.query<{ status: string; batches_done: number; trips_created: number }>(
        'select status, batches_done, trips_created from trip_schedules where id = $1',
        [scheduleId],
      )
    )[0]!;

  /**
   * Commits a fortnight while its batches cannot insert their stop calls (the destination stop's
   * row locked; the claim does not touch it), runs `whileHeld`, then lets the batches go.
   */
  async function commitHeld(world: PlanningWorld, whileHeld: (scheduleId: string) => Promise<void>) {
    const holder: PoolClient = await app.db.pool.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from stops where id = $1 for update', [world.destinationStop.id]);
      const response = await commit(world, [3, 16]);
      expect(response.status, response.text).toBe(202);
      const scheduleId = response.body.data.id as string;
      await whileHeld(scheduleId);
      return scheduleId;
    } finally {
      await holder.query('rollback').catch(() => undefined);
      holder.release();
    }
  }

  it('a terminated run is resumed: every trip created once, and the fortnight is judged by its real trips', async () => {
    const world = await planningWorld(app);
    let terminatedRun = '';
    const scheduleId = await commitHeld(world, async (id) => {
      const handle = app.temporal.workflow.getHandle(workflowIds.tripSchedule(id));
      terminatedRun = (await handle.describe()).runId;
      await handle.terminate('operator');
    });

    const row = await eventually(
      () => stored(scheduleId),
      (current) => current.status !== 'COMMITTING',
      30_000,
    );
    expect(row).toEqual({ status: 'COMPLETED', batches_done: 4, trips_created: 14 });
    const trips = await scheduleTrips(app.db, scheduleId);
    expect(trips).toHaveLength(14);
    expect(new Set(trips.map((trip) => trip.operating_date)).size).toBe(14);
    const read = await dashboard(app, world.sessions.OWNER, 'GET', `/trip-schedules/${scheduleId}`);
    expect(read.body.data).toMatchObject({
      status: 'COMPLETED',
      progress: { batches_done: 4, trips_created: 14, trips_skipped: 0 },
    });
    // A new run of the same id finished it; the operator's run stays terminated in the history.
    // The run writes COMPLETED in its last activity and closes just after, so wait for the close.
    const latest = await eventually(
      () => app.temporal.workflow.getHandle(workflowIds.tripSchedule(scheduleId)).describe(),
      (run) => run.status.name !== 'RUNNING',
    );
    expect(latest.runId).not.toBe(terminatedRun);
    expect(latest.status.name).toBe('COMPLETED');
    const first = app.temporal.workflow.getHandle(workflowIds.tripSchedule(scheduleId), terminatedRun);
    expect((await first.describe()).status.name).toBe('TERMINATED');

    // No claim is left: the fortnight conflicts only with its trips, and the days after it are free.
    const again = await commit(world, [3, 16], true);
    expect([again.status, again.body.errorCode]).toEqual([422, 'SCHEDULE_EMPTY']);
    const after = await commit(world, [17, 20]);
    expect([201, 202], after.text).toContain(after.status);
  }, 90_000);

  it('a resumed run terminated as well is resumed again: a third run finishes the schedule, every trip once', async () => {
    const world = await planningWorld(app);
    const runs: string[] = [];
    const scheduleId = await commitHeld(world, async (id) => {
      const handle = () => app.temporal.workflow.getHandle(workflowIds.tripSchedule(id));
      // The operator terminates the run that looks stuck; the worker resumes it.
      runs.push((await handle().describe()).runId);
      await handle().terminate('operator');
      const resumed = await eventually(
        () => handle().describe(),
        (run) => run.runId !== runs[0] && run.status.name === 'RUNNING',
        20_000,
      );
      runs.push(resumed.runId);
      // Still held up: the operator terminates the resumed run too, and the worker resumes it again.
      await handle().terminate('operator again');
      const third = await eventually(
        () => handle().describe(),
        (run) => !runs.includes(run.runId),
        20_000,
      );
      expect(runs, 'a new run after the resumed run was terminated').not.toContain(third.runId);
      runs.push(third.runId);
    });

    const row = await eventually(
      () => stored(scheduleId),
      (current) => current.status !== 'COMMITTING',
      30_000,
    );
    expect(row).toEqual({ status: 'COMPLETED', batches_done: 4, trips_created: 14 });
    const trips = await scheduleTrips(app.db, scheduleId);
    expect(trips).toHaveLength(14);
    expect(new Set(trips.map((trip) => trip.operating_date)).size).toBe(14);
    const latest = await eventually(
      () => app.temporal.workflow.getHandle(workflowIds.tripSchedule(scheduleId)).describe(),
      (run) => run.status.name !== 'RUNNING',
    );
    expect([latest.runId, latest.status.name]).toEqual([runs[2], 'COMPLETED']);
    for (const run of runs.slice(0, 2)) {
      const closed = app.temporal.workflow.getHandle(workflowIds.tripSchedule(scheduleId), run);
      expect((await closed.describe()).status.name).toBe('TERMINATED');
    }
  }, 120_000);

  it("a cancelled run is the operator's stop: the schedule ends FAILED, and its claim on the days left ends", async () => {
    const world = await planningWorld(app);
    const scheduleId = await commitHeld(world, async (id) => {
      const handle = app.temporal.workflow.getHandle(workflowIds.tripSchedule(id));
      await handle.cancel();
      await waitUntil(
        async () => (await handle.describe()).status.name,
        (status) => status !== 'RUNNING',
        20_000,
        'the cancelled run to close',
      );
    });

    const row = await eventually(
      () => stored(scheduleId),
      (current) => current.status !== 'COMMITTING',
      30_000,
    );
    // The batch already running when the run was cancelled may finish (it was held, not stopped);
    // no batch runs after it.
    expect(row.status).toBe('FAILED');
    expect(row.batches_done).toBeLessThanOrEqual(1);
    const read = await dashboard(app, world.sessions.OWNER, 'GET', `/trip-schedules/${scheduleId}`);
    expect(read.body.data).toMatchObject({ status: 'FAILED', failure_reason: 'OPERATOR_CANCELLED' });
    const made = await scheduleTrips(app.db, scheduleId);
    expect(made).toHaveLength(row.trips_created);
    expect(made.length).toBeLessThan(14);
    // Not resumed: the latest run is still the cancelled one, and nothing more is made.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const latest = await app.temporal.workflow.getHandle(workflowIds.tripSchedule(scheduleId)).describe();
    expect(latest.status.name).toBe('CANCELLED');
    expect(await scheduleTrips(app.db, scheduleId)).toHaveLength(made.length);
    // Its departures left are free again: the fortnight commits, skipping the days it made.
    const again = await commit(world, [3, 16], true);
    expect([201, 202], again.text).toContain(again.status);
    const rest = await eventually(
      () => stored(again.body.data.id as string),
      (current) => current.status !== 'COMMITTING',
      30_000,
    );
    expect(rest).toMatchObject({ status: 'COMPLETED', trips_created: 14 - made.length });
  }, 90_000);

  it('a live run held up by its batches is left alone: the same run finishes it', async () => {
    const world = await planningWorld(app);
    let liveRun = '';
    const scheduleId = await commitHeld(world, async (id) => {
      const handle = app.temporal.workflow.getHandle(workflowIds.tripSchedule(id));
      liveRun = (await handle.describe()).runId;
      // Longer than a check's period (5 s): the worker looks at it at least once while it waits.
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      expect(await stored(id)).toMatchObject({ status: 'COMMITTING', batches_done: 0 });
      expect((await handle.describe()).runId).toBe(liveRun);
    });
    const handle = app.temporal.workflow.getHandle(workflowIds.tripSchedule(scheduleId), liveRun);
    expect(await handle.result()).toMatchObject({ phase: 'COMPLETED', tripsCreated: 14 });
    const latest = await app.temporal.workflow.getHandle(workflowIds.tripSchedule(scheduleId)).describe();
    expect(latest.runId).toBe(liveRun);
    expect(await scheduleTrips(app.db, scheduleId)).toHaveLength(14);
  }, 60_000);
});
