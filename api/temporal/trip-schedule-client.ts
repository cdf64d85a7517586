import type { Client } from '@temporalio/client';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import { workflowIds } from '../../workflows/shared.js';
import {
  claimUpdate,
  progressQuery,
  TRIP_SCHEDULE_WORKFLOW,
  type ScheduleClaim,
  type ScheduleClaimInput,
  type ScheduleProgress,
  type TripScheduleInput,
} from '../../workflows/trip-schedule.contract.js';
import { databaseNow } from '../platform/state.js';
import { Refusal } from '../http/errors.js';
import { processCalls } from './process-calls.js';
import { unavailableAnswers, UPDATE_DEADLINE_MS } from './workflow-updates.js';

const SCHEDULE_ANSWERS = unavailableAnswers(
  'SCHEDULE_UNAVAILABLE',
  'Trip schedules cannot be committed right now; try again',
);

/**
 * The claim must commit this long before the API stops waiting for it (UPDATE_DEADLINE_MS), a
 * margin for its commit, the answer's way back through Temporal and the clocks of the API and the
 * database. A claim that would commit later refuses (SCHEDULE_CLAIM_LATE, nothing written), so the
 * 503 that then ends the wait leaves no schedule behind and the retry it asks for is free.
 */
const CLAIM_MARGIN_MS = 5_000;

/** The claim's refusal when it would have committed after its deadline (db/writes/planning/trip-schedules.ts). */
const CLAIM_LATE = 'SCHEDULE_CLAIM_LATE';

export interface CommittedSchedule {
  claim: ScheduleClaim;
  /** The workflow's final progress when it ended within the wait; null while it still runs. */
  outcome: ScheduleProgress | null;
}

type ScheduleConfig = Pick<
  Config,
  'TEMPORAL_TASK_QUEUE' | 'SCHEDULE_ANSWER_WAIT_MS' | 'SCHEDULE_BATCH_TIMEOUT_SECONDS'
>;

/**
 * The API's side of the trip-schedule workflow: starts `trip-schedule/{scheduleId}` with its
 * claim (update-with-start: the answer is the claim or its refusal, with its errorCode), then
 * waits up to SCHEDULE_ANSWER_WAIT_MS for the trips to be created; reads the progress Query.
 */
export function tripScheduleClient(temporal: Client, config: ScheduleConfig, logger: Logger) {
  const handle = (scheduleId: string) =>
    temporal.workflow.getHandle<(input: TripScheduleInput) => Promise<ScheduleProgress>>(
      workflowIds.tripSchedule(scheduleId),
    );

  const schedules = processCalls(temporal, SCHEDULE_ANSWERS, config.TEMPORAL_TASK_QUEUE);

  async function outcomeWithin(scheduleId: string): Promise<ScheduleProgress | null> {
    try {
      return await temporal.withAbortSignal(AbortSignal.timeout(config.SCHEDULE_ANSWER_WAIT_MS), () =>
        handle(scheduleId).result(),
      );
    } catch {
      return null;
    }
  }

  return {
    async commit(claim: ScheduleClaimInput): Promise<CommittedSchedule> {
      const input: TripScheduleInput = {
        claim,
        batchTimeoutSeconds: config.SCHEDULE_BATCH_TIMEOUT_SECONDS,
        claimBy: databaseNow() + UPDATE_DEADLINE_MS - CLAIM_MARGIN_MS,
      };
      const claimed = await schedules
        .start(claimUpdate, `claim:${claim.scheduleId}`, {
          workflowType: TRIP_SCHEDULE_WORKFLOW,
          workflowId: workflowIds.tripSchedule(claim.scheduleId),
          input,
          conflictPolicy: 'USE_EXISTING',
          process: { companyIds: [claim.companyId] },
          memo: {
            routeId: claim.request.routeId,
            busId: claim.request.busId,
            startDate: claim.request.startDate,
            endDate: claim.request.endDate,
          },
        })
        .catch((error: unknown) => {
          throw error instanceof Refusal && error.code === CLAIM_LATE
            ? SCHEDULE_ANSWERS.unavailable()
            : error;
        });
      return { claim: claimed, outcome: await outcomeWithin(claim.scheduleId) };
    },

    /** The live progress of a schedule's workflow; null when Temporal cannot answer (the stored row then serves). */
    async progress(scheduleId: string): Promise<ScheduleProgress | null> {
      try {
        return await temporal.withDeadline(Date.now() + 5000, () => handle(scheduleId).query(progressQuery));
      } catch (error) {
        logger.warn({ err: error, scheduleId }, 'trip schedule progress query failed');
        return null;
      }
    },
  };
}

export type TripScheduleClient = ReturnType<typeof tripScheduleClient>;
