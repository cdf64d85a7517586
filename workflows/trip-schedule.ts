import {
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { processStatusOf } from '../domain/trip-schedules.js';
import { searchAttributeKeys } from './shared.js';
import { accepted, answeringLocally, refusal, type Activities } from './steps.js';
import {
  claimUpdate,
  progressQuery,
  type ScheduleClaim,
  type ScheduleClaimInput,
  type ScheduleProgress,
  type ScheduleProgressRow,
  type TripScheduleInput,
} from './trip-schedule.contract.js';

/** A workflow started without its claim (never through the API) gives up after this long. */
const CLAIM_WAIT = '1 minute';

/** The progress of one schedule: what the `progress` Query answers and ProcessStatus shows. */
class TripScheduleProcess {
  progress: ScheduleProgress = {
    phase: 'NEW',
    batchesTotal: 0,
    batchesDone: 0,
    tripsPlanned: 0,
    tripsCreated: 0,
    tripsSkipped: 0,
  };
  claimStarted = false;
  claimSettled = false;

  constructor(private readonly input: TripScheduleInput) {}

  requireUnclaimed(): void {
    if (this.claimStarted)
      throw refusal('SCHEDULE_ALREADY_CLAIMED', 'This schedule was already committed', 409);
  }

  /**
   * The claim transaction; its refusal ends the workflow with nothing created. It carries the
   * API's deadline (claimBy): a claim that would commit after it refuses (SCHEDULE_CLAIM_LATE).
   */
  async claim(): Promise<ScheduleClaim> {
    this.claimStarted = true;
    const input: ScheduleClaimInput & { claimBy?: number } =
      this.input.claimBy === undefined
        ? this.input.claim
        : { ...this.input.claim, claimBy: this.input.claimBy };
    try {
      const claim = accepted(await answeringLocally.claimTripSchedule(input));
      this.show(claim);
      return claim;
    } catch (error) {
      this.progress = { ...this.progress, phase: 'REFUSED' };
      this.publish();
      throw error;
    } finally {
      this.claimSettled = true;
    }
  }

  /** Creates the claimed trips batch by batch; a batch is retried until its transaction commits. */
  async commitBatches(): Promise<void> {
    const batches = proxyActivities<Activities>({
      startToCloseTimeout: `${this.input.batchTimeoutSeconds} seconds`,
      retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
    });
    while (this.progress.phase === 'COMMITTING' && this.progress.batchesDone < this.progress.batchesTotal) {
      this.show(
        await batches.commitTripScheduleBatch({
          scheduleId: this.input.claim.scheduleId,
          batchIndex: this.progress.batchesDone,
        }),
      );
    }
  }

  private show(row: ScheduleProgressRow): void {
    this.progress = {
      phase: row.status,
      batchesTotal: row.batchesTotal,
      batchesDone: row.batchesDone,
      tripsPlanned: row.tripsPlanned,
      tripsCreated: row.tripsCreated,
      tripsSkipped: row.tripsSkipped,
    };
    this.publish();
  }

  private publish(): void {
    upsertSearchAttributes([
      { key: searchAttributeKeys.processStatus, value: processStatusOf(this.progress) },
    ]);
  }
}

/**
 * `trip-schedule/{scheduleId}`: started by POST /dashboard/api/trip-schedules with the claim
 * Update (update-with-start). A refused claim ends it at once (nothing created); otherwise it
 * creates the trips in batches, each one transaction that re-checks conflicts (skipping a departure
 * in conflict), and ends COMPLETED (or FAILED when a batch met a refusal: the company suspended, the
 * route, bus, driver or stop no longer fit). A worker
 * lost mid-batch costs only a retry: the batch's transaction never committed, or it did and
 * counted itself done, and the retry sees which.
 */
export async function tripSchedule(input: TripScheduleInput): Promise<ScheduleProgress> {
  const process = new TripScheduleProcess(input);
  setHandler(claimUpdate, () => process.claim(), { validator: () => process.requireUnclaimed() });
  setHandler(progressQuery, () => process.progress);
  if (await condition(() => process.claimSettled, CLAIM_WAIT)) await process.commitBatches();
  await condition(allHandlersFinished);
  return process.progress;
}
