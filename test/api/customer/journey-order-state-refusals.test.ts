import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../support/harness.js';
import {
  bookingOfCompany,
  confirmOrder,
  connection,
  holdJourney,
  holdOrder,
  mobileTraveller,
  quote,
  setConfirmation,
} from '../../support/journeys.js';
import {
  rejectRequest,
  scopeSnapshot,
  type ScopeRows,
  type SettledJourneyState,
} from '../../support/scope-states.js';

/**
 * SPEC "Journey confirmation" for an order of journeys (README "Orders": "its journeys are then fixed
 * ... and a journey of an order answers 409 JOURNEY_IN_ORDER on its own routes"). The table lists no
 * move out of an order once CONFIRMED, REQUESTED or CANCELLED: it is not released, held again or
 * confirmed again, and its journeys are not held alone; each attempt is 409 with its code and writes
 * nothing. (JOURNEY_IN_ORDER while the order is held or released is journey-holds.test.ts's.)
 */
async function orderIn(app: TestApp, state: SettledJourneyState) {
  const caller = await mobileTraveller(app);
  const { first, second } = await connection(app.db);
  if (state !== 'CONFIRMED') await setConfirmation(app.db, second.companyId, { mode: 'MANUAL_CONFIRM' });
  const a = await quote(app, caller, [{ trip: first }], 1);
  const b = await quote(app, caller, [{ trip: second }], 1);
  const orderId = randomUUID();
  const journeyIds = [a.journey_id, b.journey_id];
  const held = await holdOrder(app, caller, orderId, journeyIds);
  expect(held.status, held.text).toBe(200);
  const holdBatchId = held.body.data.holdBatchId as string;
  const journeys = journeyIds.map((journeyId) => ({ journeyId, partySize: 1 }));
  const confirmed = await confirmOrder(app, caller, orderId, holdBatchId, journeys);
  expect(confirmed.status, confirmed.text).toBe(200);
  if (state === 'CANCELLED') {
    await rejectRequest(
      app,
      second.companyId,
      await bookingOfCompany(app.db, b.journey_id, second.companyId),
    );
  }
  const [order] = await app.db.query<{ status: string }>(`select status from journey_orders where id = $1`, [
    orderId,
  ]);
  expect(order!.status).toBe(state);
  const scope: ScopeRows = { scopeId: orderId, journeyIds, tripIds: [first.tripId, second.tripId] };
  return { caller, holdBatchId, a, journeys, scope };
}

describe('a confirmed, requested or cancelled journey order: the moves SPEC does not list', () => {
  const app = useTestApp();

  for (const state of ['CONFIRMED', 'REQUESTED', 'CANCELLED'] as const) {
    it(`${state}: release, a new hold, a new confirm and a hold of one of its journeys alone are 409; nothing written`, async () => {
      const order = await orderIn(app, state);
      const orderId = order.scope.scopeId;
      const before = await scopeSnapshot(app.db, order.scope);
      const release = await app.request(`/api/journey-orders/${orderId}/holds/${order.holdBatchId}`, {
        method: 'DELETE',
        headers: order.caller.headers,
      });
      expect([release.status, release.body.errorCode], release.text).toEqual([409, 'HOLD_CLOSED']);
      const rehold = await holdOrder(app, order.caller, orderId, order.scope.journeyIds);
      expect([rehold.status, rehold.body.errorCode], rehold.text).toEqual([409, 'JOURNEY_NOT_HOLDABLE']);
      const reconfirm = await confirmOrder(app, order.caller, orderId, order.holdBatchId, order.journeys);
      expect([reconfirm.status, reconfirm.body.errorCode], reconfirm.text).toEqual([
        409,
        'ALREADY_CONFIRMED',
      ]);
      const alone = await holdJourney(app, order.caller, order.a.journey_id, {
        quote_id: order.a.quote_id,
        idempotency_key: `alone-${randomUUID()}`,
      });
      expect([alone.status, alone.body.errorCode], alone.text).toEqual([409, 'JOURNEY_IN_ORDER']);
      expect(await scopeSnapshot(app.db, order.scope)).toEqual(before);
    });
  }
});
