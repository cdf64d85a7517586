import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { RELAY_FIRST_ATTEMPTS, RELAY_LISTENER_NAME } from '../../activities/webhook-relay.js';
import { webhookClient } from '../../api/temporal/webhook-client.js';
import { latestRunStatus } from '../../config/temporal.js';
import { verifyNotification } from '../../domain/webhook-signing.js';
import { workflowIds } from '../../workflows/shared.js';
import { retryPlanOf } from '../../workflows/webhook-delivery.contract.js';
import { loadConfig } from '../../config/index.js';
import { WEBHOOK_RELAY_DEFAULTS } from '../../workflows/webhook-outbox.contract.js';
import type { TestApp } from './harness.js';
import { eventually, waitUntil } from './journeys.js';
import { staffSession } from './journey-rows.js';

/**
 * A company's webhook receiver as a real HTTP server on this machine: it checks both signatures
 * of every request and processes each Webhook-Id once, as the README tells receivers to.
 */
export interface ReceivedRequest {
  deliveryId: string;
  event: string;
  body: Record<string, any>;
  verified: boolean;
  receivedAt: number;
}

export type ReceiverMode = 'up' | 'down' | 'gone' | 'rejecting' | 'first-fails';

export interface Receiver {
  url: string;
  /** Every request, in arrival order. */
  requests: ReceivedRequest[];
  /** Each delivery processed once: Webhook-Id → body. */
  processed: Map<string, Record<string, any>>;
  /**
   * up: 200 (a duplicate id is acknowledged, not processed again); down: 503; gone: 410; rejecting: 400;
   * first-fails: 500 to the first request of each Webhook-Id, then 200.
   */
  mode: ReceiverMode;
  /** The body of a 200 answer: 'ok' unless a test sets another. */
  okBody?: string;
  /** Milliseconds each answer takes (0 unless a test sets another): a receiver that keeps a sender busy. */
  answerDelayMs?: number;
  close(): Promise<void>;
}

const ANSWERS: Record<Exclude<ReceiverMode, 'first-fails'>, number> = {
  up: 200,
  down: 503,
  gone: 410,
  rejecting: 400,
};

export async function startReceiver(secret: string): Promise<Receiver> {
  const receiver = { requests: [], processed: new Map(), mode: 'up' } as unknown as Receiver;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const deliveryId = String(request.headers['webhook-id']);
      const headers = {
        'webhook-id': deliveryId,
        'webhook-signature': String(request.headers['webhook-signature']),
      };
      const verified = verifyNotification(secret, raw, headers, {
        nowSeconds: Math.floor(Date.now() / 1000),
        toleranceSeconds: 300,
      });
      const body = JSON.parse(raw) as Record<string, any>;
      const seen = receiver.requests.some((earlier) => earlier.deliveryId === deliveryId);
      const status = receiver.mode === 'first-fails' ? (seen ? 200 : 500) : ANSWERS[receiver.mode];
      receiver.requests.push({
        deliveryId,
        event: String(body.event),
        body,
        verified,
        receivedAt: Date.now(),
      });
      if (status === 200 && verified && !receiver.processed.has(deliveryId))
        receiver.processed.set(deliveryId, body);
      const answer = () =>
        response
          .writeHead(status, { 'Content-Type': 'text/plain' })
          .end(status === 200 ? (receiver.okBody ?? 'ok') : `no (${status})`);
      if (receiver.answerDelayMs) setTimeout(answer, receiver.answerDelayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** An API key of the company, made by an OWNER through the dashboard. */
export async function apiKeyOf(app: TestApp, companyId: string): Promise<string> {
  const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
  const response = await app.request('/dashboard/api/api-keys', {
    method: 'POST',
    headers: owner.writeHeaders,
    json: { name: 'test receiver' },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.key as string;
}

/** POST /api/webhooks with the key; returns the subscription id. */
export async function subscribe(
  app: TestApp,
  key: string,
  body: { url: string; events: string[]; secret: string },
): Promise<string> {
  const response = await app.request('/api/webhooks', { method: 'POST', token: key, json: body });
  expect(response.status, response.text).toBe(201);
  return response.body.data.id as string;
}

/** How long a test file waits for another to give the relay back (the longest file takes minutes). */
const RELAY_WAIT_MS = 15 * 60_000;

/**
 * The namespace has one relay, and a test file that restarts or stops it (restartRelay, stopRelay)
 * would cancel the relay another file running meanwhile has just started for itself. Such a file
 * calls useRelay first, before the hooks that touch the relay: it holds the relay for its whole
 * run, by a PostgreSQL advisory lock on a connection of its own to the run's test database
 * (released when the file ends, or when its process dies), and a second such file waits for it.
 */
export function useRelay(): void {
  const client = new pg.Client({ connectionString: loadConfig().DATABASE_URL });
  beforeAll(async () => {
    await client.connect();
    await client.query(`select pg_advisory_lock(hashtext('test: the webhook relay'))`);
  }, RELAY_WAIT_MS);
  afterAll(async () => {
    await client.end();
  });
}

/**
 * The relay of this test run restarted with this app's configuration (its TIME_SCALE shortens the
 * retry plan handed to every delivery it starts). The old run is cancelled, the operator's stop,
 * so the worker's relay keeper (worker/relay-keeper.ts) does not start it again in between with
 * the worker's own configuration.
 */
export async function restartRelay(app: TestApp): Promise<void> {
  await cancelRelay(app, 'restarted by a test');
  await webhookClient(app.temporal, app.config).ensureRelay();
  expect(retryPlanOf(app.config).initialMs).toBeLessThan(10_000);
}

/** The relay cancelled (the operator's stop, which the keeper leaves alone) and its run closed. */
async function cancelRelay(app: TestApp, reason: string): Promise<void> {
  const handle = app.temporal.workflow.getHandle(workflowIds.webhookOutbox());
  await handle.cancel().catch(() => undefined);
  const status = await eventually(
    () => latestRunStatus(app.temporal, workflowIds.webhookOutbox()),
    (found) => found !== 'RUNNING',
    30_000,
  );
  expect(status, `relay ${reason}: its run still open`).not.toBe('RUNNING');
}

/**
 * A step the relay had running when it was cancelled goes on unaware (it learns nothing until it
 * ends): it claims first attempts for up to its budget, and the attempts then in flight end within
 * their deadline. A test that books right after stopRelay would otherwise see that step send its
 * deliveries.
 */
const LAST_STEP_MS = WEBHOOK_RELAY_DEFAULTS.budgetMs + RELAY_FIRST_ATTEMPTS.deadlineMs + 500;

/**
 * The relay cancelled, its idle loop over and any step it was running over: that loop runs until
 * its wait ends, so it has stopped once no session of RELAY_LISTENER_NAME is left; a step is over
 * LAST_STEP_MS after the cancel.
 */
export async function stopRelay(app: TestApp): Promise<void> {
  const lastStepOver = Date.now() + LAST_STEP_MS;
  await cancelRelay(app, 'stopped by a test');
  const [left] = await eventually(
    () =>
      app.db.query<{ listening: number }>(
        `select count(*)::int as listening from pg_stat_activity
         where application_name = $1 and datname = current_database()`,
        [RELAY_LISTENER_NAME],
      ),
    ([row]) => row!.listening === 0,
    30_000,
  );
  expect(left!.listening, 'a relay loop still listening').toBe(0);
  await sleep(Math.max(0, lastStepOver - Date.now()));
}

/** The receiver's signatures all checked out. */
export function allVerified(receiver: Receiver): boolean {
  return receiver.requests.length > 0 && receiver.requests.every((request) => request.verified);
}

/**
 * A redelivery answered 202 that really went: the receiver got the delivery once more than the
 * `requestsBefore` it had, the delivery row is DELIVERED, and its attempts hold exactly one MANUAL one.
 */
export async function expectRedelivered(
  app: TestApp,
  receiver: Receiver,
  deliveryId: string,
  requestsBefore: number,
): Promise<void> {
  const sentTo = () => receiver.requests.filter((request) => request.deliveryId === deliveryId).length;
  await waitUntil(
    async () => sentTo(),
    (count) => count > requestsBefore,
    20_000,
    `the redelivery of ${deliveryId} to reach the receiver (${requestsBefore} requests before)`,
  );
  const state = () =>
    app.db
      .query<{ status: string; manual: number }>(
        `select d.status, (select count(*)::int from webhook_delivery_attempts a
                             where a.delivery_id = d.id and a.trigger = 'MANUAL') as manual
         from webhook_deliveries d where d.id = $1`,
        [deliveryId],
      )
      .then(([row]) => row);
  const recorded = await waitUntil(
    state,
    (row) => row?.status === 'DELIVERED' && row.manual > 0,
    20_000,
    `delivery ${deliveryId} DELIVERED with its MANUAL attempt recorded`,
  );
  expect({ sent: sentTo(), ...recorded }).toEqual({
    sent: requestsBefore + 1,
    status: 'DELIVERED',
    manual: 1,
  });
}
