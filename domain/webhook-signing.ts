import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent, WebhookEventData } from './webhook-events.js';

/**
 * The exact bytes of a notification and its two signatures (SPEC "Events" leaves the bytes open;
 * the README's API notes show a receiver's check in Node).
 *
 * Signed payload: the UTF-8 bytes of `JSON.stringify` of {event, timestamp, data} with the keys in
 * exactly that order and data's keys in the order booking_id, booking_code, trip_id,
 * passenger_count, total_amount; no whitespace. SPEC's `signature` field is `sha256=` + the
 * lower-case hex HMAC-SHA256 of those bytes, keyed by the subscription secret (UTF-8).
 *
 * Body sent: the same object with `signature` added as the last key. A receiver gets the signed
 * bytes back by parsing the body, removing `signature` and serializing again (JSON.parse keeps the
 * key order), or by cutting `,"signature":"…"` off the raw body.
 *
 * Header `Webhook-Signature: t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `<Webhook-Id>.<t>.<raw
 * body>` with the same secret (the Standard Webhooks scheme), made anew for each attempt, so a
 * receiver can refuse old replays (t too far from its clock), and one replayed within the tolerance
 * under another Webhook-Id (to pass the receiver's deduplication) fails the check, while the body's
 * own signature stays the same across attempts.
 */

export interface WebhookNotification {
  event: WebhookEvent;
  /** ISO 8601 UTC, to the millisecond: when the change that caused the event recorded it, just before committing. */
  timestamp: string;
  data: WebhookEventData;
}

/** The signed bytes, as a string: keys in the fixed order above. */
export function signedPayload(notification: WebhookNotification): string {
  const { data } = notification;
  return JSON.stringify({
    event: notification.event,
    timestamp: notification.timestamp,
    data: {
      booking_id: data.booking_id,
      booking_code: data.booking_code,
      trip_id: data.trip_id,
      passenger_count: data.passenger_count,
      total_amount: data.total_amount,
    },
  });
}

const hmacHex = (secret: string, text: string) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(text, 'utf8')).digest('hex');

/** SPEC's `signature`: `sha256=` + lower-case hex HMAC-SHA256 of the signed payload. */
export function bodySignature(secret: string, notification: WebhookNotification): string {
  return `sha256=${hmacHex(secret, signedPayload(notification))}`;
}

/** The raw body sent: the signed payload with `signature` as its last key. */
export function notificationBody(secret: string, notification: WebhookNotification): string {
  const payload = signedPayload(notification);
  return `${payload.slice(0, -1)},"signature":${JSON.stringify(bodySignature(secret, notification))}}`;
}

/** The text v1 signs: `<Webhook-Id>.<seconds>.<raw body>`. */
const headerSigned = (webhookId: string, unixSeconds: number, rawBody: string) =>
  `${webhookId}.${unixSeconds}.${rawBody}`;

/**
 * `t=<seconds>,v1=<hex HMAC-SHA256 of "<webhookId>.<seconds>.<raw body>">`, the Webhook-Signature
 * header of a request whose Webhook-Id header is `webhookId`.
 */
export function headerSignature(
  secret: string,
  webhookId: string,
  unixSeconds: number,
  rawBody: string,
): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, headerSigned(webhookId, unixSeconds, rawBody))}`;
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The request headers a receiver checks, named as Node's http module gives them (lower case). */
export interface NotificationHeaders {
  'webhook-id': string;
  'webhook-signature': string;
}

/**
 * A receiver's check of both signatures (used by the tests and shown in the README): the header's
 * timestamp within `toleranceSeconds` of `nowSeconds`, its v1 over `<Webhook-Id>.<t>.<raw body>`,
 * and the body's `signature` over the body without it.
 */
export function verifyNotification(
  secret: string,
  rawBody: string,
  headers: NotificationHeaders,
  options: { nowSeconds: number; toleranceSeconds: number },
): boolean {
  const parts = Object.fromEntries(
    headers['webhook-signature'].split(',').map((part) => part.split('=', 2) as [string, string]),
  );
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(options.nowSeconds - t) > options.toleranceSeconds) return false;
  const expected = hmacHex(secret, headerSigned(headers['webhook-id'], t, rawBody));
  if (!parts.v1 || !sameHex(parts.v1, expected)) return false;
  const { signature, ...signed } = JSON.parse(rawBody) as { signature?: unknown };
  return (
    typeof signature === 'string' && sameHex(signature, `sha256=${hmacHex(secret, JSON.stringify(signed))}`)
  );
}
