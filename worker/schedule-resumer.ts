import { randomUUID } from 'node:crypto';
import { Client, WithStartWorkflowOperation, type ConnectionLike } from '@temporalio/client';
import type { Config } from '../config/index.js';
import { latestRunStatus } from '../config/temporal.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/orm.js';
import { committingSchedules, type CommittingSchedule } from '../db/queries/trip-schedules.js';
import { endCancelledSchedule } from '../db/writes/planning/schedule-batches.js';
import type { ActingMember } from '../domain/company-actor.js';
import { processSearchAttributes, workflowIds } from '../workflows/shared.js';
import {
  claimUpdate,
  TRIP_SCHEDULE_WORKFLOW,
  type TripScheduleInput,
} from '../workflows/trip-schedule.contract.js';
import { startPeriodicCheck } from './periodic.js';

/**
 * Resumes trip schedules whose workflow has closed while they were still COMMITTING: a
 * `trip-schedule/{id}` run terminated in the Temporal UI (a kill: the run looked stuck) leaves its schedule claimed,
 * and the departures it had yet to create keep blocking the bus, the driver and the route
 * (db/queries/planning.ts claimedWindows), with no API to finish it. The database is the source of
 * truth: a COMMITTING row is a claim the company made, so every RESUME_CHECK_MS each worker reads
 * the COMMITTING rows (the partial indexes on that status: the few being committed), asks Temporal
 * about each one's workflow, and starts a new run for one whose run has closed. A live run is left
 * alone, and so is a row whose workflow Temporal does not know (see runOf). The new run's claim finds the stored
 * row and answers it, and its batches go on from the first one not done (each batch is idempotent,
 * so a batch of the closed run that committed late is not done twice).
 *
 * Several workers may check at once: the start refuses a second open run (conflict policy FAIL),
 * so one resumes and the others find it running. The timer does not keep the process alive and
 * stops once the worker stops running.
 */
const RESUME_CHECK_MS = 5_000;

/** COMMITTING schedules read at a time, oldest claim first. */
const RESUME_PAGE = 50;

/** A nil id: no session, membership or user has it. */
const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * The resumed claim's actor. The claim answers the stored row before it checks its actor, so a
 * resume never needs one; should the row be gone, this actor is refused (INVALID_CREDENTIAL) and
 * the resume creates nothing.
 */
const NO_MEMBER: ActingMember = { sessionId: NIL, membershipId: NIL, staffUserId: NIL, allowedRoles: [] };

export interface ResumerDeps {
  config: Pick<Config, 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE' | 'SCHEDULE_BATCH_TIMEOUT_SECONDS'>;
  db: Database;
  logger: Logger;
  /** The worker's connection to Temporal. */
  connection: ConnectionLike;
  /** False once the worker is shutting down: the checks stop. */
  running: () => boolean;
}

/**
 * Whether trip-schedule/{id} has a run still open, was cancelled (an operator's stop), has closed
 * otherwise (terminated, timed out: killed, not stopped), or is unknown to Temporal: a row with no
 * workflow at all (written by hand, or past the namespace's retention) is not ours to run.
 */
async function runOf(
  client: Client,
  scheduleId: string,
): Promise<'OPEN' | 'CANCELLED' | 'CLOSED' | 'UNKNOWN'> {
  const status = await latestRunStatus(client, workflowIds.tripSchedule(scheduleId));
  if (status === null) return 'UNKNOWN';
  if (status === 'RUNNING') return 'OPEN';
  return status === 'CANCELLED' ? 'CANCELLED' : 'CLOSED';
}

/**
 * A new run of the schedule's workflow with its claim (update-with-start, as the API starts it).
 * The Update id is new on every attempt: Temporal answers an Update whose id a closed run already
 * completed from that run and starts nothing, so a fixed id would resume a schedule once only (a
 * resumed run terminated in turn would stay closed). The claim needs no other guard: it answers
 * the stored row (claimTripSchedule), and a second open run is refused by the conflict policy.
 */
async function resume(client: Client, deps: ResumerDeps, schedule: CommittingSchedule): Promise<void> {
  const input: TripScheduleInput = {
    claim: {
      scheduleId: schedule.scheduleId,
      companyId: schedule.companyId,
      staffUserId: schedule.staffUserId,
      actor: NO_MEMBER,
      request: schedule.request,
      skipConflicts: schedule.skipConflicts,
      batchSize: schedule.batchSize,
      notBefore: schedule.notBefore,
    },
    batchTimeoutSeconds: deps.config.SCHEDULE_BATCH_TIMEOUT_SECONDS,
  };
  const startWorkflowOperation = new WithStartWorkflowOperation(TRIP_SCHEDULE_WORKFLOW, {
    workflowId: workflowIds.tripSchedule(schedule.scheduleId),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: processSearchAttributes({ companyIds: [schedule.companyId], status: 'NEW' }),
    memo: {
      routeId: schedule.request.routeId,
      busId: schedule.request.busId,
      startDate: schedule.request.startDate,
      endDate: schedule.request.endDate,
      resumed: true,
    },
  });
  await client.workflow.executeUpdateWithStart(claimUpdate, {
    args: [],
    updateId: `resume:${schedule.scheduleId}:${randomUUID()}`,
    startWorkflowOperation,
  });
}

/**
 * Resumes the schedule when its run has closed; answers whether it did. A run an operator
 * cancelled is their stop: the schedule ends FAILED (OPERATOR_CANCELLED) instead, its claim on the
 * departures left released.
 */
async function resumeIfClosed(
  client: Client,
  deps: ResumerDeps,
  schedule: CommittingSchedule,
  unknown: Set<string>,
): Promise<boolean> {
  if (unknown.has(schedule.scheduleId)) return false;
  const run = await runOf(client, schedule.scheduleId);
  if (run === 'UNKNOWN') unknown.add(schedule.scheduleId);
  if (run === 'CANCELLED' && (await endCancelledSchedule(deps.db, schedule.scheduleId))) {
    deps.logger.info(
      { scheduleId: schedule.scheduleId },
      'trip schedule stopped: its workflow was cancelled',
    );
  }
  if (run !== 'CLOSED') return false;
  await resume(client, deps, schedule);
  deps.logger.info({ scheduleId: schedule.scheduleId }, 'trip schedule resumed: its workflow had closed');
  return true;
}

/**
 * One check: resumes each COMMITTING schedule whose run has closed, page by page. Schedules
 * Temporal does not know are remembered in `unknown` and not asked about again. Answers how many
 * it resumed.
 */
export async function resumeClosedSchedules(
  client: Client,
  deps: ResumerDeps,
  unknown: Set<string> = new Set(),
): Promise<number> {
  let resumed = 0;
  let after = 0;
  for (;;) {
    const page = await committingSchedules(deps.db, { after, limit: RESUME_PAGE });
    for (const schedule of page) {
      if (!deps.running()) return resumed;
      try {
        if (await resumeIfClosed(client, deps, schedule, unknown)) resumed += 1;
      } catch (error) {
        // Another worker resumed it first, or Temporal is away: the next check looks again.
        deps.logger.debug({ err: error, scheduleId: schedule.scheduleId }, 'trip schedule not resumed');
      }
    }
    if (page.length < RESUME_PAGE) return resumed;
    after = page.at(-1)!.claimOrder;
  }
}

/** Starts the periodic check; answers its stop. */
export function startScheduleResumer(deps: ResumerDeps): () => void {
  const client = new Client({ connection: deps.connection, namespace: deps.config.TEMPORAL_NAMESPACE });
  const unknown = new Set<string>();
  return startPeriodicCheck({
    everyMs: RESUME_CHECK_MS,
    running: deps.running,
    check: () => resumeClosedSchedules(client, deps, unknown),
    logger: deps.logger,
    skipped: 'trip schedule resume check skipped',
  });
}
