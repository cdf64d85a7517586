import { describe, expect, it } from 'vitest';
import { iso } from '../../db/queries/stop-identity.js';

/**
 * Stop identities carry ISO 8601 UTC times exactly as Date#toISOString writes them. PostgreSQL's
 * UTC text is rewritten without a Date (search names dozens of stop calls per answer); the answer
 * must be the same as parsing it, for every form PostgreSQL writes and for other offsets.
 */
describe('stop identity times (iso)', () => {
  const viaDate = (text: string) => new Date(text).toISOString();

  it('writes what Date#toISOString writes, for text and JSON forms, fractions and other offsets', () => {
    const forms = [
      '2026-11-25 05:00:00+00',
      '2026-11-25T05:00:00+00:00',
      '2026-11-25T05:00:00.5+00:00',
      '2026-11-25 05:00:00.05+00',
      '2026-11-25T05:00:00.123456+00:00',
      '2026-11-25T23:59:59.999999+00:00',
      '2026-11-25 05:00:00+03',
      '2026-11-25T05:00:00+03:00',
      '2026-11-24T21:30:00-02:30',
      '0999-01-01 00:00:00+00',
    ];
    for (const form of forms) expect(iso(form), form).toBe(viaDate(form));
    // A year of minutes and seconds, as text and as JSON.
    for (let i = 0; i < 20_000; i++) {
      const instant = new Date(Date.UTC(2026, 0, 1) + i * 1_577_123).toISOString();
      const text = instant.replace('T', ' ').replace(/\.000Z$|Z$/, '+00');
      const json = instant.replace(/\.000Z$|Z$/, '+00:00');
      expect(iso(text)).toBe(viaDate(text));
      expect(iso(json)).toBe(viaDate(json));
    }
  });

  it('refuses what is not a time, as Date does', () => {
    expect(() => iso('not a time')).toThrow(RangeError);
  });
});
