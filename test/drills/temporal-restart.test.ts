import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { workflowIds } from '../../workflows/shared.js';
import {
  confirmJourney,
  eventually,
  holdJourney,
  journeyFacts,
  mobileTraveller,
  quote,
  setConfirmation,
  travellers,
  tripOf,
} from '../support/journeys.js';
import { useDrillStack } from './support/stack.js';

/**
 * Drill: the Temporal server is killed (SIGKILL) and started again on its SQLite file while
 * journeys wait in HELD (their hold's expiry) and REQUESTED (a company's decision deadline). Every
 * hold still expires, every deadline still fires, and no journey is lost. TIME_SCALE shortens the
 * waits: the 15-minute decision window lasts 27 s and the 20-minute hold 36 s.
 */
const TIME_SCALE = 0.03;
const EACH = 3;

describe('drill: the Temporal server killed and restarted', { timeout: 150_000 }, () => {
  const stack = useDrillStack({ env: { TIME_SCALE: String(TIME_SCALE), HOLD_MINUTES: '20' } });

  it('every hold expires and every decision deadline fires after the restart; no journey is lost', async () => {
    const autoTrip = await tripOf(stack.db);
    const manualTrip = await tripOf(stack.db);
    await setConfirmation(stack.db, manualTrip.companyId, { mode: 'MANUAL_CONFIRM' });
    const caller = await mobileTraveller(stack.app);
    const held: string[] = [];
    const requested: string[] = [];
    for (let i = 0; i < EACH; i++) {
      const quoted = await quote(stack.app, caller, [{ trip: autoTrip }]);
      const hold = await holdJourney(stack.app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
      expect(hold.status, hold.text).toBe(200);
      held.push(quoted.journey_id);
    }
    for (let i = 0; i < EACH; i++) {
      const quoted = await quote(stack.app, caller, [{ trip: manualTrip }]);
      const hold = await holdJourney(stack.app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
      expect(hold.status, hold.text).toBe(200);
      const confirmed = await confirmJourney(stack.app, caller, quoted.journey_id, {
        quote_id: quoted.quote_id,
        hold_batch_id: hold.body.data.holdBatchId,
        travellers: travellers(1),
        idempotency_key: `confirm-${randomUUID()}`,
      });
      expect(confirmed.status, confirmed.text).toBe(200);
      expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
      requested.push(quoted.journey_id);
    }

    await stack.killTemporal();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const journeyId of [...held, ...requested]) {
      expect((await journeyFacts(stack.db, journeyId)).journey!.status).toMatch(/^(HELD|REQUESTED)$/);
    }
    await stack.startTemporal();

    const settled = (journeyId: string) =>
      eventually(
        () => journeyFacts(stack.db, journeyId),
        (facts) => !['HELD', 'REQUESTED'].includes(facts.journey!.status),
        90_000,
      );
    for (const journeyId of held) {
      const facts = await settled(journeyId);
      expect(facts.journey!.status).toBe('EXPIRED');
      expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['EXPIRED']);
    }
    for (const journeyId of requested) {
      const facts = await settled(journeyId);
      expect(facts.journey).toEqual({ status: 'CANCELLED', failure_reason: 'DECISION_DEADLINE_PASSED' });
      expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['RELEASED']);
    }
    // No journey lost: the server still knows every decision process, and each has finished. An AUTO
    // hold has no process (issue 18: it is a transaction, expired by the next writer or the sweep).
    for (const journeyId of held) {
      const handle = stack.temporal.workflow.getHandle(workflowIds.journeyConfirmation(journeyId));
      await expect(handle.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    }
    for (const journeyId of requested) {
      const handle = stack.temporal.workflow.getHandle(workflowIds.journeyConfirmation(journeyId));
      const result = await eventually(
        async () => (await handle.describe()).status.name,
        (status) => status !== 'RUNNING',
        30_000,
      );
      expect(result).toBe('COMPLETED');
    }
    expect(stack.worker!.running()).toBe(true);
    expect(stack.api.running()).toBe(true);
  });
});
