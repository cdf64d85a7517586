import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import {
  confirmUpdate,
  decideUpdate,
  holdUpdate,
  JOURNEY_CONFIRMATION_WORKFLOW,
  releaseHoldUpdate,
  stateQuery,
  type CompanyDecision,
  type ConfirmRequest,
  type JourneyConfirmationInput,
} from '../../../workflows/journey-confirmation.contract.js';
import type { journeyConfirmation } from '../../../workflows/journey-confirmation.js';
import { workflowIds } from '../../../workflows/shared.js';
import type { Activities } from '../../../workflows/steps.js';
import { companyDecisionStubs, type DecisionOutcome } from './company-decision-stubs.js';
import { Calls, pause, refusalOf, useWorkflowEnvironment } from '../../support/workflow-env.js';

/**
 * The journey-confirmation workflow's transitions and deadlines with stubbed activities (no
 * PostgreSQL): each stub answers as its transaction would and records that it ran.
 */
type JourneySteps = Pick<
  Activities,
  | 'placeJourneyHold'
  | 'releaseJourneyHold'
  | 'expireJourneyHold'
  | 'confirmJourneyScope'
  | 'recordCompanyDecision'
  | 'expireCompanyDecisions'
>;
type ConfirmOutcome = Extract<
  Awaited<ReturnType<JourneySteps['confirmJourneyScope']>>,
  { done: unknown }
>['done'];

const COMPANY_A = '00000000-0000-4000-8000-00000000000a';
const COMPANY_B = '00000000-0000-4000-8000-00000000000b';
const CONFIRMED: ConfirmOutcome = { status: 'CONFIRMED', deadline: null, awaiting: [] };

/** Stubs answering like the transactions; `answers` replaces the confirm and decision outcomes. */
function journeySteps(answers: { confirm?: ConfirmOutcome; decisions?: DecisionOutcome[] } = {}) {
  const calls = new Calls();
  const decisions = [...(answers.decisions ?? [])];
  const steps: JourneySteps = {
    async placeJourneyHold(input) {
      calls.record('placeJourneyHold', input);
      const expiresAt = new Date(Date.now() + input.holdMilliseconds).toISOString();
      return { done: { holdBatchId: input.holdBatchId, expiresAt } };
    },
    async releaseJourneyHold(input) {
      calls.record('releaseJourneyHold', input);
      return { done: { holdBatchId: input.holdBatchId, status: 'RELEASED' as const } };
    },
    async expireJourneyHold(input) {
      calls.record('expireJourneyHold', input);
      return { expired: true };
    },
    async confirmJourneyScope(input) {
      calls.record('confirmJourneyScope', input);
      return { done: answers.confirm ?? CONFIRMED };
    },
    ...companyDecisionStubs(calls, decisions),
  };
  return { steps, calls };
}

/** A REQUESTED outcome awaiting the given companies, each with its time left. */
function requested(...awaiting: [companyId: string, remainingMilliseconds: number][]): ConfirmOutcome {
  const earliest = Math.min(...awaiting.map(([, remaining]) => remaining));
  return {
    status: 'REQUESTED',
    deadline: new Date(Date.now() + earliest).toISOString(),
    awaiting: awaiting.map(([companyId, remainingMilliseconds]) => ({ companyId, remainingMilliseconds })),
  };
}

/** Holds a new journey the way the API does: update-with-start. */
async function holdNewJourney(
  client: Client,
  taskQueue: string,
  hold: { holdMinutes: number; timeScale: number },
) {
  const input: JourneyConfirmationInput = {
    scope: { kind: 'JOURNEY', id: randomUUID() },
    ownerUserId: randomUUID(),
    companyIds: [COMPANY_A, COMPANY_B],
    timeScale: hold.timeScale,
  };
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof journeyConfirmation>(
    JOURNEY_CONFIRMATION_WORKFLOW,
    {
      workflowId: workflowIds.journeyConfirmation(input.scope.id),
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    },
  );
  const held = await client.workflow.executeUpdateWithStart(holdUpdate, {
    args: [{ holdMinutes: hold.holdMinutes, requestId: randomUUID() }],
    startWorkflowOperation,
  });
  return { input, held, handle: await startWorkflowOperation.workflowHandle() };
}

/** A long hold (10 minutes) unless a test is about its expiry. */
const LONG_HOLD = { holdMinutes: 10, timeScale: 1 };

const confirmRequest = (holdBatchId: string): ConfirmRequest => ({
  holdBatchId,
  journeys: [{ journeyId: randomUUID(), travellers: [{ name: 'Rana' }] }],
  channel: 'CUSTOMER_MOBILE',
  idempotencyKey: randomUUID(),
});

const decision = (companyId: string, verdict: 'APPROVE' | 'REJECT'): CompanyDecision => ({
  companyId,
  decision: verdict,
  actorId: randomUUID(),
  decisionKey: `${companyId}:${verdict}`,
});

describe('journeyConfirmation workflow (stubbed activities)', () => {
  const temporal = useWorkflowEnvironment();

  it('hold → confirm with every company automatic: CONFIRMED, and the process ends', async () => {
    const { steps, calls } = journeySteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, held, handle } = await holdNewJourney(temporal.client, taskQueue, LONG_HOLD);
      expect(await handle.query(stateQuery)).toMatchObject({ phase: 'HELD', holdBatchId: held.holdBatchId });
      expect(calls.inputsOf('placeJourneyHold')).toEqual([
        {
          scope: input.scope,
          holdBatchId: held.holdBatchId,
          holdMilliseconds: 600_000,
          ownerUserId: input.ownerUserId,
        },
      ]);

      const confirmed = await handle.executeUpdate(confirmUpdate, {
        args: [confirmRequest(held.holdBatchId)],
      });
      expect(confirmed).toEqual({ status: 'CONFIRMED', deadline: null });
      expect(await handle.result()).toMatchObject({ phase: 'CONFIRMED', pendingCompanies: [] });
      expect((await handle.describe()).searchAttributes).toMatchObject({ ProcessStatus: ['CONFIRMED'] });
      expect(calls.names()).toEqual(['placeJourneyHold', 'confirmJourneyScope']);
    });
  });

  it('hold → confirm REQUESTED → each company approves: CONFIRMED after the last approval', async () => {
    const { steps, calls } = journeySteps({
      confirm: requested([COMPANY_A, 600_000], [COMPANY_B, 600_000]),
      decisions: [
        { outcome: 'REQUESTED', pendingCompanyIds: [COMPANY_B] },
        { outcome: 'CONFIRMED', pendingCompanyIds: [] },
      ],
    });
    await temporal.withWorker(steps, async (taskQueue) => {
      const { held, handle } = await holdNewJourney(temporal.client, taskQueue, LONG_HOLD);
      const confirmed = await handle.executeUpdate(confirmUpdate, {
        args: [confirmRequest(held.holdBatchId)],
      });
      expect(confirmed.status).toBe('REQUESTED');
      expect(await handle.query(stateQuery)).toMatchObject({
        phase: 'REQUESTED',
        pendingCompanies: [COMPANY_A, COMPANY_B],
      });

      const first = await handle.executeUpdate(decideUpdate, { args: [decision(COMPANY_A, 'APPROVE')] });
      expect(first).toEqual({ companyId: COMPANY_A, decision: 'APPROVE', outcome: 'REQUESTED' });
      expect(await handle.query(stateQuery)).toMatchObject({
        phase: 'REQUESTED',
        pendingCompanies: [COMPANY_B],
      });

      const last = await handle.executeUpdate(decideUpdate, { args: [decision(COMPANY_B, 'APPROVE')] });
      expect(last.outcome).toBe('CONFIRMED');
      expect(await handle.result()).toMatchObject({ phase: 'CONFIRMED' });
      expect(calls.inputsOf('recordCompanyDecision')).toEqual([
        expect.objectContaining({ companyId: COMPANY_A, decision: 'APPROVE' }),
        expect.objectContaining({ companyId: COMPANY_B, decision: 'APPROVE' }),
      ]);
      expect(calls.names()).not.toContain('expireCompanyDecisions');
    });
  });

  it('a company rejects: CANCELLED, and the process ends', async () => {
    const { steps } = journeySteps({
      confirm: requested([COMPANY_A, 600_000]),
      decisions: [{ outcome: 'CANCELLED', pendingCompanyIds: [] }],
    });
    await temporal.withWorker(steps, async (taskQueue) => {
      const { held, handle } = await holdNewJourney(temporal.client, taskQueue, LONG_HOLD);
      await handle.executeUpdate(confirmUpdate, { args: [confirmRequest(held.holdBatchId)] });
      const rejected = await handle.executeUpdate(decideUpdate, { args: [decision(COMPANY_A, 'REJECT')] });
      expect(rejected).toEqual({ companyId: COMPANY_A, decision: 'REJECT', outcome: 'CANCELLED' });
      expect(await handle.result()).toMatchObject({ phase: 'CANCELLED' });
    });
  });

  it('the decision deadline passes: the scope is cancelled by expireCompanyDecisions', async () => {
    const { steps, calls } = journeySteps({ confirm: requested([COMPANY_A, 300]) });
    await temporal.withWorker(steps, async (taskQueue) => {
      const { input, held, handle } = await holdNewJourney(temporal.client, taskQueue, LONG_HOLD);
      await handle.executeUpdate(confirmUpdate, { args: [confirmRequest(held.holdBatchId)] });
      expect(await handle.result()).toMatchObject({ phase: 'CANCELLED', pendingCompanies: [] });
      expect(calls.inputsOf('expireCompanyDecisions')).toEqual([{ scope: input.scope }]);
      expect(calls.names()).not.toContain('expireJourneyHold');
    });
  });

  it('the earliest pending deadline decides: an approval in time leaves the later deadline to run', async () => {
    const { steps, calls } = journeySteps({
      // A's window (2 s) leaves a loaded machine time to approve; B's (4 s) outlasts A's by as much.
      confirm: requested([COMPANY_A, 2_000], [COMPANY_B, 4_000]),
      decisions: [{ outcome: 'REQUESTED', pendingCompanyIds: [COMPANY_B] }],
    });
    await temporal.withWorker(steps, async (taskQueue) => {
      const { held, handle } = await holdNewJourney(temporal.client, taskQueue, LONG_HOLD);
      await handle.executeUpdate(confirmUpdate, { args: [confirmRequest(held.holdBatchId)] });
      const approvedAt = Date.now();
      await handle.executeUpdate(decideUpdate, { args: [decision(COMPANY_A, 'APPROVE')] });
      // Past A's deadline (at most 2 s after approvedAt), well before B's.
      await pause(2_200);
      expect(await handle.query(stateQuery)).toMatchObject({
        phase: 'REQUESTED',
        pendingCompanies: [COMPANY_B],
      });
      expect(await handle.result()).toMatchObject({ phase: 'CANCELLED' });
      // B's deadline ended it: later than A's could have (2 s after approvedAt at most).
      expect(Date.now() - approvedAt).toBeGreaterThanOrEqual(3_000);
      expect(calls.names().filter((name) => name === 'expireCompanyDecisions')).toHaveLength(1);
    });
  });

  it('an unconfirmed hold expires holdMinutes × timeScale after it was placed', async () => {
    const { steps, calls } = journeySteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      // 1 minute × 0.01 = 600 ms.
      const placedAt = Date.now();
      const { input, held, handle } = await holdNewJourney(temporal.client, taskQueue, {
        holdMinutes: 1,
        timeScale: 0.01,
      });
      expect(calls.inputsOf('placeJourneyHold')).toEqual([
        expect.objectContaining({ holdMilliseconds: 600 }),
      ]);
      expect(await handle.result()).toMatchObject({ phase: 'EXPIRED', holdBatchId: held.holdBatchId });
      expect(Date.now() - placedAt).toBeGreaterThanOrEqual(600);
      expect(calls.inputsOf('expireJourneyHold')).toEqual([
        { scope: input.scope, holdBatchId: held.holdBatchId },
      ]);
    });
  });

  it('release: RELEASED, the process ends and the hold never expires', async () => {
    const { steps, calls } = journeySteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { held, handle } = await holdNewJourney(temporal.client, taskQueue, {
        holdMinutes: 1,
        timeScale: 0.01,
      });
      const released = await handle.executeUpdate(releaseHoldUpdate, {
        args: [{ holdBatchId: held.holdBatchId }],
      });
      expect(released).toEqual({ holdBatchId: held.holdBatchId, status: 'RELEASED' });
      expect(await handle.result()).toMatchObject({ phase: 'RELEASED' });
      await pause(700);
      expect(calls.names()).toEqual(['placeJourneyHold', 'releaseJourneyHold']);
    });
  });

  it('refuses a second hold, a confirm of an unknown batch and a decision with no open request', async () => {
    const { steps, calls } = journeySteps();
    await temporal.withWorker(steps, async (taskQueue) => {
      const { held, handle } = await holdNewJourney(temporal.client, taskQueue, LONG_HOLD);
      expect(
        await refusalOf(
          handle.executeUpdate(holdUpdate, { args: [{ holdMinutes: 10, requestId: randomUUID() }] }),
        ),
      ).toEqual({
        code: 'HOLD_ALREADY_ACTIVE',
        status: 409,
        message: 'A hold is already active; release it or confirm',
      });
      expect(
        await refusalOf(handle.executeUpdate(confirmUpdate, { args: [confirmRequest(randomUUID())] })),
      ).toEqual({
        code: 'HOLD_NOT_FOUND',
        status: 404,
        message: 'No such hold batch for this journey',
      });
      expect(
        await refusalOf(handle.executeUpdate(decideUpdate, { args: [decision(COMPANY_A, 'APPROVE')] })),
      ).toEqual({
        code: 'JOURNEY_CONFIRMATION_STATE_CONFLICT',
        status: 409,
        message: 'There is no open confirmation request for this company',
      });
      expect(await handle.query(stateQuery)).toMatchObject({ phase: 'HELD', holdBatchId: held.holdBatchId });
      expect(calls.names()).toEqual(['placeJourneyHold']);
      await handle.terminate('test done');
    });
  });

  it('a first hold its transaction refuses fails the Update with that refusal, and the process ends', async () => {
    const { steps } = journeySteps();
    steps.placeJourneyHold = async () => ({
      refused: { status: 409, code: 'SEATS_UNAVAILABLE', message: 'The seats are taken' },
    });
    await temporal.withWorker(steps, async (taskQueue) => {
      const scopeId = randomUUID();
      const startWorkflowOperation = new WithStartWorkflowOperation<typeof journeyConfirmation>(
        JOURNEY_CONFIRMATION_WORKFLOW,
        {
          workflowId: workflowIds.journeyConfirmation(scopeId),
          taskQueue,
          args: [
            {
              scope: { kind: 'JOURNEY', id: scopeId },
              ownerUserId: randomUUID(),
              companyIds: [],
              timeScale: 1,
            },
          ],
          workflowIdConflictPolicy: 'USE_EXISTING',
        },
      );
      const refused = await refusalOf(
        temporal.client.workflow.executeUpdateWithStart(holdUpdate, {
          args: [{ holdMinutes: 10, requestId: randomUUID() }],
          startWorkflowOperation,
        }),
      );
      expect(refused).toEqual({ code: 'SEATS_UNAVAILABLE', status: 409, message: 'The seats are taken' });
      expect(await (await startWorkflowOperation.workflowHandle()).result()).toMatchObject({ phase: 'NEW' });
    });
  });
});
