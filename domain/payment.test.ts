import { describe, expect, it } from 'vitest';
import { driverCollectionRefusal, unpayableRefusal } from './payment.js';

describe('paying a booking', () => {
  const codeOf = (
    status: string,
    paymentStatus: 'UNPAID' | 'PAID' | 'REFUNDED',
    by: 'open' | 'collect',
    amountDue = 10_000,
  ) => unpayableRefusal({ status, paymentStatus, amountDue }, by)?.code ?? null;

  it('lets a traveller announce cash for a confirmed or checked-in, unpaid booking', () => {
    expect(codeOf('CONFIRMED', 'UNPAID', 'open')).toBeNull();
    expect(codeOf('CHECKED_IN', 'UNPAID', 'open')).toBeNull();
    expect(codeOf('COMPLETED', 'UNPAID', 'open')).toBe('BOOKING_NOT_PAYABLE');
  });

  it('lets staff record cash late, for a completed trip too', () => {
    expect(codeOf('COMPLETED', 'UNPAID', 'collect')).toBeNull();
    expect(codeOf('CANCELLED', 'UNPAID', 'collect')).toBe('BOOKING_NOT_PAYABLE');
  });

  it('refuses a paid booking first, and a refunded one', () => {
    expect(codeOf('CANCELLED', 'PAID', 'open')).toBe('BOOKING_ALREADY_PAID');
    expect(codeOf('CONFIRMED', 'REFUNDED', 'collect')).toBe('BOOKING_NOT_PAYABLE');
  });

  it('has nothing to collect of a booking that costs nothing (a free-trip voucher), whoever asks', () => {
    expect(codeOf('CONFIRMED', 'UNPAID', 'open', 0)).toBe('NOTHING_TO_COLLECT');
    expect(codeOf('COMPLETED', 'UNPAID', 'collect', 0)).toBe('NOTHING_TO_COLLECT');
    expect(codeOf('CONFIRMED', 'PAID', 'collect', 0)).toBe('BOOKING_ALREADY_PAID');
  });
});

describe("the driver taking a traveller's cash", () => {
  const codeOf = (status: string, tripStatus: 'SCHEDULED' | 'BOARDING', amountDue: number) =>
    driverCollectionRefusal({ status, paymentStatus: 'UNPAID', amountDue }, tripStatus)?.code ?? null;

  it("refuses in README's order: the trip not collecting before nothing to collect, before a traveller not aboard", () => {
    expect(codeOf('CONFIRMED', 'SCHEDULED', 0)).toBe('TRIP_NOT_COLLECTING');
    expect(codeOf('CONFIRMED', 'BOARDING', 0)).toBe('NOTHING_TO_COLLECT');
    expect(codeOf('CONFIRMED', 'BOARDING', 5_000)).toBe('TRAVELLER_NOT_CHECKED_IN');
    expect(codeOf('CHECKED_IN', 'BOARDING', 5_000)).toBeNull();
  });
});
