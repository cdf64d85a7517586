import { beforeAll, describe, expect, it } from 'vitest';
import { createCorridor } from '../../support/factories.js';
import { useTestApp, type TestApp } from '../../support/harness.js';
import { confirmedJourneyRows, journeyTripOf } from '../../support/journey-rows.js';
import { announceCashPayment } from '../../support/payments.js';

/** A booking with a pending cash payment, which a forged provider notification claims is paid. */
interface PendingPayment {
  bookingId: string;
  paymentId: string;
}

async function pendingPayment(app: TestApp): Promise<PendingPayment> {
  const corridor = await createCorridor(app.db);
  const owner = await app.signIn();
  const rows = await confirmedJourneyRows(app.db, {
    ownerUserId: owner.userId,
    trip: journeyTripOf(corridor),
    travellers: ['Yara Daher'],
  });
  const { paymentId } = await announceCashPayment(app.db, rows.bookingId, owner.userId);
  return { bookingId: rows.bookingId, paymentId };
}

async function expectUntouched(app: TestApp, payment: PendingPayment): Promise<void> {
  const operations = await app.db.query<{ id: string; status: string; collected_at: string | null }>(
    `select id, status, collected_at from payment_operations where booking_id = $1`,
    [payment.bookingId],
  );
  expect(operations).toEqual([{ id: payment.paymentId, status: 'PENDING', collected_at: null }]);
  const [booking] = await app.db.query<{ payment_status: string }>(
    `select payment_status from bookings where id = $1`,
    [payment.bookingId],
  );
  expect(booking!.payment_status).toBe('UNPAID');
}

/** Notifications of every shape: the route must answer them all alike without reading them. */
function notifications(payment: PendingPayment): [string, RequestInit][] {
  const paid = JSON.stringify({
    event: 'payment.succeeded',
    payment_id: payment.paymentId,
    booking_id: payment.bookingId,
    status: 'COMPLETED',
  });
  return [
    ['a JSON notification claiming payment', { body: paid, headers: { 'Content-Type': 'application/json' } }],
    ['malformed JSON', { body: '{"event": "payment.succ', headers: { 'Content-Type': 'application/json' } }],
    [
      'a form-encoded body',
      {
        body: `payment_id=${payment.paymentId}&status=paid`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      },
    ],
    [
      'a 2 MiB body (far above the 64 KiB JSON limit)',
      { body: `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`, headers: { 'Content-Type': 'application/json' } },
    ],
    ['no body at all', {}],
    [
      'an invalid credential and a signature header',
      {
        body: paid,
        headers: {
          'Content-Type': 'application/json',
          Authorization: 'Bearer not-a-token',
          'X-Signature': 'sha256=00',
        },
      },
    ],
  ];
}

describe('payment provider webhook, development mode (default)', () => {
  const app = useTestApp();
  let payment: PendingPayment;

  beforeAll(async () => {
    payment = await pendingPayment(app);
  });

  it('answers every notification 501 OFFICIAL_CONTRACT_REQUIRED without reading it or changing data', async () => {
    for (const [, init] of notifications(payment)) {
      const response = await app.request('/api/payments/webhook/shamcash', { method: 'POST', ...init });
      expect(response.status).toBe(501);
      expect(response.body).toMatchObject({ success: false, errorCode: 'OFFICIAL_CONTRACT_REQUIRED' });
      expect(response.headers.get('cache-control')).toBe('private, no-store');
    }
    const otherProvider = await app.request('/api/payments/webhook/card-gateway', { method: 'POST' });
    expect(otherProvider.status).toBe(501);
    await expectUntouched(app, payment);
  });

  it('answers 501 whatever the provider appends to its query string, U+0000 and bytes that are not UTF-8 included', async () => {
    for (const query of ['ref=abc%00def', 'payer=Jos%E9', 'ref=%ED%A0%BD']) {
      const response = await app.request(`/api/payments/webhook/shamcash?${query}`, { method: 'POST' });
      expect([query, response.status, response.body?.errorCode]).toEqual([
        query,
        501,
        'OFFICIAL_CONTRACT_REQUIRED',
      ]);
    }
    await expectUntouched(app, payment);
  });

  it('is listed in the OpenAPI document with its two answers, and no 400 since it reads nothing', async () => {
    const document = await app.request('/api/openapi.json');
    const operation = document.body?.paths?.['/api/payments/webhook/{provider}']?.post;
    expect(operation?.operationId).toBe('paymentProviderWebhook');
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['404', '501']));
    expect(Object.keys(operation?.responses ?? {})).not.toContain('400');
  });
});

describe('payment provider webhook, PAYMENT_WEBHOOK_MODE=disabled', () => {
  const app = useTestApp({ PAYMENT_WEBHOOK_MODE: 'disabled' });
  let payment: PendingPayment;

  beforeAll(async () => {
    payment = await pendingPayment(app);
  });

  it('answers as a route that does not exist, whatever the body, and changes no data', async () => {
    for (const [name, init] of notifications(payment)) {
      const unknownRoute = await app.request('/api/no-such-route/shamcash', { method: 'POST', ...init });
      const response = await app.request('/api/payments/webhook/shamcash', { method: 'POST', ...init });
      expect({ name, status: response.status, errorCode: response.body?.errorCode }).toEqual({
        name,
        status: unknownRoute.status,
        errorCode: unknownRoute.body?.errorCode,
      });
    }
    const plain = await app.request('/api/payments/webhook/shamcash', { method: 'POST' });
    expect(plain.status).toBe(404);
    await expectUntouched(app, payment);
  });

  it('answers every other method as an unknown route too (no 405 naming POST), and is not in the document', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS']) {
      const unknown = await app.request('/api/no-such-route/shamcash', { method });
      const webhook = await app.request('/api/payments/webhook/shamcash', { method });
      expect({ method, status: webhook.status, allow: webhook.headers.get('allow') }).toEqual({
        method,
        status: unknown.status,
        allow: unknown.headers.get('allow'),
      });
    }
    const document = await app.request('/api/openapi.json');
    expect(document.body.paths).not.toHaveProperty(['/api/payments/webhook/{provider}']);
  });
});
