import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { ScheduleProgressRow } from '../../../domain/trip-schedules.js';
import { searchAttributeKeys, workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import {
  claimUpdate,
  progressQuery,
  TRIP_SCHEDULE_WORKFLOW,
  type ScheduleClaimInput,
  type TripScheduleInput,
} from '../../../workflows/trip-schedule.contract.js';
import type { tripSchedule } from '../../../workflows/trip-schedule.js';
import {
  Calls,
  pause,
  refusalOf,
  replayRecordedHistory,
  useWorkflowEnvironment,
} from '../../support/workflow-env.js';

/** The trip-schedule workflow with stubbed claim and batch activities (no PostgreSQL). */
type ScheduleSteps = Pick<Activities, 'claimTripSchedule' | 'commitTripScheduleBatch'>;

const claimInput = (staffUserId = randomUUID()): ScheduleClaimInput => ({
  scheduleId: randomUUID(),
  companyId: randomUUID(),
  staffUserId,
  // The stubbed claim never reads it.
  actor: { sessionId: randomUUID(), membershipId: randomUUID(), staffUserId, allowedRoles: ['OWNER'] },
  request: {
    routeId: randomUUID(),
    busId: randomUUID(),
    driverId: null,
    pickupStopId: randomUUID(),
    startDate: '2026-12-01',
    endDate: '2026-12-10',
    departureTimes: ['08:00'],
    daysOfWeek: [1, 2, 3],
    priceBase: 10_000,
    priceVip: null,
    notes: '',
  },
  skipConflicts: false,
  batchSize: 2,
  notBefore: 0,
});

const row = (batchesDone: number, change: Partial<ScheduleProgressRow> = {}): ScheduleProgressRow => ({
  status: batchesDone === 3 ? 'COMPLETED' : 'COMMITTING',
  batchesTotal: 3,
  batchesDone,
  tripsPlanned: 5,
  tripsCreated: Math.min(5, batchesDone * 2),
  tripsSkipped: 0,
  failureReason: null,
  ...change,
});

describe('tripSchedule workflow (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  /** Starts trip-schedule/{id} with its claim, as the API does. */
  const commit = (taskQueue: string, claim: ScheduleClaimInput, claimBy?: number) => {
    const input: TripScheduleInput = { claim, batchTimeoutSeconds: 5, ...(claimBy ? { claimBy } : {}) };
    return temporal.client.workflow.executeUpdateWithStart(claimUpdate, {
      args: [],
      updateId: `claim:${claim.scheduleId}`,
      startWorkflowOperation: new WithStartWorkflowOperation(TRIP_SCHEDULE_WORKFLOW, {
        workflowId: workflowIds.tripSchedule(claim.scheduleId),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
  };
  const handle = (claim: ScheduleClaimInput) =>
    temporal.client.workflow.getHandle<typeof tripSchedule>(workflowIds.tripSchedule(claim.scheduleId));

  it('answers the claim, then commits batch after batch in order and ends COMPLETED', async () => {
    const calls = new Calls();
    const steps: ScheduleSteps = {
      async claimTripSchedule(input) {
        calls.record('claim', input);
        return { done: { scheduleId: input.scheduleId, ...row(0), conflicts: [] } };
      },
      async commitTripScheduleBatch(input) {
        calls.record('batch', input.batchIndex);
        return row(input.batchIndex + 1);
      },
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const claim = claimInput();
      const claimed = await commit(taskQueue, claim);
      expect(claimed).toMatchObject({ scheduleId: claim.scheduleId, batchesTotal: 3, tripsPlanned: 5 });
      const outcome = await handle(claim).result();
      expect(outcome).toEqual({
        phase: 'COMPLETED',
        batchesTotal: 3,
        batchesDone: 3,
        tripsPlanned: 5,
        tripsCreated: 5,
        tripsSkipped: 0,
      });
      expect(calls.names()).toEqual(['claim', 'batch', 'batch', 'batch']);
      expect(calls.inputsOf('batch')).toEqual([0, 1, 2]);
      expect(calls.inputsOf('claim')).toEqual([claim]);
      const described = await handle(claim).describe();
      expect(described.typedSearchAttributes.get(searchAttributeKeys.processStatus)).toBe('COMPLETED');
    });
  });

  it('ends at once on a refused claim, answering the refusal and creating nothing', async () => {
    const calls = new Calls();
    const steps: ScheduleSteps = {
      async claimTripSchedule() {
        return {
          refused: { status: 409, code: 'SCHEDULE_CONFLICTS', message: 'conflicts', details: { total: 2 } },
        };
      },
      async commitTripScheduleBatch(input) {
        calls.record('batch', input);
        return row(1);
      },
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const claim = claimInput();
      expect(await refusalOf(commit(taskQueue, claim))).toMatchObject({
        code: 'SCHEDULE_CONFLICTS',
        status: 409,
      });
      expect((await handle(claim).result()).phase).toBe('REFUSED');
      expect(calls.names()).toEqual([]);
    });
  });

  it('shows its progress as the progress Query and as ProcessStatus while it commits', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const steps: ScheduleSteps = {
      async claimTripSchedule(input) {
        return { done: { scheduleId: input.scheduleId, ...row(0), conflicts: [] } };
      },
      async commitTripScheduleBatch(input) {
        if (input.batchIndex === 1) await gate;
        return row(input.batchIndex + 1);
      },
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const claim = claimInput();
      await commit(taskQueue, claim);
      let progress = await handle(claim).query(progressQuery);
      for (let tries = 0; progress.batchesDone < 1 && tries < 100; tries++) {
        await pause(50);
        progress = await handle(claim).query(progressQuery);
      }
      expect(progress).toMatchObject({
        phase: 'COMMITTING',
        batchesDone: 1,
        batchesTotal: 3,
        tripsCreated: 2,
      });
      const described = await handle(claim).describe();
      expect(described.typedSearchAttributes.get(searchAttributeKeys.processStatus)).toBe('COMMITTING 1/3');
      release();
      expect((await handle(claim).result()).phase).toBe('COMPLETED');
    });
  });

  it('retries a batch that failed (a lost connection) and goes on from where the store says', async () => {
    const calls = new Calls();
    let failures = 0;
    const steps: ScheduleSteps = {
      async claimTripSchedule(input) {
        return { done: { scheduleId: input.scheduleId, ...row(0), conflicts: [] } };
      },
      async commitTripScheduleBatch(input) {
        calls.record('batch', input.batchIndex);
        if (input.batchIndex === 1 && failures++ === 0) throw new Error('connection lost');
        return row(input.batchIndex + 1);
      },
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const claim = claimInput();
      await commit(taskQueue, claim);
      expect((await handle(claim).result()).tripsCreated).toBe(5);
      expect(calls.inputsOf('batch')).toEqual([0, 1, 1, 2]);
    });
  });

  it('stops after a batch that failed the schedule (the company suspended) and ends FAILED', async () => {
    const calls = new Calls();
    const steps: ScheduleSteps = {
      async claimTripSchedule(input) {
        return { done: { scheduleId: input.scheduleId, ...row(0), conflicts: [] } };
      },
      async commitTripScheduleBatch(input) {
        calls.record('batch', input.batchIndex);
        return input.batchIndex === 0
          ? row(1)
          : row(1, { status: 'FAILED', failureReason: 'COMPANY_SUSPENDED' });
      },
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const claim = claimInput();
      await commit(taskQueue, claim);
      expect((await handle(claim).result()).phase).toBe('FAILED');
      expect(calls.inputsOf('batch')).toEqual([0, 1]);
    });
  });
  it("hands the claim the API's deadline, and ends REFUSED with nothing created when the claim came too late", async () => {
    const calls = new Calls();
    const steps: ScheduleSteps = {
      async claimTripSchedule(input) {
        calls.record('claim', input);
        return {
          refused: { status: 409, code: 'SCHEDULE_CLAIM_LATE', message: 'the commit stopped waiting' },
        };
      },
      async commitTripScheduleBatch(input) {
        calls.record('batch', input);
        return row(1);
      },
    };
    await temporal.withWorker(steps, async (taskQueue) => {
      const claim = claimInput();
      const claimBy = Date.now() + 20_000;
      expect(await refusalOf(commit(taskQueue, claim, claimBy))).toMatchObject({
        code: 'SCHEDULE_CLAIM_LATE',
      });
      expect((await handle(claim).result()).phase).toBe('REFUSED');
      expect(calls.inputsOf('claim')).toEqual([{ ...claim, claimBy }]);
      expect(calls.names()).toEqual(['claim']);
    });
  });

  it('a run started before the claim deadline replays as it was recorded', async () => {
    // Recorded (binary protobuf, as the client fetched it) from the code before claimBy: a claim, two batches.
    await expect(
      replayRecordedHistory(new URL('./histories/trip-schedule-before-claim-deadline.pb', import.meta.url)),
    ).resolves.toBeUndefined();
  });
});
