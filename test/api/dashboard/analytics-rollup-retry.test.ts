import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../../activities/index.js';
import { createLogger } from '../../../config/logger.js';
import { connectionOptions } from '../../../config/temporal.js';
import {
  ANALYTICS_ROLLUP_WORKFLOW,
  type AnalyticsRollupInput,
} from '../../../workflows/analytics-rollup.contract.js';
import { workflowIds } from '../../../workflows/shared.js';
import { dayWithRoom, dayWithRoomTimeout } from '../../support/damascus-day.js';
import { useTestApp } from '../../support/harness.js';
import { insightWorld, type InsightWorld } from '../../support/insight.js';
import { staffSession } from '../../support/journey-rows.js';

type Session = Awaited<ReturnType<typeof staffSession>>;

/**
 * README (Company insight): the roll-up "recounts travel frequency (that figure may lag up to 5
 * minutes)", and its activities are safe to retry. These runs go to a worker of the file's own whose
 * activities are the real ones, except that a fold can lose its completion after its COMMIT (the
 * worker lost before Temporal hears of it: the fold is retried) and a recount can fail every attempt.
 */
describe('travel frequency when a roll-up step is retried or fails', () => {
  const app = useTestApp();
  const taskQueue = `analytics-rollup-retry-${randomUUID()}`;
  let world: InsightWorld;
  let owner: Session;
  let worker: Worker;
  let running: Promise<void>;
  let connection: NativeConnection;
  /** Folds to commit and then answer as if the worker were lost. */
  let lostFolds = 0;
  /** Recount attempts to fail before they count anything. */
  let failingRecounts = false;
  let recountAttempts = 0;

  beforeAll(async () => {
    await dayWithRoom();
    world = await insightWorld(app.db);
    owner = await staffSession(app.db, app.config, world.companyId, 'OWNER');
    const real = createActivities({
      config: app.config,
      db: app.db,
      logger: createLogger(app.config, 'analytics-rollup-retry'),
    });
    connection = await NativeConnection.connect(connectionOptions(app.config));
    worker = await Worker.create({
      connection,
      namespace: app.config.TEMPORAL_NAMESPACE,
      taskQueue,
      workflowBundle: { code: readFileSync(inject('workflowBundlePath'), 'utf8') },
      activities: {
        ...real,
        async foldBookingStats(input: { companyIds?: string[] }) {
          const folded = await real.foldBookingStats(input);
          if (lostFolds > 0) {
            lostFolds -= 1;
            throw new Error('worker lost after the fold committed');
          }
          return folded;
        },
        async recountTravelFrequency(input: { companyIds: string[] }) {
          if (failingRecounts) {
            recountAttempts += 1;
            throw new Error('the recount failed');
          }
          return real.recountTravelFrequency(input);
        },
      },
    });
    running = worker.run();
  }, dayWithRoomTimeout() + 60_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await connection?.close();
  });

  const rollup = (input: AnalyticsRollupInput) =>
    app.temporal.workflow.execute(ANALYTICS_ROLLUP_WORKFLOW, {
      workflowId: workflowIds.analyticsRollup(randomUUID()),
      taskQueue,
      args: [input],
    });

  const frequency = async () => {
    const response = await app.request('/dashboard/api/analytics?period=daily', {
      headers: { Cookie: owner.cookie },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.data.customerFrequency as { customers: number; trips: number; asOf: string };
  };

  /** One more trip today, booked as test/api/dashboard/analytics.test.ts books one. */
  const oneMoreTrip = (phone: string, seat: number) =>
    app.db.query(
      `insert into bookings (booking_code, company_id, trip_id, owner_user_id, passenger_name, passenger_phone, seats_count,
                             seat_numbers, status, total_price)
       select $1, $2, $3, u.id, 'New', $4, 1, $5, 'CONFIRMED', 10000 from users u limit 1`,
      [`BK-RT-${randomUUID().slice(0, 6)}`, world.companyId, world.trips.A0, phone, [seat]],
    );

  const marks = async () =>
    (
      await app.db.query<{ n: number }>(
        `select count(*)::int as n from customer_frequency_recounts_due where company_id = $1`,
        [world.companyId],
      )
    )[0]!.n;

  it("counts a booking made before a run in that run's travel frequency, though its fold was retried after committing", async () => {
    await rollup({ companyIds: [world.companyId] });
    const before = await frequency();
    // The hand count of the fixture (three travellers, five trips).
    expect(before).toMatchObject({ customers: 3, trips: 5 });

    await oneMoreTrip('+963944000011', 11);
    lostFolds = 1;
    const result = await rollup({ companyIds: [world.companyId] });
    expect(lostFolds, 'the fold committed once and was retried').toBe(0);
    expect(result).toMatchObject({ deltasFolded: 0, companiesRecounted: 1 });
    const after = await frequency();
    expect(after.trips).toBe(6);
    expect(Date.parse(after.asOf)).toBeGreaterThan(Date.parse(before.asOf));
    expect(await marks(), 'the recount cleared its mark').toBe(0);
  }, 120_000);

  it('recounts at the next run a company whose recount failed every attempt', async () => {
    const before = await frequency();
    await oneMoreTrip('+963944000012', 12);
    failingRecounts = true;
    try {
      await expect(rollup({ companyIds: [world.companyId] })).rejects.toBeInstanceOf(WorkflowFailedError);
    } finally {
      failingRecounts = false;
    }
    expect(recountAttempts).toBe(5);
    // The failed run stored nothing: the figure is still the one counted before.
    expect(await frequency()).toEqual(before);

    // The deltas were folded by the failed run; the next run still recounts the company.
    const result = await rollup({ companyIds: [world.companyId] });
    expect(result).toMatchObject({ deltasFolded: 0, companiesRecounted: 1 });
    expect((await frequency()).trips).toBe(before.trips + 1);
    expect(await marks()).toBe(0);
  }, 120_000);
});
