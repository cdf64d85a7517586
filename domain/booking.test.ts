import { describe, expect, it } from 'vitest';
import {
  newBookingCode,
  roundTripProblem,
  sameSeats,
  seatLockMismatch,
  seatLockRefusal,
  seatsPrice,
} from './booking.js';

const trip = { priceBase: 10_000, priceVip: 15_000, boardShareBp: 0, alightShareBp: 10_000 };
const at = (iso: string) => new Date(iso);
const ends = (origin: string, destination: string, departs: string, arrives: string) => ({
  originCityId: origin,
  destinationCityId: destination,
  departureAt: at(departs),
  arrivalAt: at(arrives),
});

describe('booking rules', () => {
  it('prices each seat at its class fare over the whole trip', () => {
    expect(seatsPrice(trip, ['STANDARD', 'VIP'])).toEqual({
      subtotal: 25_000,
      unitPrice: 12_500,
      seatPrices: [10_000, 15_000],
    });
    expect(seatsPrice({ ...trip, priceVip: null }, ['VIP'])).toEqual({
      subtotal: 10_000,
      unitPrice: 10_000,
      seatPrices: [10_000],
    });
    expect(seatsPrice({ ...trip, boardShareBp: 2_500 }, ['STANDARD'])).toEqual({
      subtotal: 7_500,
      unitPrice: 7_500,
      seatPrices: [7_500],
    });
  });

  it('compares seat labels as sets', () => {
    expect(sameSeats(['1', 'A2'], ['A2', '1'])).toBe(true);
    expect(sameSeats(['1'], ['1', '2'])).toBe(false);
    expect(sameSeats(['1', '2'], ['1', '3'])).toBe(false);
  });

  it('accepts a return that goes back after the outbound arrives', () => {
    const outbound = ends('A', 'B', '2026-12-01T05:00:00Z', '2026-12-01T08:00:00Z');
    expect(
      roundTripProblem(outbound, ends('B', 'A', '2026-12-03T05:00:00Z', '2026-12-03T08:00:00Z')),
    ).toBeNull();
    expect(roundTripProblem(outbound, ends('A', 'B', '2026-12-03T05:00:00Z', '2026-12-03T08:00:00Z'))).toBe(
      'ROUND_TRIP_DIRECTION_MISMATCH',
    );
    expect(roundTripProblem(outbound, ends('B', 'C', '2026-12-03T05:00:00Z', '2026-12-03T08:00:00Z'))).toBe(
      'ROUND_TRIP_DIRECTION_MISMATCH',
    );
    expect(roundTripProblem(outbound, ends('B', 'A', '2026-12-01T08:00:00Z', '2026-12-01T11:00:00Z'))).toBe(
      'RETURN_DEPARTS_TOO_EARLY',
    );
  });

  it('makes readable booking codes', () => {
    expect(newBookingCode()).toMatch(/^BK-[A-HJ-NP-Z2-9]{8}$/);
  });
});

describe('seat locks a booking consumes', () => {
  it('books only an ACTIVE lock that has not expired and still holds its seats', () => {
    const lock = { status: 'ACTIVE' as const, live: true, heldSeats: 2 };
    expect(seatLockRefusal(lock)).toBeNull();
    expect(seatLockRefusal({ ...lock, status: 'CONSUMED' })?.code).toBe('SEAT_LOCK_CONSUMED');
    expect(seatLockRefusal({ ...lock, status: 'RELEASED' })?.code).toBe('SEAT_LOCK_RELEASED');
    expect(seatLockRefusal({ ...lock, status: 'EXPIRED' })?.code).toBe('SEAT_LOCK_EXPIRED');
    expect(seatLockRefusal({ ...lock, live: false })?.code).toBe('SEAT_LOCK_EXPIRED');
    expect(seatLockRefusal({ ...lock, heldSeats: 0 })?.code).toBe('SEAT_LOCK_EXPIRED');
  });

  it('matches a request naming the lock’s trip and exactly its seats, in any order', () => {
    const held = { tripId: 't1', seatNumbers: ['1', '2'] };
    expect(seatLockMismatch(held, { tripId: 't1', seatNumbers: ['2', '1'] })).toBeNull();
    expect(seatLockMismatch(held, { tripId: 't2', seatNumbers: ['1', '2'] })).toBe(
      'This seat lock is for another trip',
    );
    expect(seatLockMismatch(held, { tripId: 't1', seatNumbers: ['1'] })).toBe(
      'seat_numbers must be exactly the seats of the seat lock',
    );
  });
});
