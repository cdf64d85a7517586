import { describe, expect, it } from 'vitest';
import { dispatchOutboxEvents } from '../../../db/writes/webhook-deliveries.js';
import { createCompany, createCorridor } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';
import { waitUntil } from '../../support/journeys.js';
import { apiKeyOf } from '../../support/webhooks.js';

const SECRET = 'a-signing-secret-of-enough-length';
const body = (url: string, events = ['booking.created']) => ({ url, events, secret: SECRET });

const subscriptionRows = (app: TestApp, companyId: string) =>
  app.db.query<{ id: string; url: string; events: string[]; status: string }>(
    `select id, url, events, status from webhook_subscriptions where company_id = $1 order by created_at, id`,
    [companyId],
  );

const auditActions = async (app: TestApp, companyId: string) =>
  (
    await app.db.query<{ action: string }>(
      `select action from audit_log where action like 'company.webhook.%' and details->>'companyId' = $1
       order by created_at, id`,
      [companyId],
    )
  ).map((row) => row.action);

/** How many deliveries (each its own Webhook-Id) one booking.created of the company's makes, once dispatched. */
async function deliveriesOfOneEvent(app: TestApp, corridor: Awaited<ReturnType<typeof createCorridor>>) {
  const traveller = await app.signIn();
  const { bookingId } = await confirmedJourneyRows(app.db, {
    ownerUserId: traveller.userId,
    trip: journeyTripOf(corridor),
    travellers: ['Rami Haddad'],
  });
  const [event] = await app.db.query<{ id: string }>(
    `insert into outbox_events (company_id, event, booking_id, trip_id, data)
     select company_id, 'booking.created', id, trip_id, '{}'::jsonb from bookings where id = $1 returning id`,
    [bookingId],
  );
  await dispatchOutboxEvents(app.db, 1000);
  // The test worker's relay may have claimed the event first: wait for its claim to commit.
  await waitUntil(
    () =>
      app.db.query(`select 1 from outbox_events where id = $1 and dispatched_at is not null`, [event!.id]),
    (rows) => rows.length === 1,
    20_000,
    'the event to be dispatched',
  );
  const deliveries = await app.db.query(`select id from webhook_deliveries where outbox_event_id = $1`, [
    event!.id,
  ]);
  return deliveries.length;
}

/**
 * An integrator's HTTP client that times out and sends the same request again: POST and DELETE
 * /api/webhooks make nothing twice (README "Webhooks", Subscriptions).
 */
describe('/api/webhooks sent again after a lost answer', () => {
  const app = useTestApp();

  it('the same POST twice answers the first subscription (200, same id): one row, one audit row, an event delivered once', async () => {
    const corridor = await createCorridor(app.db);
    const companyId = corridor.company.id;
    const key = await apiKeyOf(app, companyId);
    const events = ['booking.created', 'booking.confirmed'];
    const first = await app.request('/api/webhooks', {
      method: 'POST',
      token: key,
      json: body('http://127.0.0.1:9/retried', events),
    });
    expect(first.status, first.text).toBe(201);
    // Sent again, the events in another order: the same set.
    const again = await app.request('/api/webhooks', {
      method: 'POST',
      token: key,
      json: body('http://127.0.0.1:9/retried', [...events].reverse()),
    });
    expect([again.status, again.body.data], again.text).toEqual([200, first.body.data]);
    expect(again.text).not.toContain(SECRET);
    expect((await subscriptionRows(app, companyId)).map((row) => row.id)).toEqual([first.body.data.id]);
    expect(await auditActions(app, companyId)).toEqual(['company.webhook.create']);
    expect(await deliveriesOfOneEvent(app, corridor)).toBe(1);
  });

  it('a repeat of a subscription at the limit of 20 answers it, not 409 WEBHOOK_LIMIT_REACHED', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    const made = [];
    for (let index = 0; index < 20; index += 1) {
      const response = await app.request('/api/webhooks', {
        method: 'POST',
        token: key,
        json: body(`http://127.0.0.1:9/${index}`),
      });
      expect(response.status, response.text).toBe(201);
      made.push(response.body.data.id as string);
    }
    const again = await app.request('/api/webhooks', {
      method: 'POST',
      token: key,
      json: body('http://127.0.0.1:9/19'),
    });
    expect([again.status, again.body.data?.id], again.text).toEqual([200, made[19]]);
    expect(await subscriptionRows(app, companyId)).toHaveLength(20);
  });

  it('a different url, events or secret, or the first one no longer ACTIVE, makes a new subscription (201)', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    const post = (json: object) => app.request('/api/webhooks', { method: 'POST', token: key, json });
    const first = await post(body('http://127.0.0.1:9/a'));
    expect(first.status, first.text).toBe(201);
    const others = [
      body('http://127.0.0.1:9/b'),
      body('http://127.0.0.1:9/a', ['booking.created', 'booking.cancelled']),
      { ...body('http://127.0.0.1:9/a'), secret: 'another-signing-secret-long-enough' },
    ];
    for (const other of others) {
      const response = await post(other);
      expect([response.status, response.body.data?.id], JSON.stringify(other)).toEqual([
        201,
        expect.not.stringMatching(first.body.data.id),
      ]);
    }
    const disabled = await app.request(`/api/webhooks/${first.body.data.id}`, {
      method: 'PATCH',
      token: key,
      json: { enabled: false },
    });
    expect(disabled.status, disabled.text).toBe(200);
    const whileDisabled = await post(body('http://127.0.0.1:9/a'));
    expect(whileDisabled.status, whileDisabled.text).toBe(201);
    expect(
      (await app.request(`/api/webhooks/${whileDisabled.body.data.id}`, { method: 'DELETE', token: key }))
        .status,
    ).toBe(200);
    const afterDelete = await post(body('http://127.0.0.1:9/a'));
    expect(afterDelete.status, afterDelete.text).toBe(201);
    const rows = await subscriptionRows(app, companyId);
    expect(rows.map((row) => row.status)).toEqual([
      'DISABLED',
      'ACTIVE',
      'ACTIVE',
      'ACTIVE',
      'DELETED',
      'ACTIVE',
    ]);
    expect(new Set(rows.map((row) => row.id)).size).toBe(6);
  });

  it('the same DELETE twice answers 200 both times, deleting once; another company’s id stays 404', async () => {
    const companyId = (await createCompany(app.db)).id;
    const key = await apiKeyOf(app, companyId);
    const made = await app.request('/api/webhooks', {
      method: 'POST',
      token: key,
      json: body('http://127.0.0.1:9/'),
    });
    const path = `/api/webhooks/${made.body.data.id}`;
    const first = await app.request(path, { method: 'DELETE', token: key });
    expect(first.status, first.text).toBe(200);
    const rowsAfterFirst = await app.db.query(`select * from webhook_subscriptions where company_id = $1`, [
      companyId,
    ]);
    const again = await app.request(path, { method: 'DELETE', token: key });
    expect([again.status, again.body], again.text).toEqual([first.status, first.body]);
    expect(
      await app.db.query(`select * from webhook_subscriptions where company_id = $1`, [companyId]),
    ).toEqual(rowsAfterFirst);
    expect(await auditActions(app, companyId)).toEqual(['company.webhook.create', 'company.webhook.delete']);
    expect((await app.request(path, { token: key })).status).toBe(404);

    // Another company's ids stay missing: this deleted one to its key, its own deleted one to this key.
    const otherKey = await apiKeyOf(app, (await createCompany(app.db)).id);
    const theirs = await app.request('/api/webhooks', {
      method: 'POST',
      token: otherKey,
      json: body('http://127.0.0.1:9/'),
    });
    const theirPath = `/api/webhooks/${theirs.body.data.id}`;
    expect((await app.request(theirPath, { method: 'DELETE', token: otherKey })).status).toBe(200);
    for (const [foreign, token] of [
      [path, otherKey],
      [theirPath, key],
    ] as const) {
      const refused = await app.request(foreign, { method: 'DELETE', token });
      expect([refused.status, refused.body.errorCode], foreign).toEqual([404, 'NOT_FOUND']);
    }
    expect(await auditActions(app, companyId)).toEqual(['company.webhook.create', 'company.webhook.delete']);
  });
});
