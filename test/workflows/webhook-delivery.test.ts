import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhookRelayActivities,
  RELAY_LISTENER_NAME,
  relayStep,
  type RelayStepInput,
} from '../../activities/webhook-relay.js';
import { webhookClient } from '../../api/temporal/webhook-client.js';
import { createLogger } from '../../config/logger.js';
import { recordTripEvent } from '../../db/writes/outbox.js';
import { claimFirstAttempts } from '../../db/writes/webhook-first-attempts.js';
import { dispatchOutboxEvents } from '../../db/writes/webhook-deliveries.js';
import { searchAttributeKeys, workflowIds } from '../../workflows/shared.js';
import {
  retryPlanOf,
  WEBHOOK_DELIVERY_WORKFLOW,
  type WebhookDeliveryInput,
} from '../../workflows/webhook-delivery.contract.js';
import { currentRetryPlanQuery } from '../../workflows/webhook-outbox.contract.js';
import { cancelBooking } from '../support/booking-changes.js';
import {
  bookableTrip,
  createBooking,
  lockSeats,
  roundTripPair,
  type BookableTripFixture,
} from '../support/bookings.js';
import { useTestApp, type TestApp } from '../support/harness.js';
import { answeredOrWaiting, waitersOf } from '../drills/support/blocking.js';
import { eventually, mobileTraveller, waitUntil, type Caller } from '../support/journeys.js';
import { suspendedWhileWriting } from '../support/suspension.js';
import {
  allVerified,
  apiKeyOf,
  expectRedelivered,
  restartRelay,
  startReceiver,
  stopRelay,
  subscribe,
  useRelay,
  type Receiver,
} from '../support/webhooks.js';

/**
 * Company webhooks end to end: bookings through the real API, events in the outbox, the relay and
 * webhook-delivery workflows on the run's Temporal server and worker, and real HTTP receivers in
 * this test that check every signature. TIME_SCALE 0.02 shortens the retry plan: 200 ms, 400 ms,
 * 800 ms ... instead of 10 s, 20 s, 40 s.
 */
const SECRET = 'receiver-a-signing-secret-0123';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A receiver that takes every request and answers none (or each after `answerAfterMs`, 200 ok). */
interface HeldReceiver {
  url: string;
  /** Arrival times of its requests. */
  hits: number[];
  close(): Promise<void>;
}

async function startHeldReceiver(answerAfterMs?: number): Promise<HeldReceiver> {
  const held = { hits: [] as number[] } as HeldReceiver;
  const server: Server = createServer((request, response) => {
    request.resume();
    held.hits.push(Date.now());
    if (answerAfterMs !== undefined) setTimeout(() => response.writeHead(200).end('ok'), answerAfterMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  held.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  held.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return held;
}

/**
 * A company subscribed to `events` of its bookings: a trip with `seats`, an API key, a receiver that
 * checks `secret`, a traveller, and the relay restarted with this app's configuration.
 */
async function subscribedCompany(app: TestApp, options: { seats: number; secret: string; events: string[] }) {
  const trip = await bookableTrip(app.db, { seats: options.seats });
  const key = await apiKeyOf(app, trip.companyId);
  const receiver = await startReceiver(options.secret);
  const subscriptionId = await subscribe(app, key, {
    url: receiver.url,
    events: options.events,
    secret: options.secret,
  });
  const caller = await mobileTraveller(app);
  await restartRelay(app);
  return { trip, key, receiver, subscriptionId, caller };
}

// This file restarts and stops the namespace's one relay: it holds it while it runs.
useRelay();

describe('webhook delivery (full stack)', () => {
  // One traveller books many times here: the unpaid-booking cap (issue 18) is not what these tests are about.
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });
  let trip: BookableTripFixture;
  let key: string;
  let receiver: Receiver;
  let subscriptionId: string;
  let caller: Caller;
  let seat = 0;
  const nextSeat = () => trip.seatNumbers[seat++]!;

  beforeAll(async () => {
    ({ trip, key, receiver, subscriptionId, caller } = await subscribedCompany(app, {
      seats: 40,
      secret: SECRET,
      events: ['booking.created', 'booking.confirmed', 'booking.cancelled'],
    }));
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const processedFor = (bookingId: string) =>
    [...receiver.processed.values()].filter((body) => body.data.booking_id === bookingId);
  const deliveriesOf = (bookingIds: string[]) =>
    app.db.query<{ id: string; status: string; attempts: number }>(
      `select id, status, attempts from webhook_deliveries where booking_id = any($1::uuid[]) and subscription_id = $2`,
      [bookingIds, subscriptionId],
    );

  it("sends a booking's events once each, with SPEC's body and both signatures valid", async () => {
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
    await waitUntil(
      async () => processedFor(booking.id),
      (bodies) => bodies.length === 2,
      20_000,
      "the booking's two events processed",
    );
    const bodies = processedFor(booking.id);
    expect(bodies.map((body) => body.event).sort()).toEqual(['booking.confirmed', 'booking.created']);
    for (const body of bodies) {
      expect(Object.keys(body)).toEqual(['event', 'timestamp', 'data', 'signature']);
      expect(body.data).toEqual({
        booking_id: booking.id,
        booking_code: booking.booking_code,
        trip_id: trip.tripId,
        passenger_count: 1,
        total_amount: booking.total_price,
      });
      // ISO 8601 UTC to the microsecond: the instant the event was recorded, as the outbox keeps it.
      expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(Date.parse(body.timestamp as string)).not.toBeNaN();
      expect(body.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    }
    expect(allVerified(receiver)).toBe(true);

    const cancelled = await cancelBooking(app, caller, booking.id);
    expect(cancelled.status, cancelled.text).toBe(200);
    await waitUntil(
      async () => processedFor(booking.id),
      (all) => all.length === 3,
      20_000,
      'the booking.cancelled event processed (3 events)',
    );
    expect(processedFor(booking.id).map((body) => body.event)).toContain('booking.cancelled');

    // The delivery log shows each attempt: status, time, latency, the answer's excerpt. A delivery
    // is marked DELIVERED once the receiver's answer is back, a moment after the receiver saw it.
    const deliveriesOfBooking = async () => {
      const log = await app.request(`/api/webhooks/${subscriptionId}/deliveries?limit=100`, { token: key });
      expect(log.status, log.text).toBe(200);
      return (log.body.data as { id: string; bookingId: string; status: string }[]).filter(
        (delivery) => delivery.bookingId === booking.id,
      );
    };
    const ours = await eventually(deliveriesOfBooking, (deliveries) =>
      deliveries.every((delivery) => delivery.status !== 'PENDING'),
    );
    expect(ours.map((delivery) => delivery.status)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED']);
    const detail = await app.request(`/api/webhooks/${subscriptionId}/deliveries/${ours[0]!.id}`, {
      token: key,
    });
    expect(detail.body.data.attemptLog).toEqual([
      expect.objectContaining({
        attemptNumber: 1,
        statusCode: 200,
        outcome: 'DELIVERED',
        responseExcerpt: 'ok',
      }),
    ]);
    expect(detail.text).not.toContain(SECRET);
  });

  it('booking.created and booking.confirmed of one POST /bookings order by their timestamp', async () => {
    // The OpenAPI text tells receivers to order by timestamp; the outbox records the two events of
    // one booking at least 1 µs apart, and the timestamp must keep that difference.
    const ties: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
      const bodies = await waitUntil(
        async () => processedFor(booking.id),
        (received) => received.length === 2,
        20_000,
        "the booking's two events processed",
      );
      const created = bodies.find((body) => body.event === 'booking.created')!;
      const confirmed = bodies.find((body) => body.event === 'booking.confirmed')!;
      if (!(created.timestamp < confirmed.timestamp))
        ties.push(`${created.timestamp} vs ${confirmed.timestamp}`);
    }
    expect(ties, 'created/confirmed timestamps that do not order the two events').toEqual([]);
  });

  it('keeps trying while the receiver is down: every event arrives and each delivery id is processed once', async () => {
    receiver.mode = 'down';
    const bookings = [];
    for (let index = 0; index < 3; index += 1) {
      bookings.push(await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] }));
    }
    const ids = bookings.map((booking) => booking.id);
    // Refused for a while: several attempts each, none processed.
    await waitUntil(
      async () => receiver.requests.filter((request) => ids.includes(request.body.data.booking_id)).length,
      (count) => count >= 12,
      20_000,
      "12 refused attempts at the three bookings' events",
    );
    expect(ids.flatMap(processedFor)).toEqual([]);
    receiver.mode = 'up';

    const deliveries = await eventually(
      () => deliveriesOf(ids),
      (rows) => rows.length === 6 && rows.every((row) => row.status === 'DELIVERED'),
      25_000,
    );
    expect(deliveries.map((row) => row.status)).toEqual(Array(6).fill('DELIVERED'));
    expect(deliveries.some((row) => row.attempts > 1)).toBe(true);
    const processedIds = [...receiver.processed.keys()].filter((id) =>
      deliveries.some((row) => row.id === id),
    );
    expect(processedIds.sort()).toEqual(deliveries.map((row) => row.id).sort());
    expect(ids.flatMap(processedFor)).toHaveLength(6);
    expect(allVerified(receiver)).toBe(true);
    const [retried] = await app.db.query<{ outcomes: string[] }>(
      `select array_agg(outcome order by attempt_number) as outcomes from webhook_delivery_attempts
       where delivery_id = any($1::uuid[]) group by delivery_id order by count(*) desc limit 1`,
      [deliveries.map((row) => row.id)],
    );
    expect(retried!.outcomes.at(-1)).toBe('DELIVERED');
    expect(retried!.outcomes.slice(0, -1).every((outcome) => outcome === 'RETRY')).toBe(true);
    // Every attempt of a delivery (the relay's first, the workflow's retries) sends the same body.
    for (const delivery of deliveries) {
      const sent = receiver.requests.filter((request) => request.deliveryId === delivery.id);
      expect(new Set(sent.map((request) => JSON.stringify(request.body))).size, delivery.id).toBe(1);
    }
  });

  it('a 410 answer disables the subscription; nothing more is sent to it', async () => {
    const gone = await startReceiver(SECRET);
    gone.mode = 'gone';
    const goneId = await subscribe(app, key, { url: gone.url, events: ['booking.created'], secret: SECRET });
    try {
      await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
      const state = await eventually(
        () => app.request(`/api/webhooks/${goneId}`, { token: key }),
        (response) => response.body?.data?.status === 'DISABLED',
      );
      expect(state.body.data).toMatchObject({ status: 'DISABLED', disabledReason: 'RECEIVER_GONE_410' });
      expect(gone.requests).toHaveLength(1);

      const later = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
      await waitUntil(
        async () => processedFor(later.id),
        (bodies) => bodies.length === 2,
        20_000,
        "the later booking's two events processed by the other receiver",
      );
      expect(gone.requests).toHaveLength(1);
      const made = await app.db.query(`select id from webhook_deliveries where subscription_id = $1`, [
        goneId,
      ]);
      expect(made).toHaveLength(1);
      const redelivery = await app.request(
        `/api/webhooks/${goneId}/deliveries/${(made[0] as { id: string }).id}/redeliver`,
        { method: 'POST', token: key },
      );
      expect(redelivery.status, redelivery.text).toBe(409);
      expect(redelivery.body.errorCode).toBe('SUBSCRIPTION_DISABLED');
      await sleep(300);
      expect(gone.requests).toHaveLength(1);
    } finally {
      await gone.close();
    }
  });

  /**
   * A subscription of its own to a receiver that answers 503, and a booking whose `event` delivery
   * to it is PENDING after at least 5 failed attempts: waiting for its next retry (3.2 s or more at
   * this TIME_SCALE), so what the test does next happens inside that wait.
   */
  async function deliveryWaitingToRetry(events: string[], event = events[0]!) {
    const paused = await startReceiver(SECRET);
    paused.mode = 'down';
    const pausedId = await subscribe(app, key, { url: paused.url, events, secret: SECRET });
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
    const [waiting] = await eventually(
      () =>
        app.db.query<{ id: string; status: string; attempts: number }>(
          `select id, status, attempts from webhook_deliveries
           where booking_id = $1 and subscription_id = $2 and event = $3`,
          [booking.id, pausedId, event],
        ),
      (rows) => rows.length === 1 && rows[0]!.attempts >= 5 && rows[0]!.status === 'PENDING',
    );
    expect(waiting).toMatchObject({ status: 'PENDING' });
    return { paused, pausedId, booking, deliveryId: waiting!.id };
  }
  const deliveryLog = async (id: string, deliveryId: string) =>
    (await app.request(`/api/webhooks/${id}/deliveries/${deliveryId}`, { token: key })).body?.data as
      { status: string; lastError: string | null; finishedAt: string | null } | undefined;

  it('a delivery waiting to retry when its subscription is disabled is ABANDONED at once, and not sent after re-enabling', async () => {
    const { paused, pausedId, deliveryId } = await deliveryWaitingToRetry(['booking.created']);
    try {
      const disabled = await app.request(`/api/webhooks/${pausedId}`, {
        method: 'PATCH',
        token: key,
        json: { enabled: false },
      });
      expect(disabled.status, disabled.text).toBe(200);
      expect(await deliveryLog(pausedId, deliveryId)).toMatchObject({
        status: 'ABANDONED',
        lastError: 'SUBSCRIPTION_DISABLED',
        finishedAt: expect.any(String),
      });
      // Turned back on at once, its receiver fixed: the abandoned delivery stays abandoned.
      const enabled = await app.request(`/api/webhooks/${pausedId}`, {
        method: 'PATCH',
        token: key,
        json: { enabled: true },
      });
      expect(enabled.status, enabled.text).toBe(200);
      paused.mode = 'up';
      await sleep(4_000); // past the retry it was waiting for (3.2 s or more, ±10 %)
      expect(paused.processed.has(deliveryId)).toBe(false);
      expect(await deliveryLog(pausedId, deliveryId)).toMatchObject({ status: 'ABANDONED' });
      // Its workflow ended with it, without another attempt.
      const workflow = app.temporal.workflow.getHandle(workflowIds.webhookDelivery(deliveryId));
      const described = await eventually(
        () => workflow.describe(),
        (answer) => answer.status.name === 'COMPLETED',
      );
      expect(described.status.name).toBe('COMPLETED');
    } finally {
      await paused.close();
    }
  });

  it('a delivery waiting to retry is ABANDONED once its subscription no longer asks for its event; the others go on', async () => {
    const { paused, pausedId, booking, deliveryId } = await deliveryWaitingToRetry(
      ['booking.created', 'booking.confirmed'],
      'booking.confirmed',
    );
    try {
      const narrowed = await app.request(`/api/webhooks/${pausedId}`, {
        method: 'PATCH',
        token: key,
        json: { events: ['booking.created'] },
      });
      expect(narrowed.status, narrowed.text).toBe(200);
      expect(await deliveryLog(pausedId, deliveryId)).toMatchObject({
        status: 'ABANDONED',
        lastError: 'EVENT_UNSUBSCRIBED',
      });
      paused.mode = 'up';
      const created = await eventually(
        async () => [...paused.processed.values()].filter((body) => body.data.booking_id === booking.id),
        (bodies) => bodies.length === 1,
      );
      expect(created.map((body) => body.event)).toEqual(['booking.created']);
      await sleep(4_000);
      expect(paused.processed.has(deliveryId)).toBe(false);
    } finally {
      await paused.close();
    }
  });

  it("a deleted subscription's delivery waiting to retry is ABANDONED at once", async () => {
    const { paused, pausedId, deliveryId } = await deliveryWaitingToRetry(['booking.created']);
    try {
      const deleted = await app.request(`/api/webhooks/${pausedId}`, { method: 'DELETE', token: key });
      expect(deleted.status, deleted.text).toBe(200);
      const [row] = await app.db.query(`select status, last_error from webhook_deliveries where id = $1`, [
        deliveryId,
      ]);
      expect(row).toEqual({ status: 'ABANDONED', last_error: 'SUBSCRIPTION_DELETED' });
    } finally {
      await paused.close();
    }
  });

  it('a 410 that disables the subscription abandons its other deliveries waiting to retry; re-enabled, they are not sent', async () => {
    const { paused, pausedId, deliveryId } = await deliveryWaitingToRetry(['booking.created']);
    try {
      paused.mode = 'gone';
      const later = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
      await waitUntil(
        () => app.request(`/api/webhooks/${pausedId}`, { token: key }),
        (response) => response.body?.data?.status === 'DISABLED',
        20_000,
        'the subscription to be DISABLED by the 410',
      );
      expect(await deliveryLog(pausedId, deliveryId)).toMatchObject({
        status: 'ABANDONED',
        lastError: 'SUBSCRIPTION_DISABLED',
      });
      expect(paused.requests.filter((request) => request.body.data.booking_id === later.id)).toHaveLength(1);
      const enabled = await app.request(`/api/webhooks/${pausedId}`, {
        method: 'PATCH',
        token: key,
        json: { enabled: true },
      });
      expect(enabled.status, enabled.text).toBe(200);
      paused.mode = 'up';
      await sleep(4_000);
      expect(paused.processed.has(deliveryId)).toBe(false);
    } finally {
      await paused.close();
    }
  });

  it('a booking that rolls back emits nothing: no outbox row, no request', async () => {
    // A round trip whose return seats were swept meanwhile: the outbound booking (and its events)
    // is written first, then the return leg fails and the whole transaction rolls back.
    const { outbound, inbound } = await roundTripPair(app, trip.companyId);
    const outboundLock = await lockSeats(app, caller, outbound.tripId, ['1']);
    const returnLock = await lockSeats(app, caller, inbound.tripId, ['2']);
    await app.db.query(`update seat_allocations set status = 'EXPIRED' where hold_batch_id = $1`, [
      returnLock,
    ]);
    const eventsBefore = await app.db.query(`select id from outbox_events where company_id = $1`, [
      trip.companyId,
    ]);
    const requestsBefore = receiver.requests.length;

    const response = await app.request('/api/bookings/round-trip', {
      method: 'POST',
      headers: caller.headers,
      json: {
        outbound_seat_lock_session_id: outboundLock,
        return_seat_lock_session_id: returnLock,
        passenger_name: 'Lina Khoury',
        passenger_phone: '+963955111222',
      },
    });
    expect(response.status, response.text).toBe(409);
    await sleep(1500);
    expect(
      await app.db.query(`select id from outbox_events where company_id = $1`, [trip.companyId]),
    ).toEqual(eventsBefore);
    expect(
      await app.db.query(`select id from bookings where trip_id = any($1::uuid[])`, [
        [outbound.tripId, inbound.tripId],
      ]),
    ).toEqual([]);
    expect(receiver.requests.length).toBe(requestsBefore);
  });

  it('trip.started and trip.completed reach a trip subscriber, once per booking; a rolled-back one emits nothing', async () => {
    // The dispatch transition (issue 13) calls recordTripEvent in its transaction; this stands in
    // for it with the same trip and booking changes.
    const trips = await startReceiver(SECRET);
    await subscribe(app, key, {
      url: trips.url,
      events: ['trip.started', 'trip.completed'],
      secret: SECRET,
    });
    try {
      const other = await bookableTrip(app.db, { companyId: trip.companyId, seats: 8 });
      const seats = other.seatNumbers;
      const booked = [
        await createBooking(app, caller, { tripId: other.tripId, seatNumbers: [seats[0]!] }),
        await createBooking(app, caller, { tripId: other.tripId, seatNumbers: [seats[1]!, seats[2]!] }),
      ];
      const transition = (status: string, action: 'DEPART' | 'COMPLETE', fail = false) =>
        app.db.transaction(async (client) => {
          await client.query(`update trips set status = $2 where id = $1`, [other.tripId, status]);
          if (action === 'COMPLETE')
            await client.query(`update bookings set status = 'COMPLETED' where trip_id = $1`, [other.tripId]);
          const recorded = await recordTripEvent(client, other.tripId, action);
          if (fail) throw new Error('the transition failed');
          return recorded;
        });
      await expect(transition('DEPARTED', 'DEPART', true)).rejects.toThrow('the transition failed');
      expect(await transition('DEPARTED', 'DEPART')).toBe(2);
      expect(await transition('COMPLETED', 'COMPLETE')).toBe(2);

      await waitUntil(
        async () => trips.processed.size,
        (size) => size === 4,
        20_000,
        'the four trip events processed',
      );
      await sleep(500);
      expect(trips.requests).toHaveLength(4);
      expect(allVerified(trips)).toBe(true);
      const received = [...trips.processed.values()].map((body) => [body.event, body.data]);
      for (const booking of booked) {
        const data = {
          booking_id: booking.id,
          booking_code: booking.booking_code,
          trip_id: other.tripId,
          passenger_count: booking.id === booked[0]!.id ? 1 : 2,
          total_amount: booking.total_price,
        };
        expect(received).toContainEqual(['trip.started', data]);
        expect(received).toContainEqual(['trip.completed', data]);
      }
    } finally {
      await trips.close();
    }
  });

  it('a manual redelivery sends the same delivery id again, logged as MANUAL', async () => {
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
    const [delivered] = await waitUntil(
      () => deliveriesOf([booking.id]),
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'DELIVERED'),
      20_000,
      "the booking's two deliveries DELIVERED",
    );
    const sent = receiver.requests.filter((request) => request.deliveryId === delivered!.id).length;
    const path = `/api/webhooks/${subscriptionId}/deliveries/${delivered!.id}/redeliver`;
    const response = await app.request(path, { method: 'POST', token: key });
    expect(response.status, response.text).toBe(202);
    await waitUntil(
      async () => receiver.requests.filter((request) => request.deliveryId === delivered!.id).length,
      (count) => count === sent + 1,
      20_000,
      'the redelivery to reach the receiver',
    );
    const detail = await eventually(
      () => app.request(`/api/webhooks/${subscriptionId}/deliveries/${delivered!.id}`, { token: key }),
      (answer) => answer.body.data.attemptLog.length === 2,
    );
    expect(detail.body.data.attemptLog.map((attempt: { trigger: string }) => attempt.trigger)).toEqual([
      'AUTOMATIC',
      'MANUAL',
    ]);
    expect(receiver.processed.get(delivered!.id)).toBeDefined();
    // The redelivery carries the same signed body, timestamp included, as the first attempt.
    const bodies = receiver.requests.filter((request) => request.deliveryId === delivered!.id);
    expect(bodies.at(-1)!.body).toEqual(bodies[0]!.body);
  });

  it('redeliveries at once: one is sent, the others 409 DELIVERY_IN_PROGRESS; another company gets 404', async () => {
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
    const [delivered] = await waitUntil(
      () => deliveriesOf([booking.id]),
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'DELIVERED'),
      20_000,
      "the booking's two deliveries DELIVERED",
    );
    const path = `/api/webhooks/${subscriptionId}/deliveries/${delivered!.id}/redeliver`;
    const sentTo = () => receiver.requests.filter((request) => request.deliveryId === delivered!.id).length;
    const sent = sentTo();

    const stranger = await bookableTrip(app.db, { seats: 4 });
    const strangerKey = await apiKeyOf(app, stranger.companyId);
    const foreign = await app.request(path, { method: 'POST', token: strangerKey });
    expect(foreign.status, foreign.text).toBe(404);

    receiver.mode = 'down';
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => app.request(path, { method: 'POST', token: key })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([202, 409, 409, 409, 409]);
    for (const answer of answers.filter((one) => one.status === 409))
      expect(answer.body.errorCode).toBe('DELIVERY_IN_PROGRESS');
    // While it is being retried, a further redelivery is refused too.
    await waitUntil(
      async () => sentTo(),
      (count) => count >= sent + 1,
      20_000,
      "the redelivery's first (refused) attempt to reach the receiver",
    );
    const during = await app.request(path, { method: 'POST', token: key });
    expect(during.body.errorCode).toBe('DELIVERY_IN_PROGRESS');
    receiver.mode = 'up';
    await waitUntil(
      () => deliveriesOf([booking.id]),
      (rows) => rows.every((row) => row.status === 'DELIVERED'),
      20_000,
      'every delivery of the booking DELIVERED',
    );
    const [attempts] = await app.db.query<{ manual: number }>(
      `select count(*) filter (where trigger = 'MANUAL')::int as manual from webhook_delivery_attempts
       where delivery_id = $1`,
      [delivered!.id],
    );
    expect(attempts!.manual).toBe(1);
  });

  it('a redelivery whose company is suspended while it waits is refused 403 COMPANY_SUSPENDED, nothing reopened or sent', async () => {
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
    const [delivered] = await waitUntil(
      () => deliveriesOf([booking.id]),
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'DELIVERED'),
      20_000,
      "the booking's two deliveries DELIVERED",
    );
    const sent = receiver.requests.length;
    const path = `/api/webhooks/${subscriptionId}/deliveries/${delivered!.id}`;
    const before = (await app.request(path, { token: key })).body.data;
    try {
      const refused = await suspendedWhileWriting(app.db, trip.companyId, () =>
        app.request(`${path}/redeliver`, { method: 'POST', token: key }),
      );
      expect([refused.status, refused.body.errorCode], refused.text).toEqual([403, 'COMPANY_SUSPENDED']);
    } finally {
      await app.db.query(`update companies set status = 'ACTIVE' where id = $1`, [trip.companyId]);
    }
    await sleep(300);
    expect((await app.request(path, { token: key })).body.data).toEqual(before);
    expect(receiver.requests.length).toBe(sent);
  });

  it('a manual redelivery replaces a run of the delivery still closing, instead of being lost behind it', async () => {
    const booking = await createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [nextSeat()] });
    const [delivered] = await waitUntil(
      () => deliveriesOf([booking.id]),
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'DELIVERED'),
      20_000,
      "the booking's two deliveries DELIVERED",
    );
    const sentTo = () => receiver.requests.filter((request) => request.deliveryId === delivered!.id).length;
    const sent = sentTo();
    // A run of the delivery that has recorded its outcome but has not closed yet (its last workflow
    // task still to run): here, a run on a task queue no worker polls.
    const closing = await app.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId: workflowIds.webhookDelivery(delivered!.id),
      taskQueue: `nobody-polls-${delivered!.id}`,
      args: [
        {
          deliveryId: delivered!.id,
          companyId: trip.companyId,
          bookingId: booking.id,
          subscriptionId,
          event: 'booking.created',
          trigger: 'AUTOMATIC',
          retry: { initialMs: 200, maxMs: 1_000, windowMs: 5_000 },
        },
      ],
    });

    const response = await app.request(
      `/api/webhooks/${subscriptionId}/deliveries/${delivered!.id}/redeliver`,
      {
        method: 'POST',
        token: key,
      },
    );
    expect(response.status, response.text).toBe(202);
    const sentAfter = await eventually(
      async () => sentTo(),
      (count) => count === sent + 1,
      10_000,
    );
    expect(sentAfter).toBe(sent + 1);
    const [row] = await eventually(
      () => deliveriesOf([booking.id]).then((rows) => rows.filter((one) => one.id === delivered!.id)),
      (rows) => rows[0]?.status === 'DELIVERED',
      5_000,
    );
    expect(row!.status).toBe('DELIVERED');
    const standIn = app.temporal.workflow.getHandle(closing.workflowId, closing.firstExecutionRunId);
    expect((await standIn.describe()).status.name).toBe('TERMINATED');
  });
});

/**
 * First attempts without a workflow (issue 17's lag target): the relay's activity sends the first
 * attempt of every new delivery itself; only a delivery that must retry gets a webhook-delivery
 * workflow. Real PostgreSQL, the run's Temporal server and worker, real local receivers.
 * TIME_SCALE 0.02: the first retry waits 200 ms instead of 10 s. The relay is one workflow per
 * namespace: these tests stop it, so they share this file (describe blocks run one after the other)
 * with the tests above that need it running.
 */
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
   * subscribed to booking.created, and a way to book on its trip (by `booker`, else the block's traveller).
   */
  async function subscribedReceiver(booker?: Caller) {
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
      createBooking(app, booker ?? caller, {
        tripId: trip.tripId,
        seatNumbers: [trip.seatNumbers[seat++]!],
      });
    return { receiver, subscriptionId, book, companyId: trip.companyId, key };
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
    // Found by the booking row's id (the webhook body's booking_id) and by its journey's.
    const [journey] = await app.db.query<{ journey_id: string }>(
      'select journey_id from bookings where id = $1',
      [booking.id],
    );
    expect(described.typedSearchAttributes.get(searchAttributeKeys.bookingIds)).toEqual([
      booking.id,
      journey!.journey_id,
    ]);
    expect(described.typedSearchAttributes.get(searchAttributeKeys.companyIds)).toEqual([companyId]);
    expect(described.typedSearchAttributes.get(searchAttributeKeys.processStatus)).toBe('DELIVERED');
    expect(receiver.requests.map((request) => request.deliveryId)).toEqual([row!.id, row!.id]);
    expect(receiver.processed.size).toBe(1);
  });

  it('a 500 then a 200 whose body holds a NUL byte: DELIVERED after two requests, not sent again and again', async () => {
    const { receiver, subscriptionId, book } = await subscribedReceiver();
    receiver.mode = 'first-fails';
    receiver.okBody = 'ok\u0000';
    await book();
    const [row] = await eventually(
      () => deliveriesOf(subscriptionId),
      (found) => found.length === 1 && found[0]!.status === 'DELIVERED',
      10_000,
    );
    const requests = receiver.requests.filter((request) => request.deliveryId === row!.id).length;
    expect({ status: row!.status, attempts: row!.attempts, requests }).toEqual({
      status: 'DELIVERED',
      attempts: 2,
      requests: 2,
    });
    // The retry's workflow has ended: nothing more is sent.
    expect(await workflowOf(row!.id).result()).toEqual({ status: 'DELIVERED', attempts: 1 });
    expect((await attemptsOf(row!.id)).map((attempt) => [attempt.outcome, attempt.status_code])).toEqual([
      ['RETRY', 500],
      ['DELIVERED', 200],
    ]);
  });

  /** A company of its own whose receivers (`subscriptions` of them) take requests and answer late or never. */
  async function heldCompany(subscriptions: number, answerAfterMs?: number) {
    const trip = await bookableTrip(app.db, { seats: 20 });
    const key = await apiKeyOf(app, trip.companyId);
    const receiver = await startHeldReceiver(answerAfterMs);
    const ids: string[] = [];
    for (let index = 0; index < subscriptions; index += 1) {
      ids.push(
        await subscribe(app, key, {
          url: `${receiver.url}?n=${index}`,
          events: ['booking.created', 'booking.confirmed'],
          secret: SECRET,
        }),
      );
    }
    let seat = 0;
    const book = () =>
      createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [trip.seatNumbers[seat++]!] });
    return { receiver, subscriptionIds: ids, book };
  }
  /** Milliseconds from now until the receiver has processed the booking's event. */
  async function lagUntilReceived(receiver: Receiver, bookingId: string): Promise<number> {
    const committed = Date.now();
    await waitUntil(
      async () => [...receiver.processed.values()].some((body) => body.data.booking_id === bookingId),
      (seen) => seen,
      30_000,
      "the receiver to process the booking's event",
    );
    return Date.now() - committed;
  }

  it("a receiver that hangs does not hold up another company's delivery; its first attempt ends at 2 s and is retried", async () => {
    const hanging = await heldCompany(1);
    const healthy = await subscribedReceiver();
    try {
      await hanging.book();
      await waitUntil(
        async () => hanging.receiver.hits.length,
        (hits) => hits > 0,
        20_000,
        "the hanging receiver's first request",
      );
      // Past the relay step's 2 s claiming budget, the other company books.
      await sleep(2_500);
      const booking = await healthy.book();
      const lag = await lagUntilReceived(healthy.receiver, booking.id);
      expect(lag, `the other company's event arrived ${lag} ms after its commit`).toBeLessThan(3_000);
      // The hanging receiver's first attempt ended at the relay's deadline: a TIMEOUT handed to a retry.
      const [row] = await deliveriesOf(hanging.subscriptionIds[0]!);
      expect(row).toMatchObject({ status: 'PENDING', route: 'RETRY' });
      expect(row!.workflow_started_at).not.toBeNull();
      const [first] = await app.db.query<{ outcome: string; error: string; duration_ms: number }>(
        `select outcome, error, duration_ms from webhook_delivery_attempts where delivery_id = $1 and attempt_number = 1`,
        [row!.id],
      );
      expect(first).toMatchObject({ outcome: 'RETRY', error: 'TIMEOUT' });
      expect(first!.duration_ms).toBeGreaterThanOrEqual(1_900);
      expect(first!.duration_ms).toBeLessThan(3_000);
    } finally {
      await hanging.receiver.close();
    }
  });

  it("one company's 20 hanging receivers (80 first attempts) do not fill the relay: another company's event arrives at once", async () => {
    const hanging = await heldCompany(20);
    const healthy = await subscribedReceiver();
    try {
      await hanging.book();
      await hanging.book();
      await waitUntil(
        async () => hanging.receiver.hits.length,
        (hits) => hits >= 48,
        20_000,
        '48 requests at the hanging receivers',
      );
      const booking = await healthy.book();
      const lag = await lagUntilReceived(healthy.receiver, booking.id);
      expect(lag, `the other company's event arrived ${lag} ms after its commit`).toBeLessThan(3_000);
    } finally {
      await hanging.receiver.close();
    }
  });

  it('a slow receiver that answers within the deadline (1 s) gets each delivery once, with no workflow', async () => {
    const slow = await heldCompany(1, 1_000);
    try {
      await slow.book();
      const rows = await eventually(
        () => deliveriesOf(slow.subscriptionIds[0]!),
        (found) => found.length === 2 && found.every((row) => row.status === 'DELIVERED'),
      );
      expect(rows.map((row) => [row.status, row.attempts, row.route, row.workflow_started_at])).toEqual(
        Array(2).fill(['DELIVERED', 1, 'RELAY', null]),
      );
      await sleep(500);
      expect(slow.receiver.hits).toHaveLength(2);
    } finally {
      await slow.receiver.close();
    }
  });

  describe('with the relay workflow stopped', () => {
    const deps = () => ({ db: app.db, config: app.config, logger: createLogger(app.config, 'test') });
    beforeAll(() => stopRelay(app));
    afterAll(() => restartRelay(app));

    it('two relay runs over the same deliveries at once send each delivery once', async () => {
      const { receiver, subscriptionId, book } = await subscribedReceiver();
      for (let index = 0; index < 12; index += 1) await book();
      // Each answer takes 150 ms, so a step's three slots stay busy while the other step claims: both
      // take part however the two are scheduled (12 deliveries, 3 slots each: ~300 ms of work apiece).
      receiver.answerDelayMs = 150;
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
      // None of these needs a workflow. (A step may also hand back other tests' deliveries: those the
      // stopped relay had answered for a workflow it did not live to start.)
      const ours = (toStart: typeof first.toStart) =>
        toStart.filter((delivery) => delivery.subscriptionId === subscriptionId);
      expect([ours(first.toStart), ours(second.toStart)]).toEqual([[], []]);
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
      await stopRelay(app);
    });

    /** A relay behind (stopped here): the changes below all happen before it reaches the events. */
    const changer = (key: string, subscriptionId: string) => async (json: Record<string, unknown>) => {
      const response = await app.request(`/api/webhooks/${subscriptionId}`, {
        method: 'PATCH',
        token: key,
        json,
      });
      expect(response.status, response.text).toBe(200);
    };
    /** The subscription's delivery log as the company reads it: [booking, event, status, lastError]. */
    const logOf = async (key: string, subscriptionId: string) => {
      const response = await app.request(`/api/webhooks/${subscriptionId}/deliveries?limit=100`, {
        token: key,
      });
      expect(response.status, response.text).toBe(200);
      return (
        response.body.data as {
          id: string;
          bookingId: string;
          event: string;
          status: string;
          lastError: string;
        }[]
      ).map((row) => ({ ...row, line: [row.bookingId, row.event, row.status, row.lastError] }));
    };
    const step: RelayStepInput = {
      started: [],
      limit: 100,
      concurrency: 4,
      leaseMs: 60_000,
      budgetMs: 5_000,
    };

    it('a late relay judges an event by its subscription when it happened: disabled since, it is logged ABANDONED (redeliverable); recorded while disabled, it is never sent', async () => {
      const { receiver, subscriptionId, book, key } = await subscribedReceiver();
      const patch = changer(key, subscriptionId);
      const whileActive = await book();
      await patch({ enabled: false });
      const whileDisabled = await book();
      await patch({ enabled: true });
      const afterwards = await book();
      await relayStep(deps(), step);
      const log = await logOf(key, subscriptionId);
      expect(log.map((row) => row.line).sort()).toEqual(
        [
          [whileActive.id, 'booking.created', 'ABANDONED', 'SUBSCRIPTION_DISABLED'],
          [afterwards.id, 'booking.created', 'DELIVERED', null],
        ].sort(),
      );
      expect(receiver.requests.map((request) => request.body.data.booking_id)).toEqual([afterwards.id]);
      // The abandoned one is in the log, and can be redelivered.
      const abandoned = log.find((row) => row.bookingId === whileActive.id)!;
      const redelivered = await app.request(
        `/api/webhooks/${subscriptionId}/deliveries/${abandoned.id}/redeliver`,
        { method: 'POST', token: key },
      );
      expect(redelivered.status, redelivered.text).toBe(202);
      // It goes: the receiver gets it, the row is DELIVERED after one MANUAL attempt.
      await expectRedelivered(app, receiver, abandoned.id, 0);
      expect(receiver.processed.has(abandoned.id)).toBe(true);
      expect(
        receiver.requests.some((request) => request.body.data.booking_id === whileDisabled.id),
        'an event recorded while the subscription was disabled was sent',
      ).toBe(false);
    });

    it('a late relay and a PATCH of events: a dropped event is logged ABANDONED (EVENT_UNSUBSCRIBED), an added one or a subscription made later gets no older event', async () => {
      const { receiver, subscriptionId, book, key } = await subscribedReceiver();
      // booking.created and booking.confirmed are recorded while the subscription asks for the first only.
      const booking = await book();
      await changer(key, subscriptionId)({ events: ['booking.confirmed'] });
      const later = await startReceiver(SECRET);
      receivers.push(later);
      const laterId = await subscribe(app, key, {
        url: later.url,
        events: ['booking.created', 'booking.confirmed'],
        secret: SECRET,
      });
      await relayStep(deps(), step);
      expect((await logOf(key, subscriptionId)).map((row) => row.line)).toEqual([
        [booking.id, 'booking.created', 'ABANDONED', 'EVENT_UNSUBSCRIBED'],
      ]);
      expect(await logOf(key, laterId)).toEqual([]);
      expect([receiver.requests, later.requests]).toEqual([[], []]);
    });

    it('the relay reads a subscription after its change in flight has committed: an event after a re-enabling is sent', async () => {
      const { receiver, subscriptionId, book, key } = await subscribedReceiver();
      await changer(key, subscriptionId)({ enabled: false });
      let booking: { id: string } | undefined;
      let dispatched: ReturnType<typeof dispatchOutboxEvents> | undefined;
      // Stands for a PATCH enabled: true whose transaction has turned the subscription back on (its
      // history stamped then) but not yet committed when the booking commits and the relay runs.
      await app.db.transaction(async (client) => {
        await client.query(
          `update webhook_subscriptions set status = 'ACTIVE', disabled_reason = null, disabled_at = null,
             updated_at = now() where id = $1`,
          [subscriptionId],
        );
        const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
        booking = await book();
        dispatched = dispatchOutboxEvents(app.db, 100);
        await answeredOrWaiting(dispatched, app.db, rows[0]!.pid);
      });
      await dispatched;
      await relayStep(deps(), step);
      expect((await logOf(key, subscriptionId)).map((row) => row.line)).toEqual([
        [booking!.id, 'booking.created', 'DELIVERED', null],
      ]);
      expect(receiver.processed.size).toBe(1);
    });

    /** The idle loop's LISTEN sessions now open: [pid, what it last ran]. */
    const listeners = () =>
      app.db.query<{ pid: number; query: string }>(
        `select pid, query from pg_stat_activity where application_name = $1 and datname = current_database()`,
        [RELAY_LISTENER_NAME],
      );

    it('the idle loop whose LISTEN session PostgreSQL ends (restart, failover) ends its wait cleanly, without crashing the worker; the next wait relays the next event', async () => {
      const uncaught: string[] = [];
      const onUncaught = (error: Error) => uncaught.push(error.message);
      process.on('uncaughtException', onUncaught);
      const logged: string[] = [];
      const logger = createLogger({ LOG_LEVEL: 'warn' }, 'test', {
        write: (line: string) => logged.push(line),
      });
      const relay = createWebhookRelayActivities({ db: app.db, config: app.config, logger });
      const wait = { waitMs: 20_000, ...step };
      // Each wait is ended (cancelled) and awaited whatever happens, so none outlives the test.
      const waits: { env: MockActivityEnvironment; done: Promise<unknown> }[] = [];
      const startWait = () => {
        const env = new MockActivityEnvironment();
        const done = env.run(() => relay.awaitWebhookOutbox(wait));
        waits.push({ env, done });
        return done;
      };
      try {
        // A traveller of its own: the one of this block has booked up to its hourly seat-lock limit.
        const { receiver, book } = await subscribedReceiver(await mobileTraveller(app));
        const waiting = startWait();
        const [listening] = await eventually(
          listeners,
          (found) => found[0]?.query === 'LISTEN webhook_outbox',
        );
        expect(listening?.query).toBe('LISTEN webhook_outbox');
        // The server ends the session (57P01, as at a restart or an operator's pg_terminate_backend).
        const dropped = Date.now();
        await app.db.query('select pg_terminate_backend($1)', [listening!.pid]);
        await expect(waiting).resolves.toBeUndefined();
        const waited = Date.now() - dropped;
        await sleep(200);
        expect(uncaught).toEqual([]);
        expect(waited, `the wait went on ${waited} ms after its session ended`).toBeLessThan(5_000);
        expect(await listeners()).toEqual([]);
        // One concise line says so: the server's reason, no stack.
        const lines = logged.map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(lines).toEqual([
          expect.objectContaining({
            reason: 'terminating connection due to administrator command',
            code: '57P01',
          }),
        ]);
        expect(logged.join('')).not.toMatch(/\bat .*\.(js|ts):\d+/);

        // The workflow's next wait listens on a new session, and relays the event of a booking made then.
        const nextWaiting = startWait();
        await waitUntil(
          listeners,
          (found) => found[0]?.query === 'LISTEN webhook_outbox',
          20_000,
          'the next wait to LISTEN on a new session',
        );
        const booking = await book();
        await waitUntil(
          async () => [...receiver.processed.values()].some((body) => body.data.booking_id === booking.id),
          (seen) => seen,
          10_000,
          'the receiver to process the event of the booking made then',
        );
        expect([...receiver.processed.values()].map((body) => body.data.booking_id)).toEqual([booking.id]);
        waits[1]!.env.cancel();
        await expect(nextWaiting).resolves.toBeUndefined();
        expect(uncaught).toEqual([]);
      } finally {
        for (const { env } of waits) env.cancel();
        await Promise.all(waits.map(({ done }) => done.catch(() => undefined)));
        process.off('uncaughtException', onUncaught);
      }
    }, 60_000);
  });
});

/**
 * A webhook delivery whose retry workflow `webhook-delivery/{id}` an operator ends in the Temporal
 * UI (terminate or cancel) is left PENDING with nothing to attempt it again: the company can then
 * redeliver it (POST .../redeliver), which is refused only while a run of it is open.
 * TIME_SCALE 0.02 shortens the retry plan (200 ms, 400 ms, ...).
 */
const ENDED_RUN_SECRET = 'receiver-ended-run-secret-01234';

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
    ({ trip, key, receiver, subscriptionId, caller } = await subscribedCompany(app, {
      seats: 10,
      secret: ENDED_RUN_SECRET,
      events: ['booking.created'],
    }));
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
      await waitUntil(
        async () => (await handle.describe()).status.name,
        (status) => status !== 'RUNNING',
        20_000,
        'the ended retry workflow to close',
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
      // The run records DELIVERED in an activity and closes just after: wait for the close.
      const closed = await eventually(
        () => handle.describe(),
        (run) => run.status.name !== 'RUNNING',
      );
      expect(closed.status.name).toBe('COMPLETED');
    }, 60_000);
  }

  it('a redelivery that waited for its delivery while the subscription was disabled is refused, reopening nothing', async () => {
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: [trip.seatNumbers[seat++]!],
    });
    const delivered = (await eventually(
      () => deliveryOf(booking.id),
      (row) => row?.status === 'DELIVERED',
    ))!;
    // A 410 answer's transaction: it holds the delivery and disables the subscription, then commits.
    const gone = await app.db.pool.connect();
    try {
      await gone.query('begin');
      await gone.query(`select 1 from webhook_deliveries where id = $1 for update`, [delivered.id]);
      await gone.query(`update webhook_subscriptions set status = 'DISABLED' where id = $1`, [
        subscriptionId,
      ]);
      const [{ pid }] = (await gone.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [
        { pid: number },
      ];
      const redelivery = redeliver(delivered.id);
      await waitersOf(app.db, pid);
      await gone.query('commit');
      const answer = await redelivery;
      expect([answer.status, answer.body.errorCode]).toEqual([409, 'SUBSCRIPTION_DISABLED']);
    } finally {
      gone.release();
      await app.db.query(`update webhook_subscriptions set status = 'ACTIVE' where id = $1`, [
        subscriptionId,
      ]);
    }
    expect(await deliveryOf(booking.id)).toEqual(delivered);
    expect(await manualAttempts(delivered.id)).toBe(0);
  });
});

const KEEPER_SECRET = 'receiver-relay-keeper-secret-012';

describe('the webhook relay an operator ends (the worker keeps it running)', () => {
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });
  let trip: BookableTripFixture;
  let receiver: Receiver;
  let caller: Caller;
  let seat = 0;
  const relay = () => app.temporal.workflow.getHandle(workflowIds.webhookOutbox());
  const book = () =>
    createBooking(app, caller, { tripId: trip.tripId, seatNumbers: [trip.seatNumbers[seat++]!] });
  const sentFor = (bookingId: string) =>
    receiver.requests.filter((request) => request.body.data.booking_id === bookingId);

  beforeAll(async () => {
    ({ trip, receiver, caller } = await subscribedCompany(app, {
      seats: 10,
      secret: KEEPER_SECRET,
      events: ['booking.created'],
    }));
  });
  afterAll(async () => {
    await restartRelay(app);
    await receiver?.close();
  });

  it('a relay terminated in the Temporal UI is started again by the worker, and the events booked meanwhile arrive', async () => {
    const before = await relay().describe();
    await relay().terminate('looked stuck');
    const booking = await book();
    // The worker's keeper checks every 5 s: a new run of the same id, running.
    const after = await eventually(
      () => relay().describe(),
      (described) => described.status.name === 'RUNNING' && described.runId !== before.runId,
      30_000,
    );
    expect([after.status.name, after.runId === before.runId]).toEqual(['RUNNING', false]);
    await waitUntil(
      async () => sentFor(booking.id).length,
      (count) => count > 0,
      30_000,
      "the restarted relay to send the booking's event",
    );
    expect(sentFor(booking.id).map((request) => [request.event, request.verified])).toEqual([
      ['booking.created', true],
    ]);
  }, 70_000);

  it('a relay an operator cancelled stays stopped (their stop): nothing is sent until it is started again', async () => {
    await stopRelay(app);
    const booking = await book();
    // Longer than two of the keeper's checks: still the cancelled run, and nothing sent.
    await sleep(12_000);
    expect((await relay().describe()).status.name).toBe('CANCELLED');
    expect(sentFor(booking.id)).toEqual([]);
    // An API process that starts (ensureRelay) starts it again, and the event goes out.
    await restartRelay(app);
    await waitUntil(
      async () => sentFor(booking.id).length,
      (count) => count > 0,
      30_000,
      "the relay started again to send the booking's event",
    );
    expect(sentFor(booking.id).map((request) => request.event)).toEqual(['booking.created']);
  }, 70_000);
});

const RETRY_HOURS_SECRET = 'receiver-retry-hours-secret-0123';

/**
 * README (Webhooks): failing deliveries retry for WEBHOOK_RETRY_HOURS, then FAILED. The relay is
 * started once and runs on across deploys: an API process that starts with another value must
 * reach the deliveries the running relay starts from then on. TIME_SCALE 0.001: 72 hours are
 * 259 s here, 1 hour 3.6 s (the first retry waits 10 ms).
 */
describe('an API process that starts with a new WEBHOOK_RETRY_HOURS', () => {
  const app = useTestApp({ TIME_SCALE: 0.001, WEBHOOK_RETRY_HOURS: 72, UNPAID_BOOKINGS_MAX: 0 });
  const newProcess = () => ({ ...app.config, WEBHOOK_RETRY_HOURS: 1 });
  const relay = () => app.temporal.workflow.getHandle(workflowIds.webhookOutbox());
  let trip: BookableTripFixture;
  let key: string;
  let receiver: Receiver;
  let subscriptionId: string;
  let caller: Caller;

  beforeAll(async () => {
    // The relay running with 72 hours, as the earlier deployment left it.
    ({ trip, key, receiver, subscriptionId, caller } = await subscribedCompany(app, {
      seats: 5,
      secret: RETRY_HOURS_SECRET,
      events: ['booking.created'],
    }));
  });
  afterAll(async () => {
    await restartRelay(app);
    await receiver?.close();
  });

  it('the running relay is kept, and a delivery it starts afterwards is FAILED after the new window', async () => {
    const before = await relay().describe();
    // api/server.ts: the new process ensures the relay when it starts.
    await webhookClient(app.temporal, newProcess()).ensureRelay();
    // What an operator asks the relay (Temporal UI, Queries): the plan it hands out now.
    expect(await relay().query(currentRetryPlanQuery)).toEqual(retryPlanOf(newProcess()));

    receiver.mode = 'down';
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: [trip.seatNumbers[0]!],
    });
    const row = await eventually(
      async () =>
        (
          await app.db.query<{ id: string; status: string; attempts: number }>(
            `select id, status, attempts from webhook_deliveries where booking_id = $1 and subscription_id = $2`,
            [booking.id, subscriptionId],
          )
        )[0],
      (found) => found?.status === 'FAILED',
      30_000,
    );
    // 3.6 s of retries, not 259 s: FAILED, as the delivery log shows it.
    expect(row?.status).toBe('FAILED');
    expect(row!.attempts).toBeGreaterThan(1);
    const detail = await app.request(`/api/webhooks/${subscriptionId}/deliveries/${row!.id}`, { token: key });
    expect([detail.status, detail.body.data.status]).toEqual([200, 'FAILED']);
    // Its retry workflow was handed the new process's plan.
    const history = await app.temporal.workflow
      .getHandle(workflowIds.webhookDelivery(row!.id))
      .fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    const input = defaultPayloadConverter.fromPayload<WebhookDeliveryInput>(started.input!.payloads![0]!);
    expect(input.retry).toEqual(retryPlanOf(newProcess()));

    // The relay that ran on is the one that started it: not ended, not replaced.
    const after = await relay().describe();
    expect([after.status.name, after.runId]).toEqual(['RUNNING', before.runId]);
  }, 60_000);
});
