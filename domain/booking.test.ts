import { describe, expect, it } from 'vitest';
import { newBookingCode, PASSENGER_PHONE, roundTripProblem, sameSeats, seatsPrice } from './booking.js';

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
    expect(seatsPrice(trip, ['STANDARD', 'VIP'])).toEqual({ subtotal: 25_000, unitPrice: 12_500 });
    expect(seatsPrice({ ...trip, priceVip: null }, ['VIP'])).toEqual({ subtotal: 10_000, unitPrice: 10_000 });
    expect(seatsPrice({ ...trip, boardShareBp: 2_500 }, ['STANDARD'])).toEqual({
      subtotal: 7_500,
      unitPrice: 7_500,
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

  it('makes readable booking codes and knows international phone numbers', () => {
    expect(newBookingCode()).toMatch(/^BK-[A-HJ-NP-Z2-9]{8}$/);
    expect(PASSENGER_PHONE.test('+963944123456')).toBe(true);
    expect(PASSENGER_PHONE.test('0944123456')).toBe(false);
    expect(PASSENGER_PHONE.test('+0944123456')).toBe(false);
  });
});
