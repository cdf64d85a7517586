import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { headerSignature, notificationBody, signedPayload, verifyNotification } from './webhook-signing.js';

const notification = {
  event: 'booking.created' as const,
  timestamp: '2026-11-24T10:00:00.000Z',
  data: {
    booking_id: '0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c',
    booking_code: 'BK7Q2M9X',
    trip_id: '5d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
    passenger_count: 2,
    total_amount: 50000,
  },
};

/** The Webhook-Id header of the request: the delivery's id. */
const WEBHOOK_ID = '3c9e7d1a-2b4f-4e6a-9c8d-1f2e3a4b5c6d';

describe('webhook signing', () => {
  it('signs the fixed-order JSON of {event, timestamp, data}, and sends it with signature last', () => {
    const payload =
      '{"event":"booking.created","timestamp":"2026-11-24T10:00:00.000Z","data":{"booking_id":"0b6f3c2e-6d1a-4a57-9a3e-7f1c2d3b4a5c",' +
      '"booking_code":"BK7Q2M9X","trip_id":"5d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6","passenger_count":2,"total_amount":50000}}';
    expect(signedPayload(notification)).toBe(payload);
    const expected = `sha256=${createHmac('sha256', 'secret-0123456789').update(payload).digest('hex')}`;
    const body = notificationBody('secret-0123456789', notification);
    expect(body).toBe(`${payload.slice(0, -1)},"signature":"${expected}"}`);
    expect(JSON.parse(body).signature).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('a receiver accepts the right secret and time, and refuses a wrong secret, a changed body or an old timestamp', () => {
    const body = notificationBody('secret-0123456789', notification);
    const header = headerSignature('secret-0123456789', WEBHOOK_ID, 1_800_000_000, body);
    const check = (secret: string, raw: string, nowSeconds = 1_800_000_010) =>
      verifyNotification(
        secret,
        raw,
        { 'webhook-id': WEBHOOK_ID, 'webhook-signature': header },
        { nowSeconds, toleranceSeconds: 300 },
      );
    expect(check('secret-0123456789', body)).toBe(true);
    expect(check('another-secret-000', body)).toBe(false);
    expect(check('secret-0123456789', body.replace('50000', '1'))).toBe(false);
    expect(check('secret-0123456789', body, 1_800_001_000)).toBe(false);
  });

  it('v1 signs "<Webhook-Id>.<t>.<raw body>": a notification replayed in time under another Webhook-Id is refused', () => {
    const body = notificationBody('secret-0123456789', notification);
    const header = headerSignature('secret-0123456789', WEBHOOK_ID, 1_800_000_000, body);
    const v1 = createHmac('sha256', 'secret-0123456789')
      .update(`${WEBHOOK_ID}.1800000000.${body}`)
      .digest('hex');
    expect(header).toBe(`t=1800000000,v1=${v1}`);
    const check = (webhookId: string) =>
      verifyNotification(
        'secret-0123456789',
        body,
        { 'webhook-id': webhookId, 'webhook-signature': header },
        { nowSeconds: 1_800_000_010, toleranceSeconds: 300 },
      );
    expect(check(WEBHOOK_ID)).toBe(true);
    expect(check('7a0c1e52-93d4-4b8f-a1c6-2e5f8d9b0c13')).toBe(false);
  });
});
