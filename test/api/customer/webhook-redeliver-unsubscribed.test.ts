import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../../workflows/shared.js';
import { bookableTrip, createBooking, type BookableTripFixture } from '../../support/bookings.js';
import { useTestApp } from '../../support/harness.js';
import { mobileTraveller, waitUntil, type Caller } from '../../support/journeys.js';
import {
  apiKeyOf,
  expectRedelivered,
  restartRelay,
  startReceiver,
  subscribe,
  useRelay,
  type Receiver,
} from '../../support/webhooks.js';

/**
 * POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver of an event the subscription no longer
 * asks for: refused up front, 409 EVENT_UNSUBSCRIBED, instead of a 202 whose workflow only abandons
 * the delivery again. Real API, PostgreSQL, relay and worker, and a real receiver.
 */
const SECRET = 'receiver-unsubscribed-secret-01';

// This file restarts and stops the namespace's one relay: it holds it while it runs.
useRelay();

describe('redelivering an event the subscription no longer asks for', () => {
  const app = useTestApp({ TIME_SCALE: 0.02 });
  let trip: BookableTripFixture;
  let key: string;
  let receiver: Receiver;
  let subscriptionId: string;
  let caller: Caller;

  beforeAll(async () => {
    trip = await bookableTrip(app.db, { seats: 4 });
    key = await apiKeyOf(app, trip.companyId);
    receiver = await startReceiver(SECRET);
    subscriptionId = await subscribe(app, key, {
      url: receiver.url,
      events: ['booking.created', 'booking.confirmed'],
      secret: SECRET,
    });
    caller = await mobileTraveller(app);
    await restartRelay(app);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** What a redelivery could change: the delivery row, its attempts, and its workflow. */
  const deliveryState = async (deliveryId: string) => ({
    delivery: await app.db.query(
      `select status, attempts, route, last_error, finished_at, workflow_started_at from webhook_deliveries
       where id = $1`,
      [deliveryId],
    ),
    attempts: await app.db.query(`select id from webhook_delivery_attempts where delivery_id = $1`, [
      deliveryId,
    ]),
  });
  const redeliver = (deliveryId: string) =>
    app.request(`/api/webhooks/${subscriptionId}/deliveries/${deliveryId}/redeliver`, {
      method: 'POST',
      token: key,
    });

  it('is refused 409 EVENT_UNSUBSCRIBED, starting no workflow and changing nothing; a subscribed event still goes', async () => {
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: [trip.seatNumbers[0]!],
    });
    const delivered = await waitUntil(
      () =>
        app.db.query<{ id: string; event: string; status: string }>(
          `select id, event, status from webhook_deliveries where booking_id = $1 and subscription_id = $2`,
          [booking.id, subscriptionId],
        ),
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'DELIVERED'),
      20_000,
      "the booking's two deliveries DELIVERED",
    );
    const confirmed = delivered.find((row) => row.event === 'booking.confirmed')!;
    const created = delivered.find((row) => row.event === 'booking.created')!;
    const narrowed = await app.request(`/api/webhooks/${subscriptionId}`, {
      method: 'PATCH',
      token: key,
      json: { events: ['booking.created'] },
    });
    expect(narrowed.status, narrowed.text).toBe(200);
    const before = await deliveryState(confirmed.id);
    const sent = receiver.requests.length;

    const refused = await redeliver(confirmed.id);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({
      success: false,
      errorCode: 'EVENT_UNSUBSCRIBED',
      details: { event: 'booking.confirmed' },
    });
    // Nothing reopened or started: the delivery stays DELIVERED, no workflow, nothing sent.
    expect(await deliveryState(confirmed.id)).toEqual(before);
    await expect(
      app.temporal.workflow.getHandle(workflowIds.webhookDelivery(confirmed.id)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.requests.length).toBe(sent);

    // The event it still asks for is redelivered as before: sent once more, DELIVERED, one MANUAL attempt.
    const createdSent = receiver.requests.filter((request) => request.deliveryId === created.id).length;
    expect(createdSent).toBe(1);
    const accepted = await redeliver(created.id);
    expect(accepted.status, accepted.text).toBe(202);
    await expectRedelivered(app, receiver, created.id, createdSent);
  });
});
