import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { confirmJourney, holdJourney } from '../../support/journeys.js';
import { journeyIn, scopeSnapshot } from '../../support/scope-states.js';

/**
 * SPEC "Journey confirmation": the table moves a journey from held (DELETE hold batch: released; POST
 * confirm: CONFIRMED or REQUESTED) and from REQUESTED (approve: CONFIRMED; reject or deadline: cancelled
 * scope), and lists no move out of a journey once confirmed, requested or cancelled. Those journeys
 * are not released, not held again and not confirmed again: each attempt is 409 with its code and
 * writes nothing (journey, batch, seats, tickets, bookings, requests, events). A consumed hold
 * confirmed again under a new key while REQUESTED or CONFIRMED (409 ALREADY_CONFIRMED) is
 * journey-holds.test.ts's and journey-direct.test.ts's.
 */
describe('a confirmed, requested or cancelled journey: the moves SPEC does not list', () => {
  const app = useTestApp();

  for (const state of ['CONFIRMED', 'REQUESTED', 'CANCELLED'] as const) {
    it(`${state}: DELETE of its hold batch is 409 HOLD_CLOSED, a new hold 409 JOURNEY_NOT_HOLDABLE; nothing written`, async () => {
      const journey = await journeyIn(app, state);
      const before = await scopeSnapshot(app.db, journey.scope);
      const released = await app.request(
        `/api/journeys/${journey.scope.scopeId}/holds/${journey.holdBatchId}`,
        {
          method: 'DELETE',
          headers: journey.caller.headers,
        },
      );
      expect([released.status, released.body.errorCode], released.text).toEqual([409, 'HOLD_CLOSED']);
      const held = await holdJourney(app, journey.caller, journey.scope.scopeId, {
        quote_id: journey.quoted.quote_id,
        idempotency_key: `hold-${randomUUID()}`,
      });
      expect([held.status, held.body.errorCode], held.text).toEqual([409, 'JOURNEY_NOT_HOLDABLE']);
      expect(await scopeSnapshot(app.db, journey.scope)).toEqual(before);
    });
  }

  // README: "a confirm of a consumed hold with another key is 409 ALREADY_CONFIRMED", the scope since cancelled too.
  it('CANCELLED: a confirm of its consumed hold under a new key is 409 ALREADY_CONFIRMED and writes nothing', async () => {
    const journey = await journeyIn(app, 'CANCELLED');
    const before = await scopeSnapshot(app.db, journey.scope);
    const again = await confirmJourney(app, journey.caller, journey.scope.scopeId, {
      ...journey.confirmBody,
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expect([again.status, again.body.errorCode], again.text).toEqual([409, 'ALREADY_CONFIRMED']);
    expect(await scopeSnapshot(app.db, journey.scope)).toEqual(before);
  });
});
