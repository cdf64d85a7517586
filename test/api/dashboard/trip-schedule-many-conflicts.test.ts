import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../config/logger.js';
import { tripScheduleClient } from '../../../api/temporal/trip-schedule-client.js';
import { claimTripSchedule } from '../../../db/writes/planning/trip-schedules.js';
import { addDays } from '../../../domain/analytics.js';
import { workflowIds } from '../../../workflows/shared.js';
import { futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { eventually } from '../../support/journeys.js';
import { createPlannedRoute, dashboard, planningWorld } from '../../support/planning.js';

const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];
const HOURLY = Array.from({ length: 24 }, (_, hour) => `${String(hour).padStart(2, '0')}:00`);
/** The longest schedule (180 operating dates) less one day, hourly: 4,296 departures. */
const DAYS = 179;

/**
 * Whatever a schedule's size, what goes through Temporal stays small: the claim answers its
 * progress counts, never the conflicts it skipped (those are the stored schedule's, GET
 * /trip-schedules/{id}). Every departure of a schedule committed again conflicts three ways (bus,
 * driver, departure): 12,888 conflicts, about 2.9 MB, that once went through the claim's workflow
 * task twice (its local activity's result and its Update's answer), over Temporal's 4 MB message
 * limit: the task failed for ever, the POST answered 500, and the claim stayed COMMITTING with no
 * batch done, its departures held, so the day could never be planned.
 */
describe('trip schedules: a commit that skips thousands of conflicts', () => {
  const app = useTestApp({ SCHEDULE_BATCH_SIZE: 1000, SEARCH_RATE_LIMIT_PER_MINUTE: 0 });

  it('extending an hourly schedule by one day with skip_conflicts creates the new day (201) and keeps the workflow small', async () => {
    const world = await planningWorld(app);
    const routeId = await createPlannedRoute(app.db, world.companyId, [
      [world.originStop, 0, 0, 0],
      [world.destinationStop, 50, 0, 10_000],
    ]);
    const start = futureDay(2);
    const body = (end: string, skip: boolean) => ({
      route_id: routeId,
      pickup_stop_id: world.originStop.id,
      bus_id: world.bus.id,
      driver_id: world.driverId,
      start_date: start,
      end_date: end,
      departure_time: HOURLY,
      days_of_week: ALL_DAYS,
      price_base: 5_000,
      price_vip: null,
      notes: 'Hourly shuttle',
      skip_conflicts: skip,
      commit: true,
    });
    const read = (id: string) =>
      dashboard(app, world.sessions.OWNER, 'GET', `/trip-schedules/${id}`).then((r) => r.body.data);
    const tripCount = async () =>
      Number(
        (
          await app.db.query<{ n: string }>('select count(*) as n from trips where company_id = $1', [
            world.companyId,
          ])
        )[0]!.n,
      );

    const first = await dashboard(
      app,
      world.sessions.OWNER,
      'POST',
      '/trip-schedules',
      body(addDays(start, DAYS - 1), false),
    );
    expect([201, 202], first.text.slice(0, 300)).toContain(first.status);
    const firstDone = await eventually(
      () => read(first.body.data.id),
      (s) => s.status !== 'COMMITTING',
      90_000,
    );
    expect(firstDone).toMatchObject({ status: 'COMPLETED', progress: { trips_created: DAYS * 24 } });
    expect(await tripCount()).toBe(DAYS * 24);

    const second = await dashboard(
      app,
      world.sessions.OWNER,
      'POST',
      '/trip-schedules',
      body(addDays(start, DAYS), true),
    );
    expect(second.status, second.text.slice(0, 300)).toBe(201);
    expect(second.body.data).toMatchObject({
      status: 'COMPLETED',
      end_date: addDays(start, DAYS),
      progress: { trips_planned: (DAYS + 1) * 24, trips_created: 24, trips_skipped: DAYS * 24 },
    });
    // The skipped departures are still listed, from the schedule's row.
    expect(second.body.data.conflicts).toHaveLength(DAYS * 24 * 3);
    expect(await tripCount()).toBe((DAYS + 1) * 24);

    // The run's whole history (input, claim, Update answer, batches) stays a few kilobytes.
    const scheduleId: string = second.body.data.id;
    const history = await app.temporal.workflow
      .getHandle(workflowIds.tripSchedule(scheduleId))
      .fetchHistory();
    const historyBytes = proto.api.history.v1.History.encode(history).finish().length;
    expect(historyBytes).toBeLessThan(32_000);

    // The stored claim, as a resumed run's claim answers it (worker/schedule-resumer.ts), is as small.
    const again = await claimTripSchedule(app.db, {
      scheduleId,
      companyId: world.companyId,
      staffUserId: world.sessions.OWNER.staffUserId,
      actor: {
        sessionId: randomUUID(),
        membershipId: randomUUID(),
        staffUserId: randomUUID(),
        allowedRoles: [],
      },
      request: {} as never,
      skipConflicts: true,
      batchSize: 1000,
      notBefore: Date.now(),
    });
    expect(again).toMatchObject({ scheduleId, status: 'COMPLETED', tripsSkipped: DAYS * 24 });
    expect(JSON.stringify(again).length).toBeLessThan(1_000);
    expect(await tripCount()).toBe((DAYS + 1) * 24);
  }, 240_000);
});

describe('trip schedules: a commit Temporal cannot run now', () => {
  /**
   * The server refuses an Update-with-Start to a run whose workflow task keeps failing (a worker
   * fault) with FAILED_PRECONDITION, which the SDK (1.24) throws from that call as the bare gRPC
   * error rather than a ServiceError.
   */
  const failingTaskTemporal = (): Client => {
    const refused = Object.assign(
      new Error('Unable to perform workflow execution update due to Workflow Task in failed state.'),
      { code: 9, details: 'Update-with-Start could not be executed.', metadata: {} },
    );
    return {
      withDeadline: (_deadline: number, work: () => Promise<unknown>) => work(),
      withAbortSignal: (_signal: AbortSignal, work: () => Promise<unknown>) => work(),
      workflow: { executeUpdateWithStart: () => Promise.reject(refused) },
    } as unknown as Client;
  };

  it('answers 503 SCHEDULE_UNAVAILABLE with Retry-After, not 500, when the run cannot take the claim', async () => {
    const schedules = tripScheduleClient(
      failingTaskTemporal(),
      { TEMPORAL_TASK_QUEUE: 'nobody', SCHEDULE_ANSWER_WAIT_MS: 10, SCHEDULE_BATCH_TIMEOUT_SECONDS: 60 },
      { warn: () => undefined } as unknown as Logger,
    );
    const claim = {
      scheduleId: randomUUID(),
      companyId: randomUUID(),
      request: { routeId: 'r', busId: 'b', startDate: '2030-01-01', endDate: '2030-01-02' },
    };
    const answer = await schedules.commit(claim as never).then(
      () => 'answered',
      (error: unknown) => error,
    );
    expect(answer).toMatchObject({
      status: 503,
      code: 'SCHEDULE_UNAVAILABLE',
      details: { retryAfterSeconds: 5 },
    });
  });
});
