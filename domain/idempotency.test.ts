import { describe, expect, it } from 'vitest';
import { isFinalAnswer, keyReused, keyVerdict, requestHash } from './idempotency.js';

describe('idempotency keys', () => {
  const hash = requestHash({ scope: { kind: 'JOURNEY', id: 'j1' }, body: { idempotency_key: 'key-0001' } });

  it('fingerprints a request by its JSON', () => {
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: 2 }));
  });

  it('acts on a new key, replays a stored answer, refuses a key used for another request', () => {
    const answer = { status: 200, body: { success: true } };
    expect(keyVerdict(null, hash)).toEqual({ kind: 'NEW' });
    expect(keyVerdict({ requestHash: hash, answer: null }, hash)).toEqual({ kind: 'NEW' });
    expect(keyVerdict({ requestHash: hash, answer }, hash)).toEqual({ kind: 'REPLAY', answer });
    expect(keyVerdict({ requestHash: 'other', answer }, hash)).toEqual({ kind: 'REUSED' });
    expect(keyReused('confirm')).toEqual({
      status: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'This idempotency key was already used for a different confirm request',
    });
  });

  it('keeps refusals of the request for retries, not a busy service', () => {
    expect(isFinalAnswer(409)).toBe(true);
    expect(isFinalAnswer(503)).toBe(false);
  });

  it('keeps refusals that end the hold, not those of the account or inventory as they stand', () => {
    for (const code of ['HOLD_EXPIRED', 'HOLD_CLOSED', 'TRIP_NOT_BOOKABLE', 'ALREADY_CONFIRMED']) {
      expect(isFinalAnswer(409, code)).toBe(true);
    }
    // Paying or cancelling a booking, or releasing seats, makes room: the same request may then succeed.
    expect(isFinalAnswer(409, 'UNPAID_BOOKING_LIMIT_REACHED')).toBe(false);
    expect(isFinalAnswer(409, 'SEAT_HOLD_LIMIT_REACHED')).toBe(false);
    expect(isFinalAnswer(429, 'RATE_LIMITED')).toBe(false);
    expect(isFinalAnswer(503, 'CONFIRMATION_UNAVAILABLE')).toBe(false);
  });
});
