import { describe, expect, it } from 'vitest';
import { closingDifference, expectedAmount, isOverdue, refuseOverdraw } from './cash-shift.js';

describe('cash shift rules', () => {
  it('expects opening balance + collections + money in − money out; the difference is declared − expected', () => {
    const expected = expectedAmount({
      openingBalance: 20_000,
      collections: 10_000,
      movementsIn: 5_000,
      movementsOut: 3_000,
    });
    expect(expected).toBe(32_000);
    expect(closingDifference(31_500, expected)).toBe(-500);
    expect(closingDifference(32_000, expected)).toBe(0);
  });

  it('is overdue from the configured hours on, and never takes out more than the till holds', () => {
    const opened = new Date('2026-11-24T08:00:00Z');
    expect(isOverdue(opened, new Date('2026-11-25T07:59:59Z'), 24)).toBe(false);
    expect(isOverdue(opened, new Date('2026-11-25T08:00:00Z'), 24)).toBe(true);
    expect(() => refuseOverdraw(100, 100)).not.toThrow();
    expect(() => refuseOverdraw(100, 101)).toThrow(
      expect.objectContaining({ code: 'CASH_SHIFT_INSUFFICIENT_CASH' }),
    );
  });
});
