import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { bookableTrip, createBooking, type BookableTripFixture } from '../support/bookings.js';
import { useTestApp } from '../support/harness.js';
import { eventually, mobileTraveller, type Caller } from '../support/journeys.js';
import { apiKeyOf, restartRelay, startReceiver, subscribe, type Receiver } from '../support/webhooks.js';

/**
 * A webhook delivery whose retry workflow `webhook-delivery/{id}` an operator ends in the Temporal
 * UI (terminate or cancel) is left PENDING with nothing to attempt it again: the company can then
 * redeliver it (POST .../redeliver), which is refused only while a run of it is open.
 * TIME_SCALE 0.02 shortens the retry plan (200 ms, 400 ms, ...).
 */
const SECRET = 'receiver-ended-run-secret-01234';

interface DeliveryRow {
  id: string;
  status: string;
  route: string;
  started_at: string | null;
  attempts: number;
}

describe('webhook delivery whose retry workflow an operator ends', () => {
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });
  let trip: BookableTripFixture;
  let key: string;
  let receiver: Receiver;
  let subscriptionId: string;
  let caller: Caller;
  let seat = 0;

  beforeAll(async () => {
    trip = await bookableTrip(app.db, { seats: 10 });
    key = await apiKeyOf(app, trip.companyId);
    receiver = await startReceiver(SECRET);
    subscriptionId = await subscribe(app, key, {
      url: receiver.url,
      events: ['booking.created'],
      secret: SECRET,
    });
    caller = await mobileTraveller(app);
    await restartRelay(app);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const deliveryOf = async (bookingId: string) =>
    (
      await app.db.query<DeliveryRow>(
        `select id, status, route, workflow_started_at::text as started_at, attempts from webhook_deliveries
         where booking_id = $1 and subscription_id = $2`,
        [bookingId, subscriptionId],
      )
    )[0];
  const manualAttempts = async (deliveryId: string) =>
    (
      await app.db.query<{ n: number }>(
        `select count(*)::int as n from webhook_delivery_attempts where delivery_id = $1 and trigger = 'MANUAL'`,
        [deliveryId],
      )
    )[0]!.n;
  const redeliver = (deliveryId: string) =>
    app.request(`/api/webhooks/${subscriptionId}/deliveries/${deliveryId}/redeliver`, {
      method: 'POST',
      token: key,
    });

  for (const end of ['terminate', 'cancel'] as const) {
    it(`a run ended by ${end}: refused 409 while it ran, then redelivered and DELIVERED`, async () => {
      receiver.mode = 'down';
      const booking = await createBooking(app, caller, {
        tripId: trip.tripId,
        seatNumbers: [trip.seatNumbers[seat++]!],
      });
      const retrying = (await eventually(
        () => deliveryOf(booking.id),
        (row) => row?.started_at != null && row.attempts >= 2,
      ))!;
      expect(retrying).toMatchObject({ status: 'PENDING', route: 'RETRY' });

      // While its run is open the delivery is being attempted: refused, and nothing changed.
      const during = await redeliver(retrying.id);
      expect([during.status, during.body.errorCode]).toEqual([409, 'DELIVERY_IN_PROGRESS']);
      expect(await deliveryOf(booking.id)).toMatchObject({
        status: 'PENDING',
        route: 'RETRY',
        started_at: retrying.started_at,
      });
      expect(await manualAttempts(retrying.id)).toBe(0);

      const handle = app.temporal.workflow.getHandle(workflowIds.webhookDelivery(retrying.id));
      if (end === 'terminate') await handle.terminate('operator');
      else await handle.cancel();
      await eventually(
        async () => (await handle.describe()).status.name,
        (status) => status !== 'RUNNING',
      );
      receiver.mode = 'up';
      // Nothing attempts it any more: still PENDING.
      expect((await deliveryOf(booking.id))!.status).toBe('PENDING');

      const response = await redeliver(retrying.id);
      expect(response.status, response.text).toBe(202);
      const delivered = await eventually(
        () => deliveryOf(booking.id),
        (row) => row?.status === 'DELIVERED',
      );
      expect(delivered).toMatchObject({ status: 'DELIVERED', route: 'MANUAL' });
      expect(await manualAttempts(retrying.id)).toBe(1);
      expect(receiver.processed.has(retrying.id)).toBe(true);
      expect((await handle.describe()).status.name).toBe('COMPLETED');
    }, 60_000);
  }
});
