import { randomBytes } from 'node:crypto';
import { legFare, MAX_FARE, seatFare } from './pricing.js';

/**
 * Rules of bookings made with a seat lock (POST /bookings, POST /bookings/round-trip): the
 * passenger fields, the price of locked seats, and what makes two trips a round trip.
 */

/** Seats one lock (and so one booking) may take. */
export const MAX_SEATS_PER_BOOKING = 10;

/**
 * The highest subtotal a booking request can reach: a round trip (two bookings) of the most seats,
 * each at the highest fare. A bound on a subtotal a client states (POST /loyalty/preview) is this,
 * so nothing the booking routes accept is refused there.
 */
export const MAX_ROUND_TRIP_SUBTOTAL = 2 * MAX_SEATS_PER_BOOKING * MAX_FARE;

/** A short code people can read out at a counter: BK- and 8 characters without look-alikes. */
export function newBookingCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return `BK-${[...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/** The same labels, in any order (a booking names exactly the seats its lock holds). */
export function sameSeats(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sorted = (labels: readonly string[]) => [...labels].sort().join('\u0000');
  return sorted(a) === sorted(b);
}

export interface PricedTrip {
  priceBase: number;
  priceVip: number | null;
  /** fare_share_bp of the first and the last stop call: a lock covers the whole trip. */
  boardShareBp: number;
  alightShareBp: number;
}

/**
 * The price of the locked seats: each seat pays its class's fare (VIP seats the VIP fare when the
 * trip has one) over the whole trip. seatPrices are those fares in seat order (what a free-trip
 * voucher makes free); unitPrice is their average, for the journey leg's record only, as it may be
 * the price of no seat.
 */
export function seatsPrice(
  trip: PricedTrip,
  seatClasses: readonly ('STANDARD' | 'VIP')[],
): { subtotal: number; unitPrice: number; seatPrices: number[] } {
  const seatPrices = seatClasses.map((seatClass) =>
    legFare(seatFare(trip, seatClass), trip.boardShareBp, trip.alightShareBp),
  );
  const subtotal = seatPrices.reduce((sum, price) => sum + price, 0);
  return {
    subtotal,
    unitPrice: seatClasses.length ? Math.round(subtotal / seatClasses.length) : 0,
    seatPrices,
  };
}

export interface TripEnds {
  originCityId: string;
  destinationCityId: string;
  departureAt: Date;
  arrivalAt: Date;
}

export type RoundTripProblem = 'ROUND_TRIP_DIRECTION_MISMATCH' | 'RETURN_DEPARTS_TOO_EARLY';

/**
 * A return trip goes the opposite way (from the outbound's destination city back to its origin
 * city) and leaves after the outbound arrives. Null when the pair is a round trip.
 */
export function roundTripProblem(outbound: TripEnds, inbound: TripEnds): RoundTripProblem | null {
  if (
    inbound.originCityId !== outbound.destinationCityId ||
    inbound.destinationCityId !== outbound.originCityId
  ) {
    return 'ROUND_TRIP_DIRECTION_MISMATCH';
  }
  if (inbound.departureAt.getTime() <= outbound.arrivalAt.getTime()) return 'RETURN_DEPARTS_TOO_EARLY';
  return null;
}

/** SPEC's words for a round trip that is not one. */
export const ROUND_TRIP_PROBLEM_TEXT: Record<RoundTripProblem, string> = {
  ROUND_TRIP_DIRECTION_MISMATCH: 'The return trip must go from the outbound destination back to its origin',
  RETURN_DEPARTS_TOO_EARLY: 'The return trip must depart after the outbound trip arrives',
};

/** A seat lock's life: ACTIVE until a booking CONSUMED it, it was RELEASED, or it EXPIRED. */
export type SeatLockStatus = 'ACTIVE' | 'CONSUMED' | 'RELEASED' | 'EXPIRED';

export type SeatLockRefusalCode = 'SEAT_LOCK_CONSUMED' | 'SEAT_LOCK_RELEASED' | 'SEAT_LOCK_EXPIRED';

export const SEAT_LOCK_EXPIRED = {
  code: 'SEAT_LOCK_EXPIRED',
  message: 'This seat lock has expired; lock the seats again',
} as const;

/**
 * Why a seat lock can no longer be booked, or null when it can: it must be ACTIVE, not past its
 * expires_at (`live`), and still hold its seats.
 */
export function seatLockRefusal(lock: {
  status: SeatLockStatus;
  live: boolean;
  heldSeats: number;
}): { code: SeatLockRefusalCode; message: string } | null {
  if (lock.status === 'CONSUMED')
    return { code: 'SEAT_LOCK_CONSUMED', message: 'This seat lock was already used for a booking' };
  if (lock.status === 'RELEASED')
    return { code: 'SEAT_LOCK_RELEASED', message: 'This seat lock was released; lock the seats again' };
  if (lock.status === 'EXPIRED' || !lock.live || lock.heldSeats === 0) return SEAT_LOCK_EXPIRED;
  return null;
}

/** The trip and seat labels a seat lock holds, or a booking request (or a booking) names. */
export interface SeatChoice {
  tripId: string;
  seatNumbers: readonly string[];
}

/**
 * Why a booking request does not match its seat lock (409 SEAT_LOCK_MISMATCH), or null when it
 * names the lock's trip and exactly its seats. A retry matches the booking the lock made the same way.
 */
export function seatLockMismatch(held: SeatChoice, asked: SeatChoice): string | null {
  if (held.tripId !== asked.tripId) return 'This seat lock is for another trip';
  if (!sameSeats(held.seatNumbers, asked.seatNumbers))
    return 'seat_numbers must be exactly the seats of the seat lock';
  return null;
}
