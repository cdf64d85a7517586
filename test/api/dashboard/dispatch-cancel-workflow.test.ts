import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConfirmationScope } from '../../../domain/journey-confirmation.js';
import type { TripStatus } from '../../../domain/trip-dispatch.js';
import type { Queryable } from '../../../db/writes/journeys/scope.js';
import { confirmationWorkflowId, searchAttributeKeys } from '../../../workflows/shared.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import {
  bookJourney,
  confirmOrder,
  eventually,
  holdOrder,
  journeyFacts,
  mobileTraveller,
  quote,
  setConfirmation,
  tripOf,
} from '../../support/journeys.js';
import { dispatch } from '../../support/operations.js';
import { cancelTripBookings } from '../../../db/writes/trip-operations/cancel-trip.js';

/**
 * A trip CANCEL ends the journeys (and orders) still waiting for company decisions on it
 * (TRIP_CANCELLED); their journey-confirmation workflow, which waits only while companies decide,
 * is told at once and ends, instead of running on with ProcessStatus REQUESTED until the deadline.
 */
/** Thrown to roll a transaction back, carrying what it saw. */
class RolledBack extends Error {
  constructor(readonly seen: unknown) {
    super('rolled back');
  }
}

describe('a trip CANCEL ends the confirmation workflow of the journeys waiting for decisions', () => {
  const app = useTestApp();

  const process = (app: TestApp, scope: ConfirmationScope) =>
    app.temporal.workflow.getHandle(confirmationWorkflowId(scope));

  /** The workflow's run status and ProcessStatus, once it has left RUNNING (or the time is up). */
  async function settledProcess(scope: ConfirmationScope) {
    const described = await eventually(
      () => process(app, scope).describe(),
      (description) => description.status.name !== 'RUNNING',
      15_000,
    );
    return {
      status: described.status.name,
      processStatus: described.typedSearchAttributes.get(searchAttributeKeys.processStatus),
    };
  }

  async function runningProcess(scope: ConfirmationScope) {
    const described = await process(app, scope).describe();
    return {
      status: described.status.name,
      processStatus: described.typedSearchAttributes.get(searchAttributeKeys.processStatus),
    };
  }

  /**
   * A traveller's order of two journeys on two companies' trips, both companies deciding (600-minute
   * window), held and confirmed: REQUESTED, its workflow waiting.
   */
  async function requestedOrderOfTwoCompanies() {
    const trip = await tripOf(app.db);
    const other = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 600 });
    await setConfirmation(app.db, other.companyId, { mode: 'MANUAL_CONFIRM', window: 600 });
    const traveller = await mobileTraveller(app);
    const onTrip = await quote(app, traveller, [{ trip }], 1);
    const elsewhere = await quote(app, traveller, [{ trip: other }], 1);
    const orderId = randomUUID();
    const held = await holdOrder(app, traveller, orderId, [onTrip.journey_id, elsewhere.journey_id]);
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmOrder(app, traveller, orderId, held.body.data.holdBatchId, [
      { journeyId: onTrip.journey_id, partySize: 1 },
      { journeyId: elsewhere.journey_id, partySize: 1 },
    ]);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    return { trip, other, onTrip, elsewhere, orderId };
  }

  it('POST /dispatch CANCEL: the REQUESTED journey is cancelled and its workflow completes CANCELLED; a refused cancel leaves it waiting', async () => {
    const trip = await tripOf(app.db);
    await setConfirmation(app.db, trip.companyId, { mode: 'MANUAL_CONFIRM', window: 600 });
    const traveller = await mobileTraveller(app);
    const { journeyId, confirmed } = await bookJourney(app, traveller, [{ trip }]);
    expect(confirmed.body.data.confirmation.status).toBe('REQUESTED');
    const scope: ConfirmationScope = { kind: 'JOURNEY', id: journeyId };
    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');

    // A cancel without a reason is refused: the journey and its workflow still wait.
    const refused = await dispatch(app, dispatcher, trip.tripId, { action: 'CANCEL' });
    expect([refused.status, refused.body.errorCode]).toEqual([400, 'REASON_REQUIRED']);
    expect((await journeyFacts(app.db, journeyId)).journey!.status).toBe('REQUESTED');
    expect(await runningProcess(scope)).toEqual({ status: 'RUNNING', processStatus: 'REQUESTED' });

    const cancelled = await dispatch(app, dispatcher, trip.tripId, {
      action: 'CANCEL',
      reason: 'Bus broke down',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
      status: 'CANCELLED',
      failure_reason: 'TRIP_CANCELLED',
    });
    expect(await settledProcess(scope)).toEqual({ status: 'COMPLETED', processStatus: 'CANCELLED' });
    const seen = await app.request(`/api/journeys/${journeyId}`, { headers: traveller.headers });
    expect(seen.body.data).toMatchObject({
      confirmation: { status: 'CANCELLED' },
      failure_reason: 'TRIP_CANCELLED',
    });
  });

  it("POST /trips/bulk cancel: a REQUESTED order with a journey on the trip ends whole, and the order's workflow completes CANCELLED", async () => {
    const { trip, onTrip, elsewhere, orderId } = await requestedOrderOfTwoCompanies();
    const scope: ConfirmationScope = { kind: 'ORDER', id: orderId };
    expect(await runningProcess(scope)).toEqual({ status: 'RUNNING', processStatus: 'REQUESTED' });

    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    const bulk = await app.request('/dashboard/api/trips/bulk', {
      method: 'POST',
      headers: dispatcher.writeHeaders,
      json: { trip_ids: [trip.tripId], action: 'cancel', reason: 'Storm warning' },
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data.summary).toMatchObject({ succeeded: 1, failed: 0 });
    for (const journeyId of [onTrip.journey_id, elsewhere.journey_id]) {
      expect((await journeyFacts(app.db, journeyId)).journey).toEqual({
        status: 'CANCELLED',
        failure_reason: 'TRIP_CANCELLED',
      });
    }
    expect(await settledProcess(scope)).toEqual({ status: 'COMPLETED', processStatus: 'CANCELLED' });
  });

  /** Each company's request of an order, as [status, reason]. */
  const requestsOf = (client: Queryable, orderId: string) =>
    client
      .query<{ company_id: string; status: string; reason: string | null }>(
        `select company_id, status, reason from confirmation_requests where scope_kind = 'ORDER' and scope_id = $1`,
        [orderId],
      )
      .then(({ rows }) => Object.fromEntries(rows.map((row) => [row.company_id, [row.status, row.reason]])));

  /**
   * The trip's CANCEL run in one transaction after `prepare`, rolled back (so neither the deadline
   * sweep nor the workflow sees it): the order's requests as the cancel left them.
   */
  async function requestsAfterRolledBackCancel(
    order: Awaited<ReturnType<typeof requestedOrderOfTwoCompanies>>,
    dispatcherId: string,
    prepare: (client: Queryable) => Promise<void>,
  ) {
    const { trip, other, orderId } = order;
    return app.db
      .transaction(async (client) => {
        await prepare(client);
        const { rows } = await client.query<{ status: TripStatus }>(
          `select status from trips where id = $1`,
          [trip.tripId],
        );
        await cancelTripBookings(
          client,
          {
            id: trip.tripId,
            companyId: trip.companyId,
            status: rows[0]!.status,
            driverId: null,
            delayMinutes: 0,
            actualDepartureAt: null,
            actualArrivalAt: null,
          },
          'Storm warning',
          dispatcherId,
        );
        throw new RolledBack(await requestsOf(client, orderId));
      })
      .catch((error: unknown) => {
        if (error instanceof RolledBack) return error.seen;
        throw error;
      })
      .then((seen) => ({ seen, trip, other, orderId }));
  }

  it("a request already past its own deadline when the trip is cancelled ends EXPIRED (its company's missed deadline), the one still in its window CANCELLED", async () => {
    const order = await requestedOrderOfTwoCompanies();
    const { trip, other, orderId } = order;
    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');

    // The other company's window has run out, and nothing has settled it yet.
    const { seen } = await requestsAfterRolledBackCancel(order, dispatcher.staffUserId, (client) =>
      client
        .query(
          `update confirmation_requests set deadline = now() - interval '1 minute'
            where scope_kind = 'ORDER' and scope_id = $1 and company_id = $2`,
          [orderId, other.companyId],
        )
        .then(() => undefined),
    );
    expect(seen).toEqual({
      [trip.companyId]: ['CANCELLED', 'TRIP_CANCELLED'],
      [other.companyId]: ['EXPIRED', null],
    });

    // Rolled back: both still wait; the cancel through the API (both windows open) ends both CANCELLED.
    expect(await requestsOf(app.db.pool, orderId)).toEqual({
      [trip.companyId]: ['PENDING', null],
      [other.companyId]: ['PENDING', null],
    });
    const cancelled = await dispatch(app, dispatcher, trip.tripId, {
      action: 'CANCEL',
      reason: 'Storm warning',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await requestsOf(app.db.pool, orderId)).toEqual({
      [trip.companyId]: ['CANCELLED', 'TRIP_CANCELLED'],
      [other.companyId]: ['CANCELLED', 'TRIP_CANCELLED'],
    });
    expect(await settledProcess({ kind: 'ORDER', id: orderId })).toEqual({
      status: 'COMPLETED',
      processStatus: 'CANCELLED',
    });
  });

  it('a request whose deadline passes while the cancel waits for its locks ends EXPIRED: the cancel judges deadlines at its write time, not its start', async () => {
    const order = await requestedOrderOfTwoCompanies();
    const { trip, other, orderId } = order;
    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    // The other company's window ends 0.2 s after the transaction began (its now()), and the cancel
    // writes 0.4 s after it, as one that waited for a lock would.
    const { seen } = await requestsAfterRolledBackCancel(order, dispatcher.staffUserId, async (client) => {
      await client.query(
        `update confirmation_requests set deadline = now() + interval '200 milliseconds'
          where scope_kind = 'ORDER' and scope_id = $1 and company_id = $2`,
        [orderId, other.companyId],
      );
      await client.query(`select pg_sleep(0.4)`);
    });
    expect(seen).toEqual({
      [trip.companyId]: ['CANCELLED', 'TRIP_CANCELLED'],
      [other.companyId]: ['EXPIRED', null],
    });
  });
});
