import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { journeyConfirmationClient } from '../../../api/temporal/journey-confirmation-client.js';
import { stateQuery, type ProcessState } from '../../../workflows/journey-confirmation.contract.js';
import { workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import { Calls, useWorkflowEnvironment } from '../../support/workflow-env.js';

/**
 * The journey-confirmation workflow as a REQUESTED confirm starts it now (issue 18): delayed until
 * the earliest decision deadline, woken early by a decision's signal (the decision itself is a
 * transaction of the API), or at the deadline, which the database settles. Started and signalled
 * through the API's own client (api/temporal/journey-confirmation-client.ts); stubbed activities.
 */
type Settled = Awaited<ReturnType<Activities['settleDecisionDeadline']>>;

const COMPANY_A = '00000000-0000-4000-8000-00000000000a';
const COMPANY_B = '00000000-0000-4000-8000-00000000000b';

/** settleDecisionDeadline answering each call with the next of `answers`. */
function settling(...answers: Settled[]) {
  const calls = new Calls();
  const steps: Pick<Activities, 'settleDecisionDeadline'> = {
    async settleDecisionDeadline(input) {
      calls.record('settleDecisionDeadline', input);
      const next = answers.shift();
      if (!next) throw new Error('no settled answer left in the stub');
      return next;
    },
  };
  return { steps, calls };
}

/**
 * Starts the scope's process as a REQUESTED confirm does, each company with `ms` left to decide; the
 * start delay ends `wakeLeadMs` before the earliest deadline (the client's default: a minute).
 */
async function confirmRequested(
  client: Client,
  taskQueue: string,
  awaiting: [string, number][],
  wakeLeadMs?: number,
) {
  const workflow = journeyConfirmationClient(
    client,
    { TEMPORAL_TASK_QUEUE: taskQueue, TIME_SCALE: 1 },
    wakeLeadMs,
  );
  const scope = { kind: 'JOURNEY' as const, id: randomUUID() };
  const ownerUserId = randomUUID();
  await workflow.awaitDecisions({
    scope,
    ownerUserId,
    companyIds: awaiting.map(([companyId]) => companyId),
    processIds: [],
    awaiting: awaiting.map(([companyId, remainingMilliseconds]) => ({ companyId, remainingMilliseconds })),
  });
  const handle = client.workflow.getHandle(workflowIds.journeyConfirmation(scope.id));
  const decided = (
    companyId: string,
    outcome: 'REQUESTED' | 'CONFIRMED' | 'CANCELLED',
    pending: string[] = [],
  ) => workflow.noteDecision({ scope, ownerUserId, companyId }, { outcome, pendingCompanyIds: pending });
  return { scope, handle, decided };
}

async function workflowTasks(handle: WorkflowHandle): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.filter((event) => event.workflowTaskCompletedEventAttributes).length;
}

const TEN_MINUTES = 600_000;

describe('journeyConfirmation woken by decisions (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  it('runs no workflow task until a decision: the approval signal ends it CONFIRMED in one task', async () => {
    const { steps, calls } = settling();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle, decided } = await confirmRequested(temporal.client, taskQueue, [
        [COMPANY_A, TEN_MINUTES],
      ]);
      const described = await handle.describe();
      expect(described.status.name).toBe('RUNNING');
      expect(described.searchAttributes).toMatchObject({ ProcessStatus: ['REQUESTED'] });
      expect(await workflowTasks(handle)).toBe(0);

      await decided(COMPANY_A, 'CONFIRMED');
      const result: ProcessState = await handle.result();
      expect(result).toMatchObject({ phase: 'CONFIRMED', pendingCompanies: [] });
      expect(await workflowTasks(handle)).toBe(1);
      expect(calls.names()).toEqual([]);
      expect((await handle.describe()).searchAttributes).toMatchObject({ ProcessStatus: ['CONFIRMED'] });
    });
  });

  it('two companies: the first approval leaves the other pending, the rejection of the other ends it', async () => {
    const { steps, calls } = settling();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle, decided } = await confirmRequested(temporal.client, taskQueue, [
        [COMPANY_A, TEN_MINUTES],
        [COMPANY_B, TEN_MINUTES + 60_000],
      ]);
      await decided(COMPANY_A, 'REQUESTED', [COMPANY_B]);
      const state = await handle.query(stateQuery);
      expect(state).toMatchObject({ phase: 'REQUESTED', pendingCompanies: [COMPANY_B] });
      // The deadline the process shows is now company B's (a minute later than A's).
      const shown = Date.parse(state.deadline!);
      expect(shown - Date.now()).toBeGreaterThan(TEN_MINUTES);

      await decided(COMPANY_B, 'CANCELLED');
      expect(await handle.result()).toMatchObject({ phase: 'CANCELLED', pendingCompanies: [] });
      expect(calls.names()).toEqual([]);
    });
  });

  it('no decision: the process is made shortly before the deadline and its timer settles it at the deadline', async () => {
    const { steps, calls } = settling({ status: 'CANCELLED', awaiting: [] });
    let settledAt = 0;
    const timed: typeof steps = {
      settleDecisionDeadline: (input) => {
        settledAt = Date.now();
        return steps.settleDecisionDeadline(input);
      },
    };
    await temporal.withWorker(timed, async (taskQueue) => {
      const dueAt = Date.now() + 1_500;
      const { scope, handle } = await confirmRequested(temporal.client, taskQueue, [[COMPANY_A, 1_500]], 500);
      expect(await workflowTasks(handle)).toBe(0);
      expect(await handle.result()).toMatchObject({ phase: 'CANCELLED', pendingCompanies: [] });
      expect(calls.inputsOf('settleDecisionDeadline')).toEqual([{ scope }]);
      expect(settledAt).toBeGreaterThanOrEqual(dueAt);
      const events = (await handle.fetchHistory()).events ?? [];
      // The first task (a second after the start) set the timer; the timer's task settled the scope.
      expect(events.filter((event) => event.workflowTaskCompletedEventAttributes)).toHaveLength(2);
      expect(events.filter((event) => event.timerFiredEventAttributes)).toHaveLength(1);
      expect(events.some((event) => event.activityTaskScheduledEventAttributes)).toBe(false);
    });
  });

  it('a deadline the database has moved (a lost signal) is waited for again, then settled', async () => {
    const { steps, calls } = settling(
      { status: 'REQUESTED', awaiting: [{ companyId: COMPANY_B, remainingMilliseconds: 400 }] },
      { status: 'CANCELLED', awaiting: [] },
    );
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await confirmRequested(temporal.client, taskQueue, [
        [COMPANY_A, 300],
        [COMPANY_B, 700],
      ]);
      expect(await handle.result()).toMatchObject({ phase: 'CANCELLED', pendingCompanies: [] });
      expect(calls.names()).toEqual(['settleDecisionDeadline', 'settleDecisionDeadline']);
    });
  });

  it('a confirm that rolled back (the database still says HELD at the deadline): the process ends, nothing settled', async () => {
    const { steps } = settling({ status: 'HELD', awaiting: [] });
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await confirmRequested(temporal.client, taskQueue, [[COMPANY_A, 300]]);
      expect(await handle.result()).toMatchObject({ phase: 'NEW' });
    });
  });

  it('a decision signalled after the process ended starts no new one', async () => {
    const { steps } = settling();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle, decided } = await confirmRequested(temporal.client, taskQueue, [
        [COMPANY_A, TEN_MINUTES],
      ]);
      await decided(COMPANY_A, 'CONFIRMED');
      const { runId } = await handle.describe();
      await handle.result();
      await decided(COMPANY_A, 'CONFIRMED');
      const latest = await handle.describe();
      expect(latest.runId).toBe(runId);
      expect(latest.status.name).toBe('COMPLETED');
    });
  });
});
