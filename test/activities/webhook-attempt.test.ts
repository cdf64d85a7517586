import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookActivities } from '../../activities/webhooks.js';
import { createLogger } from '../../config/logger.js';
import { bookableTrip, createBooking } from '../support/bookings.js';
import { useTestApp } from '../support/harness.js';
import { mobileTraveller } from '../support/journeys.js';
import { apiKeyOf, subscribe } from '../support/webhooks.js';

/**
 * One delivery attempt (the activity itself, against the real database and a real local server):
 * what it sends and logs for each kind of answer, and what production refuses at delivery time.
 */
const SECRET = 'attempt-test-secret-0123456789';

describe('a webhook delivery attempt', () => {
  const app = useTestApp();
  let server: Server;
  let base: string;
  const hits: string[] = [];
  let answer: { status: number; headers?: Record<string, string> } = { status: 200 };

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      request.resume();
      request.on('end', () => response.writeHead(answer.status, answer.headers ?? {}).end('answer body'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  /** A PENDING delivery of a fresh booking's event to `url` (started, so no relay takes it). */
  async function pendingDelivery(url: string): Promise<string> {
    const trip = await bookableTrip(app.db);
    const booking = await createBooking(app, await mobileTraveller(app), {
      tripId: trip.tripId,
      seatNumbers: ['1'],
    });
    const subscriptionId = await subscribe(app, await apiKeyOf(app, trip.companyId), {
      url,
      events: ['booking.created'],
      secret: SECRET,
    });
    const [delivery] = await app.db.query<{ id: string }>(
      `insert into webhook_deliveries (subscription_id, company_id, outbox_event_id, event, booking_id, workflow_started_at)
       select $1, e.company_id, e.id, e.event, e.booking_id, now() from outbox_events e
       where e.booking_id = $2 and e.event = 'booking.created' returning id`,
      [subscriptionId, booking.id],
    );
    return delivery!.id;
  }

  const activities = (allowLocal: boolean) =>
    createWebhookActivities({
      db: app.db,
      logger: createLogger(app.config, 'test'),
      config: { ...app.config, WEBHOOK_ALLOW_LOCAL_TARGETS: allowLocal },
    });
  const attemptsOf = (deliveryId: string) =>
    app.db.query(
      `select attempt_number, status_code, outcome, error, response_excerpt from webhook_delivery_attempts
       where delivery_id = $1 order by attempt_number`,
      [deliveryId],
    );

  it('429 with Retry-After is retried after that long; the answer is logged', async () => {
    const deliveryId = await pendingDelivery(`${base}/busy`);
    answer = { status: 429, headers: { 'Retry-After': '7' } };
    const result = await activities(true).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' });
    expect(result).toEqual({ status: 'PENDING', outcome: 'RETRY', retryAfterMs: 7000 });
    expect(await attemptsOf(deliveryId)).toEqual([
      {
        attempt_number: 1,
        status_code: 429,
        outcome: 'RETRY',
        error: 'HTTP 429',
        response_excerpt: 'answer body',
      },
    ]);
  });

  it('a redirect is not followed, and a 400 is final', async () => {
    const deliveryId = await pendingDelivery(`${base}/moved`);
    answer = { status: 302, headers: { Location: `${base}/elsewhere` } };
    expect(await activities(true).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' })).toMatchObject(
      {
        status: 'PENDING',
        outcome: 'RETRY',
      },
    );
    expect(hits).not.toContain('/elsewhere');
    answer = { status: 400 };
    expect(await activities(true).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' })).toEqual({
      status: 'FAILED',
      outcome: 'FAILED',
    });
    // A repeated activity after the final answer sends nothing more.
    const before = hits.length;
    expect(await activities(true).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' })).toEqual({
      status: 'FAILED',
      outcome: 'SKIPPED',
    });
    expect(hits.length).toBe(before);
  });

  it('in production a local address is refused at delivery time too: nothing is sent, the delivery FAILS', async () => {
    const deliveryId = await pendingDelivery(`https://127.0.0.1:${new URL(base).port}/private`);
    const result = await activities(false).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' });
    expect(result).toEqual({ status: 'FAILED', outcome: 'FAILED' });
    expect(hits).not.toContain('/private');
    expect(await attemptsOf(deliveryId)).toEqual([
      expect.objectContaining({ outcome: 'FAILED', error: 'TARGET_PRIVATE_ADDRESS', status_code: null }),
    ]);
  });
});
