import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptPending } from '../../activities/webhook-attempt.js';
import { createWebhookActivities } from '../../activities/webhooks.js';
import { ConfigSchema } from '../../config/index.js';
import { createLogger } from '../../config/logger.js';
import { deliveryToSend } from '../../db/queries/webhooks.js';
import { recordAttempt } from '../../db/writes/webhook-deliveries.js';
import { verifyNotification } from '../../domain/webhook-signing.js';
import { WEBHOOK_LOOKUP_TIMEOUT_MS } from '../../providers/webhook-target.js';
import { ENFORCING_STEP } from '../../workflows/steps.js';
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
  /** Each request's path and Webhook-Signature header, in arrival order. */
  const signed: { path: string; webhookId: string; signature: string; body: string }[] = [];
  /**
   * What the server answers. `open`: the status line, headers and body are sent but the body never
   * ends (a streaming framework, a proxy that holds the connection); `silent`: nothing is sent.
   */
  let answer: {
    status: number;
    headers?: Record<string, string>;
    body?: string;
    open?: boolean;
    silent?: boolean;
  } = { status: 200 };

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        signed.push({
          path: request.url ?? '',
          webhookId: String(request.headers['webhook-id']),
          signature: String(request.headers['webhook-signature']),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if (answer.silent) return;
        response.writeHead(answer.status, answer.headers ?? {});
        if (answer.open) response.write(answer.body ?? 'answer body');
        else response.end(answer.body ?? 'answer body');
      });
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

  const deps = (allowLocal: boolean, attemptTimeoutMs = app.config.WEBHOOK_ATTEMPT_TIMEOUT_MS) => ({
    db: app.db,
    logger: createLogger(app.config, 'test'),
    config: {
      ...app.config,
      WEBHOOK_ALLOW_LOCAL_TARGETS: allowLocal,
      WEBHOOK_ATTEMPT_TIMEOUT_MS: attemptTimeoutMs,
    },
  });
  const activities = (allowLocal: boolean, attemptTimeoutMs?: number) =>
    createWebhookActivities(deps(allowLocal, attemptTimeoutMs));
  const attemptsOf = (deliveryId: string) =>
    app.db.query(
      `select attempt_number, status_code, outcome, error, response_excerpt from webhook_delivery_attempts
       where delivery_id = $1 order by attempt_number`,
      [deliveryId],
    );
  /** One automatic attempt with a 1 s deadline at `path`, the receiver answering `reply`: its result and its log. */
  const attemptWithinASecond = async (path: string, reply: typeof answer) => {
    const deliveryId = await pendingDelivery(`${base}${path}`);
    answer = reply;
    const result = await activities(true, 1000).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' });
    return { deliveryId, outcome: { result, attempts: await attemptsOf(deliveryId) } };
  };

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

  it('an answer in Arabic is logged as its first 512 characters, whole, not 512 bytes cut mid-letter', async () => {
    const sentence = 'رقم الحجز غير معروف لدينا، يرجى المحاولة لاحقاً. ';
    const logged = async (body: string) => {
      const deliveryId = await pendingDelivery(`${base}/arabic`);
      answer = { status: 400, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body };
      await activities(true).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' });
      const [attempt] = await attemptsOf(deliveryId);
      return attempt!.response_excerpt as string;
    };
    // 300 letters are 600 bytes: logged whole.
    const short = sentence.repeat(10).slice(0, 300);
    expect(await logged(short)).toBe(short);
    // 700 letters with a letter of four bytes in the middle of the cut: its first 512 characters.
    const long = [...sentence.repeat(20).slice(0, 300), '🚌', ...sentence.repeat(20).slice(0, 399)];
    expect(await logged(long.join(''))).toBe(long.slice(0, 512).join(''));
  });

  it('a 200 whose body holds a NUL byte is DELIVERED and logged (the excerpt stored with U+FFFD), sent once', async () => {
    const deliveryId = await pendingDelivery(`${base}/nul`);
    answer = { status: 200, body: 'ok\u0000' };
    const before = hits.length;
    const result = await activities(true).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' });
    expect(result).toEqual({ status: 'DELIVERED', outcome: 'DELIVERED' });
    expect(hits.length - before).toBe(1);
    expect(await attemptsOf(deliveryId)).toEqual([
      {
        attempt_number: 1,
        status_code: 200,
        outcome: 'DELIVERED',
        error: null,
        response_excerpt: 'ok\uFFFD',
      },
    ]);
  });

  it("the relay's first attempt answered 503 with a Retry-After of days is logged and handed to a retry, the wait capped", async () => {
    const deliveryId = await pendingDelivery(`${base}/busy-for-days`);
    // Back on the relay's route, as every new delivery's first attempt is.
    await app.db.query(`update webhook_deliveries set route = 'RELAY' where id = $1`, [deliveryId]);
    answer = { status: 503, headers: { 'Retry-After': '3000000' }, body: 'busy' };
    const delivery = (await deliveryToSend(app.db, deliveryId))!;
    const result = await attemptPending(deps(true), delivery, 'AUTOMATIC', { deadlineMs: 10_000 });
    expect(result).toMatchObject({ status: 'PENDING', outcome: 'RETRY' });
    expect(await attemptsOf(deliveryId)).toEqual([
      expect.objectContaining({ attempt_number: 1, status_code: 503, outcome: 'RETRY' }),
    ]);
    const [row] = await app.db.query<{ route: string; retry_after_ms: number }>(
      `select route, retry_after_ms from webhook_deliveries where id = $1`,
      [deliveryId],
    );
    expect(row).toEqual({ route: 'RETRY', retry_after_ms: 6 * 3_600_000 });
  });

  it('an answer PostgreSQL cannot store is still logged, without it, and the delivery moves on', async () => {
    const deliveryId = await pendingDelivery(`${base}/unstorable`);
    await app.db.query(`update webhook_deliveries set route = 'RELAY' where id = $1`, [deliveryId]);
    const status = await recordAttempt(app.db, {
      deliveryId,
      trigger: 'AUTOMATIC',
      attemptedAt: new Date(),
      durationMs: 5,
      statusCode: 503,
      outcome: 'RETRY',
      error: 'HTTP 503',
      responseExcerpt: 'busy\u0000',
      sentTo: { url: `${base}/unstorable`, secretVersion: 1 },
      byRelay: { retryAfterMs: 3_000_000_000 },
    });
    expect(status).toBe('PENDING');
    expect(await attemptsOf(deliveryId)).toEqual([
      { attempt_number: 1, status_code: 503, outcome: 'RETRY', error: 'HTTP 503', response_excerpt: null },
    ]);
    const [row] = await app.db.query(`select route, retry_after_ms from webhook_deliveries where id = $1`, [
      deliveryId,
    ]);
    expect(row).toEqual({ route: 'RETRY', retry_after_ms: null });
  });

  it('a 200 whose body stays open is DELIVERED at the deadline, with what was read: not a TIMEOUT retried for 72 h', async () => {
    const { outcome } = await attemptWithinASecond('/streaming', {
      status: 200,
      body: 'accepted',
      open: true,
    });
    expect(hits).toContain('/streaming');
    expect(outcome).toEqual({
      result: { status: 'DELIVERED', outcome: 'DELIVERED' },
      attempts: [
        {
          attempt_number: 1,
          status_code: 200,
          outcome: 'DELIVERED',
          error: null,
          response_excerpt: 'accepted',
        },
      ],
    });
  });

  it('a 410 whose body stays open is final and disables the subscription', async () => {
    const { deliveryId, outcome } = await attemptWithinASecond('/gone-streaming', {
      status: 410,
      body: 'gone',
      open: true,
    });
    expect(outcome).toEqual({
      result: { status: 'FAILED', outcome: 'GONE' },
      attempts: [
        {
          attempt_number: 1,
          status_code: 410,
          outcome: 'GONE',
          error: 'HTTP 410',
          response_excerpt: 'gone',
        },
      ],
    });
    const [subscription] = await app.db.query(
      `select s.status, s.disabled_reason from webhook_subscriptions s
       join webhook_deliveries d on d.subscription_id = s.id where d.id = $1`,
      [deliveryId],
    );
    expect(subscription).toEqual({ status: 'DISABLED', disabled_reason: 'RECEIVER_GONE_410' });
  });

  it('a receiver that sends no status line by the deadline is a TIMEOUT, retried', async () => {
    const { outcome } = await attemptWithinASecond('/silent', { status: 200, silent: true });
    expect(outcome).toEqual({
      result: { status: 'PENDING', outcome: 'RETRY' },
      attempts: [
        { attempt_number: 1, status_code: null, outcome: 'RETRY', error: 'TIMEOUT', response_excerpt: null },
      ],
    });
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

  it('a delivery of an event its subscription no longer asks for is ABANDONED at its attempt: nothing is sent', async () => {
    const deliveryId = await pendingDelivery(`${base}/unsubscribed`);
    // As the relay may leave it: made from a look at the subscription taken before its events changed.
    await app.db.query(
      `update webhook_subscriptions set events = '{booking.confirmed}'
       where id = (select subscription_id from webhook_deliveries where id = $1)`,
      [deliveryId],
    );
    const result = await activities(true).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' });
    expect(result).toEqual({ status: 'ABANDONED', outcome: 'SKIPPED' });
    expect(hits).not.toContain('/unsubscribed');
    const [row] = await app.db.query(`select status, last_error from webhook_deliveries where id = $1`, [
      deliveryId,
    ]);
    expect(row).toEqual({ status: 'ABANDONED', last_error: 'EVENT_UNSUBSCRIBED' });
  });

  it('an attempt in flight when the subscription is disabled is logged, and the delivery stays ABANDONED', async () => {
    const deliveryId = await pendingDelivery(`${base}/in-flight`);
    const [owner] = await app.db.query<{ subscription_id: string; company_id: string }>(
      `select subscription_id, company_id from webhook_deliveries where id = $1`,
      [deliveryId],
    );
    const { subscription_id: subscriptionId, company_id: companyId } = owner!;
    // The attempt has read its delivery (PENDING, subscription ACTIVE) when the PATCH commits.
    const read = (await deliveryToSend(app.db, deliveryId))!;
    const key = await apiKeyOf(app, companyId);
    const disabled = await app.request(`/api/webhooks/${subscriptionId}`, {
      method: 'PATCH',
      token: key,
      json: { enabled: false },
    });
    expect(disabled.status, disabled.text).toBe(200);
    const logOf = async () =>
      (await app.request(`/api/webhooks/${subscriptionId}/deliveries/${deliveryId}`, { token: key })).body
        .data;
    expect(await logOf()).toMatchObject({ status: 'ABANDONED', lastError: 'SUBSCRIPTION_DISABLED' });
    answer = { status: 503 };
    const result = await attemptPending(deps(true), read, 'AUTOMATIC');
    expect(result).toMatchObject({ status: 'ABANDONED', outcome: 'RETRY' });
    const log = await logOf();
    expect(log).toMatchObject({ status: 'ABANDONED', lastError: 'SUBSCRIPTION_DISABLED', attempts: 1 });
    expect(log.attemptLog).toEqual([
      expect.objectContaining({ attemptNumber: 1, outcome: 'RETRY', statusCode: 503 }),
    ]);
    // Turned back on, nothing revives it.
    await app.request(`/api/webhooks/${subscriptionId}`, {
      method: 'PATCH',
      token: key,
      json: { enabled: true },
    });
    expect(await activities(true).attemptWebhookDelivery({ deliveryId, trigger: 'AUTOMATIC' })).toEqual({
      status: 'ABANDONED',
      outcome: 'SKIPPED',
    });
  });

  /**
   * The attempt has read its delivery (url and secret) when a PATCH of the subscription commits, and
   * its answer arrives after: what the company sees of the subscription and the delivery.
   */
  async function answeredAfterPatch(path: string, change: Record<string, unknown>, reply: typeof answer) {
    const deliveryId = await pendingDelivery(`${base}${path}`);
    const [owner] = await app.db.query<{ subscription_id: string; company_id: string }>(
      `select subscription_id, company_id from webhook_deliveries where id = $1`,
      [deliveryId],
    );
    const { subscription_id: subscriptionId, company_id: companyId } = owner!;
    await app.db.query(`update webhook_deliveries set route = 'RELAY' where id = $1`, [deliveryId]);
    const read = (await deliveryToSend(app.db, deliveryId))!;
    const key = await apiKeyOf(app, companyId);
    const patched = await app.request(`/api/webhooks/${subscriptionId}`, {
      method: 'PATCH',
      token: key,
      json: change,
    });
    expect(patched.status, patched.text).toBe(200);
    answer = reply;
    const result = await attemptPending(deps(true), read, 'AUTOMATIC', { deadlineMs: 10_000 });
    const subscription = (await app.request(`/api/webhooks/${subscriptionId}`, { token: key })).body.data;
    const delivery = (
      await app.request(`/api/webhooks/${subscriptionId}/deliveries/${deliveryId}`, { token: key })
    ).body.data;
    const [row] = await app.db.query<{ route: string }>(
      `select route from webhook_deliveries where id = $1`,
      [deliveryId],
    );
    return { deliveryId, result, subscription, delivery, route: row!.route };
  }

  it('a 410 from the URL the subscription has just left disables nothing: the delivery is retried to the new URL', async () => {
    const seen = await answeredAfterPatch('/left-gone', { url: `${base}/moved-here` }, { status: 410 });
    expect(seen.result).toMatchObject({ status: 'PENDING', outcome: 'GONE' });
    expect(seen.subscription).toMatchObject({
      url: `${base}/moved-here`,
      status: 'ACTIVE',
      disabledReason: null,
    });
    expect(seen.delivery).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: 410 });
    expect(seen.delivery.attemptLog).toEqual([
      expect.objectContaining({ attemptNumber: 1, outcome: 'GONE', statusCode: 410 }),
    ]);
    // The relay's attempt hands the delivery to a retry, which goes to the current URL.
    expect(seen.route).toBe('RETRY');
    answer = { status: 200 };
    const retried = await activities(true).attemptWebhookDelivery({
      deliveryId: seen.deliveryId,
      trigger: 'AUTOMATIC',
    });
    expect(retried).toEqual({ status: 'DELIVERED', outcome: 'DELIVERED' });
    expect(hits.filter((path) => path === '/moved-here')).toHaveLength(1);
  });

  it('a 401 under the secret the subscription has just replaced is not final: the retry is signed with the new secret', async () => {
    const secret = 'the-new-signing-secret-0123456';
    const seen = await answeredAfterPatch('/rotated', { secret }, { status: 401 });
    expect(seen.result).toMatchObject({ status: 'PENDING', outcome: 'FAILED' });
    expect(seen.delivery).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: 401 });
    expect(seen.subscription).toMatchObject({ status: 'ACTIVE' });
    answer = { status: 200 };
    expect(
      await activities(true).attemptWebhookDelivery({ deliveryId: seen.deliveryId, trigger: 'AUTOMATIC' }),
    ).toEqual({ status: 'DELIVERED', outcome: 'DELIVERED' });
    const [first, second] = signed.filter((request) => request.path === '/rotated');
    const check = (key: string, request: (typeof signed)[number]) =>
      verifyNotification(
        key,
        request.body,
        { 'webhook-id': request.webhookId, 'webhook-signature': request.signature },
        { nowSeconds: Math.floor(Date.now() / 1000), toleranceSeconds: 300 },
      );
    expect([check(SECRET, first!), check(secret, second!)]).toEqual([true, true]);
  });

  it('a 410 and a 400 from the URL and secret the subscription still has stay final', async () => {
    const gone = await answeredAfterPatch('/still-gone', { events: ['booking.created'] }, { status: 410 });
    expect(gone.result).toMatchObject({ status: 'FAILED', outcome: 'GONE' });
    expect(gone.subscription).toMatchObject({ status: 'DISABLED', disabledReason: 'RECEIVER_GONE_410' });
    const refused = await answeredAfterPatch('/still-refusing', { enabled: true }, { status: 400 });
    expect(refused.result).toMatchObject({ status: 'FAILED', outcome: 'FAILED' });
    expect(refused.delivery).toMatchObject({ status: 'FAILED', lastStatusCode: 400 });
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

describe("a webhook attempt's deadlines", () => {
  it("the lookup's and the HTTP exchange's fit well inside the attempt activity's limit, whatever is configured", () => {
    // A retry's attempt is a local activity with ENFORCING_STEP's limit: one that reaches it is run
    // again by Temporal and POSTs again. The database (the delivery read, the attempt's log row)
    // keeps at least 10 s of it.
    const seconds = /^(\d+) seconds$/.exec(String(ENFORCING_STEP.startToCloseTimeout));
    const activityLimitMs = Number(seconds?.[1]) * 1000;
    expect(activityLimitMs).toBeGreaterThan(0);
    const longestHttpMs = activityLimitMs - 10_000 - WEBHOOK_LOOKUP_TIMEOUT_MS;
    const attemptTimeout = ConfigSchema.shape.WEBHOOK_ATTEMPT_TIMEOUT_MS;
    expect(attemptTimeout.safeParse(undefined)).toMatchObject({ success: true, data: 10_000 });
    expect(attemptTimeout.safeParse(longestHttpMs).success).toBe(true);
    expect(attemptTimeout.safeParse(longestHttpMs + 1).success, `${longestHttpMs + 1} ms accepted`).toBe(
      false,
    );
  });
});
