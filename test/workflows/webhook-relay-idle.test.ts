import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_LISTENER_NAME } from '../../activities/webhook-relay.js';
import { recordTripEvent } from '../../db/writes/outbox.js';
import { workflowIds } from '../../workflows/shared.js';
import { WEBHOOK_RELAY_DEFAULTS } from '../../workflows/webhook-outbox.contract.js';
import { bookableTrip, createBooking } from '../support/bookings.js';
import { useTestApp } from '../support/harness.js';
import { mobileTraveller, waitUntil } from '../support/journeys.js';
import {
  apiKeyOf,
  restartRelay,
  startReceiver,
  subscribe,
  useRelay,
  type Receiver,
} from '../support/webhooks.js';

/**
 * The relay while the outbox is idle: its idle loop (awaitWebhookOutbox) sweeps by itself every
 * waitMs, so the relay's Temporal history, which the namespace keeps for its retention, does not
 * grow with every sweep; and an event whose notification is lost is still sent by that sweep.
 */
const SECRET = 'receiver-idle-relay-secret-0123';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// This file restarts the namespace's one relay: it holds it while it runs.
useRelay();

describe('the webhook relay while the outbox is idle (full stack)', () => {
  const app = useTestApp({ TIME_SCALE: 0.02, UNPAID_BOOKINGS_MAX: 0 });
  const relay = () => app.temporal.workflow.getHandle(workflowIds.webhookOutbox());
  const historyLength = async () => (await relay().fetchHistory()).events?.length ?? 0;
  /** The idle loop's LISTEN session is open (the relay is between steps with nothing to start). */
  const idle = () =>
    waitUntil(
      async () => {
        const rows = await app.db.query<{ query: string }>(
          `select query from pg_stat_activity where application_name = $1 and datname = current_database()`,
          [RELAY_LISTENER_NAME],
        );
        return rows.length;
      },
      (listening) => listening === 1,
      20_000,
      'the relay to run its idle loop',
    );
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    await restartRelay(app);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('an idle relay adds (almost) nothing to its Temporal history: no step and wait per 2 s sweep', async () => {
    await idle();
    await sleep(500);
    const before = await historyLength();
    // Six sweeps' worth (waitMs 2 s): handing back at each would add about 12 events a sweep.
    await sleep(6 * WEBHOOK_RELAY_DEFAULTS.waitMs);
    const grown = (await historyLength()) - before;
    expect(grown, `the relay's history grew by ${grown} events in 12 idle seconds`).toBeLessThanOrEqual(2);
    expect((await relay().describe()).status.name).toBe('RUNNING');
  }, 40_000);

  it('an event committed while idle whose notification is lost is sent by the sweep, within about waitMs', async () => {
    const trip = await bookableTrip(app.db, { seats: 4 });
    const key = await apiKeyOf(app, trip.companyId);
    receiver = await startReceiver(SECRET);
    await subscribe(app, key, { url: receiver.url, events: ['trip.started'], secret: SECRET });
    const booking = await createBooking(app, await mobileTraveller(app), {
      tripId: trip.tripId,
      seatNumbers: [trip.seatNumbers[0]!],
    });
    await idle();
    await sleep(500);
    const before = await historyLength();
    // trip.started committed with its outbox trigger (pg_notify) off for this transaction only: the
    // idle loop hears nothing of it.
    const committed = await app.db.transaction(async (client) => {
      await client.query('alter table outbox_events disable trigger outbox_events_notify');
      expect(await recordTripEvent(client, trip.tripId, 'DEPART')).toBe(1);
      await client.query('alter table outbox_events enable trigger outbox_events_notify');
      return Date.now();
    });
    const sent = receiver;
    await waitUntil(
      async () => sent.requests.length,
      (count) => count > 0,
      20_000,
      'the lost event to be sent',
    );
    const lag = sent.requests[0]!.receivedAt - committed;
    expect(
      sent.requests.map((request) => [request.event, request.body.data.booking_id, request.verified]),
    ).toEqual([['trip.started', booking.id, true]]);
    // At most one sweep interval, plus the step and the HTTP exchange; the sweep ran inside the
    // idle loop, not as a step of the workflow.
    expect(lag, `sent ${lag} ms after its commit`).toBeLessThan(WEBHOOK_RELAY_DEFAULTS.waitMs + 1_500);
    expect((await historyLength()) - before).toBeLessThanOrEqual(2);
  }, 60_000);
});
