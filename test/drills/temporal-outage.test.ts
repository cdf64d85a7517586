import { describe, expect, it } from 'vitest';
import {
  confirmJourney,
  eventually,
  holdForConfirm,
  journeyFacts,
  mobileTraveller,
  quote,
  setConfirmation,
  tripOf,
} from '../support/journeys.js';
import { useDrillStack } from './support/stack.js';

/**
 * Drill: the Temporal server is down while travellers confirm journeys that need a company's
 * decision. A REQUESTED confirm starts its decision process inside its transaction, so each such
 * confirm holds one of the API's pooled connections (DATABASE_POOL_MAX 4 here) while the start
 * runs. Before the start had its own short deadline, the Temporal client retried for about 20 s,
 * eight confirms took every connection for 40 s, and a quote that needs no Temporal at all waited
 * 37 s. Now the confirms answer 503 within seconds, writing nothing, and the rest of the API answers.
 */
const CONFIRMS = 8;

describe('drill: Temporal down while MANUAL confirms arrive', { timeout: 180_000 }, () => {
  const stack = useDrillStack({ withWorker: false });

  it('the confirms answer 503 and write nothing, other routes keep answering, and the same keys work once Temporal is back', async () => {
    const autoTrip = await tripOf(stack.db);
    const manualTrip = await tripOf(stack.db);
    await setConfirmation(stack.db, manualTrip.companyId, { mode: 'MANUAL_CONFIRM' });
    const held = [];
    for (let i = 0; i < CONFIRMS; i++) {
      const caller = await mobileTraveller(stack.app);
      const { journeyId, confirmBody } = await holdForConfirm(stack.app, caller, [{ trip: manualTrip }]);
      held.push({ caller, journeyId, body: confirmBody });
    }
    const bystander = await mobileTraveller(stack.app);

    await stack.killTemporal();
    const confirms = Promise.all(
      held.map(({ caller, journeyId, body }) => confirmJourney(stack.app, caller, journeyId, body)),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const quoteStarted = Date.now();
    const bystanderQuote = await quote(stack.app, bystander, [{ trip: autoTrip }]);
    const quoteMs = Date.now() - quoteStarted;
    expect(bystanderQuote.quote_id).toBeTruthy();
    expect(quoteMs).toBeLessThan(10_000);

    for (const refused of await confirms) {
      expect(refused.status, refused.text).toBe(503);
      expect(refused.body.errorCode).toBe('CONFIRMATION_UNAVAILABLE');
    }
    // Right after, the API refuses at once rather than hold another transaction for the start.
    const again = held[0]!;
    const refusedAt = Date.now();
    const refusedAgain = await confirmJourney(stack.app, again.caller, again.journeyId, again.body);
    expect(refusedAgain.status).toBe(503);
    expect(Date.now() - refusedAt).toBeLessThan(1_500);

    for (const { journeyId } of held) {
      const facts = await journeyFacts(stack.db, journeyId);
      expect(facts.journey!.status).toBe('HELD');
      expect(facts.allocations.map((allocation) => allocation.status)).toEqual(['HELD']);
    }
    const ids = held.map(({ journeyId }) => journeyId);
    expect(
      await stack.db.query(`select id from confirmation_requests where scope_id = any($1)`, [ids]),
    ).toEqual([]);
    const keys = held.map(({ body }) => body.idempotency_key);
    expect(await stack.db.query(`select key from idempotency_records where key = any($1)`, [keys])).toEqual(
      [],
    );

    // Temporal back: each confirm, retried with its own key, is REQUESTED.
    await stack.startTemporal();
    for (const { caller, journeyId, body } of held) {
      const confirmed = await eventually(
        () => confirmJourney(stack.app, caller, journeyId, body),
        (response) => response.status !== 503,
        60_000,
      );
      expect(confirmed.status, confirmed.text).toBe(200);
      expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    }
  });
});
