import { describe, expect, it } from 'vitest';
import {
  FINAL_PAYMENT_STATUSES,
  ledgerStatistics,
  PAYMENT_STATUSES,
  PAYMENT_TRANSITIONS,
  refuseNoteChange,
  transitionFor,
} from './payment-ledger.js';

describe('the payment transition table', () => {
  const codeOf = (work: () => unknown) => {
    try {
      work();
      return null;
    } catch (error) {
      return (error as { code: string }).code;
    }
  };

  it('verifies and cancels only a PENDING payment, and refunds only collected money', () => {
    expect(transitionFor('PENDING', 'verify')).toMatchObject({ to: 'COMPLETED', bookingFact: 'PAID' });
    expect(transitionFor('PENDING', 'cancel')).toMatchObject({ to: 'CANCELLED', bookingFact: null });
    expect(transitionFor('COMPLETED', 'refund')).toMatchObject({ to: 'REFUNDED', bookingFact: 'REFUNDED' });
    expect(transitionFor('REFUND_DUE', 'refund')).toMatchObject({ to: 'REFUNDED', bookingFact: 'REFUNDED' });
    for (const status of ['COMPLETED', 'REFUND_DUE', 'REFUNDED', 'CANCELLED', 'FAILED'] as const) {
      expect(codeOf(() => transitionFor(status, 'verify'))).toBe('PAYMENT_TRANSITION_NOT_ALLOWED');
      expect(codeOf(() => transitionFor(status, 'cancel'))).toBe('PAYMENT_TRANSITION_NOT_ALLOWED');
    }
    for (const status of ['PENDING', 'REFUNDED', 'CANCELLED', 'FAILED'] as const) {
      expect(codeOf(() => transitionFor(status, 'refund'))).toBe('PAYMENT_TRANSITION_NOT_ALLOWED');
    }
  });

  it('leaves nothing from a final state, and freezes the note there', () => {
    for (const row of PAYMENT_TRANSITIONS) expect(FINAL_PAYMENT_STATUSES.has(row.from)).toBe(false);
    expect(codeOf(() => refuseNoteChange('REFUNDED'))).toBe('PAYMENT_FINAL');
    expect(codeOf(() => refuseNoteChange('CANCELLED'))).toBe('PAYMENT_FINAL');
    expect(codeOf(() => refuseNoteChange('COMPLETED'))).toBeNull();
    expect(codeOf(() => refuseNoteChange('REFUND_DUE'))).toBeNull();
  });

  it('counts collected, refunded, outstanding and refund-due money from grouped rows', () => {
    const stats = ledgerStatistics([
      { status: 'PENDING', source: 'transaction', count: 2, amount: 20 },
      { status: 'COMPLETED', source: 'driver', count: 1, amount: 10 },
      { status: 'REFUND_DUE', source: 'office', count: 1, amount: 7 },
      { status: 'REFUNDED', source: 'office', count: 1, amount: 5 },
      { status: 'CANCELLED', source: 'transaction', count: 1, amount: 3 },
    ]);
    expect(stats).toMatchObject({
      count: 6,
      collected: 22,
      refunded: 5,
      net: 17,
      outstanding: 20,
      refundDue: 7,
    });
    expect(stats.bySource.office).toEqual({ count: 2, amount: 12 });
    expect(Object.keys(stats.byStatus)).toEqual([...PAYMENT_STATUSES]);
  });
});
