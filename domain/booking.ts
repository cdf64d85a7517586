import { randomBytes } from 'node:crypto';
import { legFare, seatFare } from './pricing.js';

/**
 * Rules of bookings made with a seat lock (POST /bookings, POST /bookings/round-trip): the
 * passenger fields, the price of locked seats, and what makes two trips a round trip.
 */

/** Seats one lock (and so one booking) may take. */
export const MAX_SEATS_PER_BOOKING = 10;

/** International phone number: + then 8 to 15 digits, first digit not 0 (E.164). */
export const PASSENGER_PHONE = /^\+[1-9]\d{7,14}$/;

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
 * trip has one) over the whole trip. unitPrice is the average, for the journey leg's record.
 */
export function seatsPrice(
  trip: PricedTrip,
  seatClasses: readonly ('STANDARD' | 'VIP')[],
): { subtotal: number; unitPrice: number } {
  const subtotal = seatClasses.reduce(
    (sum, seatClass) => sum + legFare(seatFare(trip, seatClass), trip.boardShareBp, trip.alightShareBp),
    0,
  );
  return { subtotal, unitPrice: seatClasses.length ? Math.round(subtotal / seatClasses.length) : 0 };
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
