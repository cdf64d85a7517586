import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import {
  decideUpdate,
  JOURNEY_CONFIRMATION_WORKFLOW,
  stateQuery,
  type CompanyDecision,
  type JourneyConfirmationInput,
} from '../../../workflows/journey-confirmation.contract.js';
import type { journeyConfirmation } from '../../../workflows/journey-confirmation.js';
import { workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import { companyDecisionStubs, type DecisionOutcome } from './company-decision-stubs.js';
import { Calls, pause, replayRecordedHistory, useWorkflowEnvironment } from '../../support/workflow-env.js';

/**
 * The journey-confirmation workflow started by a REQUESTED confirm (issue 18: holds and automatic
 * confirms run without it): it reads the pending requests once (the confirm's transaction has
 * committed by then) and waits for the decisions or the earliest deadline. Stubbed activities.
 */
type DecisionSteps = Pick<
  Activities,
  'loadJourneyDecisions' | 'recordCompanyDecision' | 'expireCompanyDecisions'
>;
type Loaded = Awaited<ReturnType<DecisionSteps['loadJourneyDecisions']>>;

const COMPANY_A = '00000000-0000-4000-8000-00000000000a';
const COMPANY_B = '00000000-0000-4000-8000-00000000000b';

function decisionSteps(loaded: Loaded, decisions: DecisionOutcome[] = [], loadDelayMs = 0) {
  const calls = new Calls();
  const steps: DecisionSteps = {
    async loadJourneyDecisions(input) {
      calls.record('loadJourneyDecisions', input);
      await pause(loadDelayMs);
      return loaded;
    },
    ...companyDecisionStubs(calls, decisions),
  };
  return { steps, calls };
}

const requested = (...awaiting: [string, number][]): Loaded => ({
  status: 'REQUESTED',
  deadline: new Date(Date.now() + Math.min(...awaiting.map(([, ms]) => ms))).toISOString(),
  awaiting: awaiting.map(([companyId, remainingMilliseconds]) => ({ companyId, remainingMilliseconds })),
});

async function startRequested(client: Client, taskQueue: string) {
  const input: JourneyConfirmationInput = {
    scope: { kind: 'JOURNEY', id: randomUUID() },
    ownerUserId: randomUUID(),
    companyIds: [COMPANY_A, COMPANY_B],
    timeScale: 1,
    startsRequested: true,
  };
  const handle = await client.workflow.start<typeof journeyConfirmation>(JOURNEY_CONFIRMATION_WORKFLOW, {
    workflowId: workflowIds.journeyConfirmation(input.scope.id),
    taskQueue,
    args: [input],
  });
  return { input, handle };
}

const decision = (companyId: string, verdict: 'APPROVE' | 'REJECT'): CompanyDecision => ({
  companyId,
  decision: verdict,
  actorId: randomUUID(),
  decisionKey: `${companyId}:${verdict}`,
});

describe('journeyConfirmation started by a REQUESTED confirm (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  it('reads the requests, then each approval counts: CONFIRMED after the last one, no hold step ever', async () => {
    const { steps, calls } = decisionSteps(requested([COMPANY_A, 600_000], [COMPANY_B, 600_000]), [
      { outcome: 'REQUESTED', pendingCompanyIds: [COMPANY_B] },
      { outcome: 'CONFIRMED', pendingCompanyIds: [] },
    ]);
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, handle } = await startRequested(temporal.client, taskQueue);
      const first = await handle.executeUpdate(decideUpdate, { args: [decision(COMPANY_A, 'APPROVE')] });
      expect(first.outcome).toBe('REQUESTED');
      expect(await handle.query(stateQuery)).toMatchObject({
        phase: 'REQUESTED',
        pendingCompanies: [COMPANY_B],
      });
      const last = await handle.executeUpdate(decideUpdate, { args: [decision(COMPANY_B, 'APPROVE')] });
      expect(last.outcome).toBe('CONFIRMED');
      expect(await handle.result()).toMatchObject({ phase: 'CONFIRMED' });
      expect(calls.inputsOf('loadJourneyDecisions')).toEqual([{ scope: input.scope }]);
      expect(calls.names()).toEqual([
        'loadJourneyDecisions',
        'recordCompanyDecision',
        'recordCompanyDecision',
      ]);
      expect((await handle.describe()).searchAttributes).toMatchObject({ ProcessStatus: ['CONFIRMED'] });
    });
  });

  it('a decision sent while the requests are still being read waits for them instead of being refused', async () => {
    const { steps } = decisionSteps(
      requested([COMPANY_A, 600_000]),
      [{ outcome: 'CONFIRMED', pendingCompanyIds: [] }],
      1_000,
    );
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await startRequested(temporal.client, taskQueue);
      const decided = await handle.executeUpdate(decideUpdate, { args: [decision(COMPANY_A, 'APPROVE')] });
      expect(decided.outcome).toBe('CONFIRMED');
      expect(await handle.result()).toMatchObject({ phase: 'CONFIRMED' });
    });
  });

  it('the earliest deadline passes: expireCompanyDecisions cancels the scope', async () => {
    const { steps, calls } = decisionSteps(requested([COMPANY_A, 300]));
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, handle } = await startRequested(temporal.client, taskQueue);
      expect(await handle.result()).toMatchObject({ phase: 'CANCELLED', pendingCompanies: [] });
      expect(calls.inputsOf('expireCompanyDecisions')).toEqual([{ scope: input.scope }]);
    });
  });

  it('the deadline is released inside the workflow task its timer wakes (a local activity)', async () => {
    const { steps } = decisionSteps(requested([COMPANY_A, 300]));
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await startRequested(temporal.client, taskQueue);
      await handle.result();
      const events = (await handle.fetchHistory()).events ?? [];
      const afterTimer = events.slice(events.findIndex((event) => event.timerFiredEventAttributes));
      expect(afterTimer.some((event) => event.activityTaskScheduledEventAttributes)).toBe(false);
      expect(afterTimer.filter((event) => event.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    });
  });

  it('a process that scheduled its release as an ordinary activity (before the change) replays unchanged', async () => {
    // Recorded (binary protobuf, as the client fetched it) from the code before the release became
    // a local activity: started, timer, workflow task, activity scheduled, started and completed,
    // workflow task, completed.
    await expect(
      replayRecordedHistory(new URL('./histories/deadline-release-activity.pb', import.meta.url)),
    ).resolves.toBeUndefined();
  });

  it('a confirm that rolled back (the scope is still HELD) leaves nothing to wait for: the process ends', async () => {
    const { steps, calls } = decisionSteps({ status: 'HELD', deadline: null, awaiting: [] });
    await temporal.withWorker(steps, async (taskQueue) => {
      const { handle } = await startRequested(temporal.client, taskQueue);
      await handle.result();
      expect(calls.names()).toEqual(['loadJourneyDecisions']);
    });
  });
});
