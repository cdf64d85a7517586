import { describe, expect, it } from 'vitest';
import { heldSeatsRefusal, partySizeRefusal, unpaidBookingsRefusal } from './inventory-caps.js';

const caps = { heldSeatsPerTrip: 10, heldSeatsTotal: 20 };

describe('held seats cap', () => {
  it('allows up to the per-trip cap and refuses one seat more, naming the trip', () => {
    expect(heldSeatsRefusal(caps, [{ tripId: 't1', held: 6, adding: 4 }])).toBeNull();
    expect(heldSeatsRefusal(caps, [{ tripId: 't1', held: 6, adding: 5 }])).toEqual({
      status: 409,
      code: 'SEAT_HOLD_LIMIT_REACHED',
      message: expect.stringContaining('10 seats on this trip'),
      details: { scope: 'TRIP', limit: 10, held: 6, requested: 5, trip_id: 't1' },
    });
  });

  it('judges a trip the request does not touch by the total only', () => {
    const trips = [
      { tripId: 'full', held: 12, adding: 0 },
      { tripId: 'new', held: 0, adding: 2 },
    ];
    expect(heldSeatsRefusal(caps, trips)).toBeNull();
  });

  it('refuses past the total across trips', () => {
    const trips = [
      { tripId: 't1', held: 10, adding: 0 },
      { tripId: 't2', held: 8, adding: 0 },
      { tripId: 't3', held: 0, adding: 3 },
    ];
    expect(heldSeatsRefusal(caps, trips)?.details).toEqual({
      scope: 'ACCOUNT',
      limit: 20,
      held: 18,
      requested: 3,
    });
    expect(heldSeatsRefusal(caps, trips.slice(0, 2).concat({ tripId: 't3', held: 0, adding: 2 }))).toBeNull();
  });

  it('never refuses a request that adds nothing, and 0 turns each cap off', () => {
    expect(heldSeatsRefusal(caps, [{ tripId: 't1', held: 40, adding: 0 }])).toBeNull();
    const off = { heldSeatsPerTrip: 0, heldSeatsTotal: 0 };
    expect(heldSeatsRefusal(off, [{ tripId: 't1', held: 40, adding: 10 }])).toBeNull();
    const totalOnly = { heldSeatsPerTrip: 0, heldSeatsTotal: 20 };
    expect(heldSeatsRefusal(totalOnly, [{ tripId: 't1', held: 15, adding: 10 }])?.details).toMatchObject({
      scope: 'ACCOUNT',
    });
  });
});

describe('a party no account can hold', () => {
  it('is one larger than the per-trip cap, named as the hold names it', () => {
    expect(partySizeRefusal(caps, 10)).toBeNull();
    expect(partySizeRefusal(caps, 11)).toEqual({
      status: 409,
      code: 'SEAT_HOLD_LIMIT_REACHED',
      message: expect.stringContaining('10 seats on one trip'),
      details: { scope: 'TRIP', limit: 10, requested: 11 },
    });
  });

  it('counts its seats on every trip of a connection against the total cap', () => {
    const tight = { heldSeatsPerTrip: 10, heldSeatsTotal: 12 };
    expect(partySizeRefusal(tight, 6, 2)).toBeNull();
    expect(partySizeRefusal(tight, 7, 2)?.details).toEqual({ scope: 'ACCOUNT', limit: 12, requested: 14 });
    expect(partySizeRefusal({ heldSeatsPerTrip: 10, heldSeatsTotal: 5 }, 6)?.details).toEqual({
      scope: 'ACCOUNT',
      limit: 5,
      requested: 6,
    });
  });

  it('is never refused by a cap turned off (0)', () => {
    expect(partySizeRefusal({ heldSeatsPerTrip: 0, heldSeatsTotal: 0 }, 50, 2)).toBeNull();
    expect(partySizeRefusal({ heldSeatsPerTrip: 0, heldSeatsTotal: 20 }, 20)).toBeNull();
  });
});

describe('unpaid bookings cap', () => {
  it('allows up to the cap, refuses past it, and 0 turns it off', () => {
    expect(unpaidBookingsRefusal(3, 2, 1)).toBeNull();
    expect(unpaidBookingsRefusal(3, 3, 1)).toEqual({
      status: 409,
      code: 'UNPAID_BOOKING_LIMIT_REACHED',
      message: expect.stringContaining('at most 3 unpaid bookings'),
      details: { limit: 3, unpaid: 3 },
    });
    expect(unpaidBookingsRefusal(3, 2, 2)?.code).toBe('UNPAID_BOOKING_LIMIT_REACHED');
    expect(unpaidBookingsRefusal(0, 50, 2)).toBeNull();
  });
});
