import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../../activities/index.js';
import { createLogger } from '../../../config/logger.js';
import { connectionOptions } from '../../../config/temporal.js';
import { searchAttributeKeys, workflowIds } from '../../../workflows/shared.js';
import { futureDay } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { eventually, waitUntil } from '../../support/journeys.js';
import { dashboard, planningWorld, scheduleTrips, type PlanningWorld } from '../../support/planning.js';

/**
 * A trip schedule whose worker dies mid-commit resumes on another worker without a duplicate or
 * a lost trip. This file's app uses a task queue of its own, so only the workers started here
 * run its schedules: a child process that kills itself inside batch 1, then a worker in this
 * process that takes over once Temporal gives up on the dead one (SCHEDULE_BATCH_TIMEOUT_SECONDS).
 */
const QUEUE = `schedule-crash-${randomUUID()}`;
const projectRoot = join(import.meta.dirname, '..', '..', '..');

async function startCrashingWorker(crashAt: 'before-commit' | 'after-commit'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/crashing-worker.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      TEMPORAL_TASK_QUEUE: QUEUE,
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      CRASH_BATCH: '1',
      CRASH_AT: crashAt,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
      if (output.includes('READY')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the crashing worker exited early (${code})`)));
  });
  return child;
}

/** A worker in this process with the real activities, running while `body` runs. */
async function withHealthyWorker<T>(app: TestApp, body: () => Promise<T>): Promise<T> {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Installed by an earlier worker of this process.
  }
  const connection = await NativeConnection.connect(connectionOptions(app.config));
  try {
    const worker = await Worker.create({
      connection,
      namespace: app.config.TEMPORAL_NAMESPACE,
      taskQueue: QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({
        config: app.config,
        db: app.db,
        logger: createLogger(app.config, 'test-worker'),
      }),
    });
    return await worker.runUntil(body);
  } finally {
    await connection.close();
  }
}

describe('a trip-schedule workflow whose worker dies', () => {
  const app = useTestApp({
    TEMPORAL_TASK_QUEUE: QUEUE,
    SCHEDULE_BATCH_SIZE: 4,
    SCHEDULE_ANSWER_WAIT_MS: 1000,
    SCHEDULE_BATCH_TIMEOUT_SECONDS: 3,
  });

  const commit = (world: PlanningWorld, days: [number, number]) =>
    dashboard(app, world.sessions.OWNER, 'POST', '/trip-schedules', {
      route_id: world.routeId,
      pickup_stop_id: world.originStop.id,
      bus_id: world.bus.id,
      driver_id: world.driverId,
      start_date: futureDay(days[0]),
      end_date: futureDay(days[1]),
      departure_time: '07:45',
      days_of_week: [0, 1, 2, 3, 4, 5, 6],
      price_base: 20_000,
      commit: true,
    });

  const stored = async (scheduleId: string) =>
    (
      await app.db.query<{ status: string; batches_done: number; trips_created: number }>(
        'select status, batches_done, trips_created from trip_schedules where id = $1',
        [scheduleId],
      )
    )[0]!;

  for (const crashAt of ['before-commit', 'after-commit'] as const) {
    it(`resumes on another worker after one is killed ${crashAt.replace('-', ' ')} of a batch: every trip once`, async () => {
      const world = await planningWorld(app);
      const child = await startCrashingWorker(crashAt);
      const exited = once(child, 'exit');
      const response = await commit(world, [3, 16]);
      expect(response.status, response.text).toBe(202);
      const scheduleId = response.body.data.id as string;
      expect(response.headers.get('location')).toBe(`/dashboard/api/trip-schedules/${scheduleId}`);
      expect(response.body.progress_url).toBe(`/dashboard/api/trip-schedules/${scheduleId}`);
      const [, signal] = await exited;
      expect(signal).toBe('SIGKILL');
      // Batch 0 committed; batch 1 was lost with its transaction, or committed without Temporal hearing of it.
      expect(await stored(scheduleId)).toMatchObject({
        status: 'COMMITTING',
        batches_done: crashAt === 'before-commit' ? 1 : 2,
      });

      await withHealthyWorker(app, () =>
        waitUntil(
          () => stored(scheduleId),
          (row) => row.status !== 'COMMITTING',
          60_000,
          'the schedule to leave COMMITTING under a healthy worker',
        ),
      );
      expect(await stored(scheduleId)).toEqual({ status: 'COMPLETED', batches_done: 4, trips_created: 14 });
      const trips = await scheduleTrips(app.db, scheduleId);
      expect(trips).toHaveLength(14);
      expect(new Set(trips.map((trip) => trip.operating_date)).size).toBe(14);
      expect(trips.every((trip) => trip.calls === 3)).toBe(true);
      const read = await dashboard(app, world.sessions.OWNER, 'GET', `/trip-schedules/${scheduleId}`);
      expect(read.body.data).toMatchObject({
        status: 'COMPLETED',
        progress: { batches_done: 4, trips_created: 14, trips_skipped: 0 },
      });
    }, 120_000);
  }

  it('answers 202 while trips are still being created, and GET shows the progress Query and ProcessStatus', async () => {
    const world = await planningWorld(app);
    await withHealthyWorker(app, async () => {
      // Stop calls cannot be inserted while their last stop's row is locked: batch 0 waits in its
      // transaction, the claim (whose schedule row never references that stop) does not.
      const holder = await app.db.pool.connect();
      try {
        await holder.query('begin');
        await holder.query('select id from stops where id = $1 for update', [world.destinationStop.id]);
        const response = await commit(world, [3, 9]);
        expect(response.status, response.text).toBe(202);
        expect(response.body.data).toEqual({
          id: expect.any(String),
          status: 'COMMITTING',
          progress: {
            batches_total: 2,
            batches_done: 0,
            trips_planned: 7,
            trips_created: 0,
            trips_skipped: 0,
          },
        });
        const scheduleId = response.body.data.id as string;
        const progress = await dashboard(
          app,
          world.sessions.DISPATCHER,
          'GET',
          response.body.progress_url.replace('/dashboard/api', ''),
        );
        expect(progress.status).toBe(200);
        expect(progress.body.data).toMatchObject({
          status: 'COMMITTING',
          progress: { batches_done: 0, trips_planned: 7 },
          workflow_progress: {
            phase: 'COMMITTING',
            batches_total: 2,
            batches_done: 0,
            trips_planned: 7,
            trips_created: 0,
          },
        });
        const handle = app.temporal.workflow.getHandle(workflowIds.tripSchedule(scheduleId));
        const described = await eventually(
          () => handle.describe(),
          (description) =>
            description.typedSearchAttributes.get(searchAttributeKeys.processStatus) === 'COMMITTING 0/2',
        );
        expect(described.typedSearchAttributes.get(searchAttributeKeys.processStatus)).toBe('COMMITTING 0/2');
        await holder.query('rollback');
        expect(await handle.result()).toMatchObject({ phase: 'COMPLETED', tripsCreated: 7 });
      } finally {
        await holder.query('rollback').catch(() => undefined);
        holder.release();
      }
    });
  }, 60_000);
});
