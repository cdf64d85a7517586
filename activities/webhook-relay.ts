import { Context } from '@temporalio/activity';
import type { SearchAttributePair } from '@temporalio/common';
import pg from 'pg';
import { hasWebhookWork, unstartedDeliveries, type DeliveryToStart } from '../db/queries/webhooks.js';
import { claimFirstAttempts, type FirstAttempt } from '../db/writes/webhook-first-attempts.js';
import { dispatchOutboxEvents, markDeliveriesStarted } from '../db/writes/webhook-deliveries.js';
import { attemptPending } from './webhook-attempt.js';
import type { ActivityDeps } from './index.js';

/**
 * The relay's effects: outbox events → deliveries, the FIRST attempt of every new delivery sent
 * right here (many at once, no workflow), and the deliveries that need a webhook-delivery workflow
 * (a retry after that attempt, or a manual redelivery whose start failed) handed back to the relay
 * workflow, which starts them.
 */

export interface RelayStepInput {
  /** Deliveries whose workflows the previous step started. */
  started: string[];
  /** Outbox events per claim, and workflows to start per step. */
  limit: number;
  /** First attempts in flight at once. */
  concurrency: number;
  /** The claim on a first attempt: longer than an attempt (2 s) and its log row can take. */
  leaseMs: number;
  /** The step stops claiming after this long (then finishes what it sent and returns). */
  budgetMs: number;
  /** A first attempt's deadline (default RELAY_FIRST_ATTEMPTS.deadlineMs). */
  attemptMs?: number;
  /** First attempts of one company in flight at once (default RELAY_FIRST_ATTEMPTS.perCompany). */
  perCompany?: number;
}

/**
 * The relay's first attempts. Each ends within 2 s (lookup and HTTP exchange): a receiver that has
 * not answered by then is a TIMEOUT, handed to its webhook-delivery workflow, which retries with
 * the full WEBHOOK_ATTEMPT_TIMEOUT_MS. So a step ends at most 2 s after its budget, and a receiver
 * that hangs holds a slot 2 s at most. One company has at most 16 of the 48 slots: its receivers
 * hanging cannot keep another company's deliveries waiting for one.
 */
export const RELAY_FIRST_ATTEMPTS = { deadlineMs: 2_000, perCompany: 16 } as const;

export interface RelayStepResult {
  /** First attempts this step sent. */
  attempted: number;
  /** Deliveries whose webhook-delivery workflow is to be started. */
  toStart: DeliveryToStart[];
}

/** Workflows to start, built by the relay workflow (which owns their ids and search attributes). */
export interface WorkflowStarts {
  workflowType: string;
  taskQueue: string;
  starts: {
    workflowId: string;
    args: unknown[];
    searchAttributes: SearchAttributePair[];
    memo: Record<string, unknown>;
  }[];
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A pool of at most `concurrency` first attempts, `perCompany` of one company: free slots are
 * filled by claims (after turning new outbox events into deliveries) until the budget is spent or
 * there is nothing more to claim; then the attempts in flight finish, each within its deadline
 * (RELAY_FIRST_ATTEMPTS). Answers how many were sent. A retry's workflow is started after the step
 * (the budget and the deadline bound how late: well under the first backoff of 10 s). An attempt
 * that throws (the database away) stays claimed: it is sent again after its lease.
 */
async function sendFirstAttempts(deps: ActivityDeps, input: RelayStepInput): Promise<number> {
  const until = Date.now() + input.budgetMs;
  const relay = { deadlineMs: input.attemptMs ?? RELAY_FIRST_ATTEMPTS.deadlineMs };
  const perCompany = input.perCompany ?? RELAY_FIRST_ATTEMPTS.perCompany;
  const running = new Set<Promise<void>>();
  const inFlight = new Map<string, number>();
  const count = (companyId: string, change: number) => {
    const now = (inFlight.get(companyId) ?? 0) + change;
    if (now > 0) inFlight.set(companyId, now);
    else inFlight.delete(companyId);
  };
  let sent = 0;
  const attempt = (delivery: FirstAttempt) => {
    count(delivery.companyId, 1);
    const flight: Promise<void> = attemptPending(deps, delivery, 'AUTOMATIC', relay)
      .then(() => undefined)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, deliveryId: delivery.id }, 'webhook first attempt failed'),
      )
      .finally(() => {
        running.delete(flight);
        count(delivery.companyId, -1);
      });
    running.add(flight);
  };
  for (;;) {
    const free = input.concurrency - running.size;
    if (Date.now() < until && free > 0) {
      const { events } = await dispatchOutboxEvents(deps.db, input.limit);
      const claim = { limit: free, leaseMs: input.leaseMs, perCompany, inFlight };
      const batch = await claimFirstAttempts(deps.db, claim);
      batch.forEach(attempt);
      sent += batch.length;
      if (!batch.length && !events && !running.size) return sent;
      if (batch.length || events) continue;
    } else if (!running.size) {
      return sent;
    }
    // Slots are full, or nothing could be claimed: wait for an attempt to end (or look again soon).
    await Promise.race([...running, pause(50)]);
  }
}

/** One relay step: mark, dispatch and send first attempts, answer what needs a workflow. */
export async function relayStep(deps: ActivityDeps, input: RelayStepInput): Promise<RelayStepResult> {
  await markDeliveriesStarted(deps.db, input.started);
  const attempted = await sendFirstAttempts(deps, input);
  return { attempted, toStart: await unstartedDeliveries(deps.db, input.limit) };
}

/**
 * The idle loop's connection in pg_stat_activity. A relay run that is terminated (or cancelled)
 * learns it when a heartbeat reaches the server (the worker sends one at most every 12 s, 4/5 of
 * the 15 s heartbeat timeout); until then its loop may still step, which the claims make harmless
 * (each delivery is sent once), and the run's end is seen when no such session is left.
 */
export const RELAY_LISTENER_NAME = 'webhook-relay';

/**
 * The idle loop steps at most this often: an event after a quiet spell is stepped on at once, and
 * under load one step takes the events of every commit in the gap. A step costs the worker a few
 * statements whatever it finds (bench:journeys, AUTO at about 110 journeys/s: worker CPU per journey
 * 1.1-1.5 ms stepping on every commit, 0.7-1.1 ms at most every 100 ms, 0.5 ms at 250 ms).
 */
const STEP_GAP_MS = 250;

/**
 * How long the idle loop runs at most when nothing needs a workflow, before it hands back to the
 * workflow: a handback costs the relay's history about 12 events (two activities and their workflow
 * tasks), so an idle relay adds them once a minute instead of at every sweep. Well below the
 * activity's 2 minute startToCloseTimeout, with a step (budget and deadline: about 4 s) to spare.
 */
export const RELAY_IDLE_SPAN_MS = 60_000;

/** The relay's idle loop: its steps' settings and how often it sweeps. */
export interface RelayWaitInput extends Partial<Omit<RelayStepInput, 'started'>> {
  /**
   * The loop steps (sweeps) after this long without an announced commit: the bound on the lag
   * should a notification be lost, or a lease pass. An input without the step's settings only
   * waits, and returns after this long.
   */
  waitMs: number;
}

/**
 * The relay's idle loop: holds LISTEN webhook_outbox and runs the relay's step itself on every
 * announced commit (events dispatched, first attempts sent: database and HTTP work, no workflow),
 * and as a sweep once `waitMs` has passed since its last step, so a busy outbox, and an idle one,
 * cost the Temporal server and the relay workflow nothing. Returns once a step finds deliveries
 * that need a webhook-delivery workflow (the workflow's next step answers and starts them), after
 * RELAY_IDLE_SPAN_MS, when the activity is cancelled, or when PostgreSQL ends its LISTEN session.
 * It steps once after LISTEN, so a commit between the workflow's last step and LISTEN is not missed.
 *
 * An input without the step's settings (an activity a relay run scheduled before the loop existed)
 * only waits, as it did then: it returns once an announced commit (or the first look) finds work,
 * or after `waitMs`.
 */
async function relayWhileIdle(deps: ActivityDeps, input: RelayWaitInput): Promise<void> {
  const { limit, concurrency, leaseMs, budgetMs, attemptMs, perCompany } = input;
  const settings =
    limit !== undefined && concurrency !== undefined && leaseMs !== undefined && budgetMs !== undefined
      ? { started: [], limit, concurrency, leaseMs, budgetMs, attemptMs, perCompany }
      : undefined;
  const listener = new pg.Client({
    connectionString: deps.config.DATABASE_URL,
    application_name: RELAY_LISTENER_NAME,
    connectionTimeoutMillis: deps.config.DATABASE_POOL_ACQUIRE_TIMEOUT_MS,
  });
  let lost = false;
  let wake: () => void = () => undefined;
  // PostgreSQL may end this session at any time (a restart's 57P01, a failover, an operator's
  // pg_terminate_backend): pg then emits 'error' on the client, and an 'error' nobody listens to is
  // an uncaught exception that stops the worker with every activity in it. Instead the wait ends (a
  // line logged, no stack): the workflow steps, which catches up what was committed meanwhile, and
  // its next wait listens on a new session, once the server is back. The listener stays attached
  // until the client is gone, so a later error (while closing it) is dropped too.
  listener.on('error', (error: Error & { code?: string }) => {
    if (lost) return;
    lost = true;
    deps.logger.warn(
      { reason: error.message, code: error.code },
      'webhook relay: PostgreSQL ended its LISTEN session; the wait ends, the relay steps and waits again',
    );
    wake();
  });
  const context = Context.current();
  const heartbeat = setInterval(() => context.heartbeat(), 2000);
  try {
    // A connect that fails (the server away) fails the activity: Temporal runs it again after its
    // retry backoff (1 s, doubling to 30 s).
    await listener.connect();
    let announced = true;
    let stopped = false;
    listener.on('notification', () => {
      announced = true;
      wake();
    });
    context.cancelled.catch(() => {
      stopped = true;
      wake();
    });
    await listener.query('LISTEN webhook_outbox');
    const until = Date.now() + (settings ? Math.max(input.waitMs, RELAY_IDLE_SPAN_MS) : input.waitMs);
    let lastStep = 0;
    // The next sweep (a step with no announced commit): none for an input without the settings.
    const sweepAt = () => (settings ? lastStep + input.waitMs : until);
    while (!stopped && !lost && Date.now() < until) {
      if (announced || Date.now() >= sweepAt()) {
        const gap = lastStep + STEP_GAP_MS - Date.now();
        if (gap > 0) await pause(gap);
        announced = false;
        lastStep = Date.now();
        if (!settings) {
          if (await hasWebhookWork(deps.db)) return;
        } else if ((await relayStep(deps, settings)).toStart.length) {
          return;
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(until, sweepAt()) - Date.now());
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    clearInterval(heartbeat);
    await listener.end().catch(() => undefined);
  }
}

/** The relay's activities: the step (first attempts), starting workflows, the wait. */
export function createWebhookRelayActivities(deps: ActivityDeps) {
  return {
    /**
     * The relay's step (a heartbeating activity: a step sends for up to budgetMs plus a first
     * attempt's deadline). A worker that dies mid-step is noticed within the heartbeat timeout; the
     * deliveries it had claimed are sent again after their lease.
     */
    async relayWebhookDeliveries(input: RelayStepInput): Promise<RelayStepResult> {
      const context = Context.current();
      const heartbeat = setInterval(() => context.heartbeat(), 2000);
      try {
        return await relayStep(deps, input);
      } finally {
        clearInterval(heartbeat);
      }
    },

    /**
     * Starts the relay's delivery workflows through the worker's client (a plain start costs the
     * server a fraction of a child workflow's start and never wakes the relay when it ends). A
     * workflow already running with the id is kept; one that has ended is run again, and finds its
     * delivery no longer PENDING. Answers the workflow ids.
     */
    async startWebhookDeliveries(input: WorkflowStarts): Promise<string[]> {
      const { client } = Context.current();
      await Promise.all(
        input.starts.map((start) =>
          client.workflow.start(input.workflowType, {
            workflowId: start.workflowId,
            taskQueue: input.taskQueue,
            args: start.args,
            typedSearchAttributes: start.searchAttributes,
            memo: start.memo,
            workflowIdConflictPolicy: 'USE_EXISTING',
            workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          }),
        ),
      );
      return input.starts.map((start) => start.workflowId);
    },

    /**
     * The relay's wait when its step found nothing to do (relayWhileIdle): it steps on each
     * committed outbox event itself, and sweeps every waitMs, so a lost notification (or a lease
     * that passes) costs at most waitMs; it hands back to the workflow only when workflows are to
     * be started, or after RELAY_IDLE_SPAN_MS.
     */
    async awaitWebhookOutbox(input: RelayWaitInput): Promise<void> {
      await relayWhileIdle(deps, input);
    },
  };
}
