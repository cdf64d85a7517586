import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayStep, type RelayStepInput } from '../../activities/webhook-relay.js';
import { createLogger } from '../../config/logger.js';
import { claimFirstAttempts } from '../../db/writes/webhook-first-attempts.js';
import { dispatchOutboxEvents } from '../../db/writes/webhook-deliveries.js';
import { searchAttributeKeys, workflowIds } from '../../workflows/shared.js';
import { bookableTrip, createBooking, type BookableTripFixture } from '../support/bookings.js';
import { useTestApp } from '../support/harness.js';
import { eventually, mobileTraveller, type Caller } from '../support/journeys.js';
import { apiKeyOf, restartRelay, startReceiver, subscribe, type Receiver } from '../support/webhooks.js';

/**
 * First attempts without a workflow (issue 17's lag target): the relay's activity sends the first
 * attempt of every new delivery itself; only a delivery that must retry gets a webhook-delivery
 * workflow. Real PostgreSQL, the run's Temporal server and worker, real local receivers.
 * TIME_SCALE 0.02: the first retry waits 200 ms instead of 10 s.
 */
const SECRET = 'first-attempts-signing-secret-01';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook first attempts from the relay (full stack)', () => {
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });
  let caller: Caller;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    caller = await mobileTraveller(app);
    await restartRelay(app);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  /**
   * A company of its own (so no other test's subscription shares its events) with a receiver
   * subscribed to booking.created, and a way to book on its trip.
   */
  async function subscribedReceiver() {
    const trip: BookableTripFixture = await bookableTrip(app.db, { seats: 20 });
    const key = await apiKeyOf(app, trip.companyId);
    const receiver = await startReceiver(SECRET);
    receivers.push(receiver);
    const subscriptionId = await subscribe(app, key, {
      url: receiver.url,
      events: ['booking.created'],
      secret: SECRET,
    });
    let seat = 0;
    const book = () =>
      createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [trip.seatNumbers[seat++]!] });
    return { receiver, subscriptionId, book, companyId: trip.companyId };
  }
  const deliveriesOf = (subscriptionId: string) =>
    app.db.query<{
      id: string;
      status: string;
      attempts: number;
      route: string;
      workflow_started_at: string | null;
    }>(
      `select id, status, attempts, route, workflow_started_at from webhook_deliveries where subscription_id = $1
       order by created_at`,
      [subscriptionId],
    );
  const attemptsOf = (deliveryId: string) =>
    app.db.query<{ outcome: string; status_code: number | null; trigger: string; attempted_at: string }>(
      `select outcome, status_code, trigger, attempted_at from webhook_delivery_attempts where delivery_id = $1
       order by attempt_number`,
      [deliveryId],
    );
  const workflowOf = (deliveryId: string) =>
    app.temporal.workflow.getHandle(workflowIds.webhookDelivery(deliveryId));
  const stopRelay = () =>
    app.temporal.workflow
      .getHandle(workflowIds.webhookOutbox())
      .terminate('stopped by a test')
      .catch(() => undefined);

  it('a healthy receiver gets the first attempt with no webhook-delivery workflow started', async () => {
    const { receiver, subscriptionId, book } = await subscribedReceiver();
    const bookings = [await book(), await book(), await book()];
    const rows = await eventually(
      () => deliveriesOf(subscriptionId),
      (found) => found.length === 3 && found.every((row) => row.status === 'DELIVERED'),
    );
    expect(rows.map((row) => [row.status, row.attempts, row.route])).toEqual(
      Array(3).fill(['DELIVERED', 1, 'RELAY']),
    );
    expect(rows.every((row) => row.workflow_started_at === null)).toBe(true);
    expect([...receiver.processed.values()].map((body) => body.data.booking_id).sort()).toEqual(
      bookings.map((booking) => booking.id).sort(),
    );
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    for (const row of rows) {
      expect(await attemptsOf(row.id)).toEqual([
        expect.objectContaining({ outcome: 'DELIVERED', status_code: 200, trigger: 'AUTOMATIC' }),
      ]);
      await expect(workflowOf(row.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    }
  });

  it('a 500 then 200 receiver: the relay sends the first attempt, the retry goes through webhook-delivery', async () => {
    const { receiver, subscriptionId, book, companyId } = await subscribedReceiver();
    receiver.mode = 'first-fails';
    const booking = await book();
    const [row] = await eventually(
      () => deliveriesOf(subscriptionId),
      (found) => found.length === 1 && found[0]!.status === 'DELIVERED',
    );
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 2, route: 'RETRY' });
    expect(row!.workflow_started_at).not.toBeNull();
    const attempts = await attemptsOf(row!.id);
    expect(attempts.map((attempt) => [attempt.outcome, attempt.status_code])).toEqual([
      ['RETRY', 500],
      ['DELIVERED', 200],
    ]);
    // The workflow made only the retry, after the first backoff (200 ms ±10 %).
    const gap = new Date(attempts[1]!.attempted_at).getTime() - new Date(attempts[0]!.attempted_at).getTime();
    expect(gap).toBeGreaterThanOrEqual(170);
    const workflow = workflowOf(row!.id);
    expect(await workflow.result()).toEqual({ status: 'DELIVERED', attempts: 1 });
    const described = await workflow.describe();
    expect(described.typedSearchAttributes.get(searchAttributeKeys.bookingId)).toBe(booking.id);
    expect(described.typedSearchAttributes.get(searchAttributeKeys.companyIds)).toEqual([companyId]);
    expect(described.typedSearchAttributes.get(searchAttributeKeys.processStatus)).toBe('DELIVERED');
    expect(receiver.requests.map((request) => request.deliveryId)).toEqual([row!.id, row!.id]);
    expect(receiver.processed.size).toBe(1);
  });

  describe('with the relay workflow stopped', () => {
    const deps = () => ({ db: app.db, config: app.config, logger: createLogger(app.config, 'test') });
    beforeAll(stopRelay);
    afterAll(() => restartRelay(app));

    it('two relay runs over the same deliveries at once send each delivery once', async () => {
      const { receiver, subscriptionId, book } = await subscribedReceiver();
      for (let index = 0; index < 12; index += 1) await book();
      const step: RelayStepInput = {
        started: [],
        limit: 5,
        concurrency: 3,
        leaseMs: 60_000,
        budgetMs: 10_000,
      };
      const [first, second] = await Promise.all([relayStep(deps(), step), relayStep(deps(), step)]);
      const rows = await deliveriesOf(subscriptionId);
      expect(rows).toHaveLength(12);
      expect(rows.every((row) => row.status === 'DELIVERED' && row.attempts === 1)).toBe(true);
      expect(first.attempted + second.attempted).toBe(12);
      // Both took part (the claims interleave), and each delivery id reached the receiver once.
      expect(first.attempted).toBeGreaterThan(0);
      expect(second.attempted).toBeGreaterThan(0);
      const sent = receiver.requests.map((request) => request.deliveryId);
      expect(sent.sort()).toEqual(rows.map((row) => row.id).sort());
      expect([first.toStart, second.toStart]).toEqual([[], []]);
    });

    it('a delivery claimed by a relay that died is sent again once its lease has passed', async () => {
      const { receiver, subscriptionId, book } = await subscribedReceiver();
      await book();
      await book();
      // A relay claims the first attempts and dies before sending them.
      await dispatchOutboxEvents(app.db, 100);
      const claimed = await claimFirstAttempts(app.db, { limit: 100, leaseMs: 3000 });
      const rows = await deliveriesOf(subscriptionId);
      expect(claimed.map((delivery) => delivery.id).sort()).toEqual(rows.map((row) => row.id).sort());
      // A live relay leaves them alone while the lease holds...
      await restartRelay(app);
      await sleep(1500);
      expect(receiver.requests).toHaveLength(0);
      expect(await claimFirstAttempts(app.db, { limit: 100, leaseMs: 3000 })).toEqual([]);
      // ...and its sweep sends them (same ids) once it has passed.
      const sent = await eventually(
        () => deliveriesOf(subscriptionId),
        (found) => found.every((row) => row.status === 'DELIVERED'),
        25_000,
      );
      expect(sent.map((row) => [row.status, row.attempts])).toEqual([
        ['DELIVERED', 1],
        ['DELIVERED', 1],
      ]);
      expect(receiver.requests.map((request) => request.deliveryId).sort()).toEqual(
        rows.map((row) => row.id).sort(),
      );
      await stopRelay();
    });
  });
});
