/**
 * The highest fare a trip may have, base or VIP, in Syrian pounds (the dashboard's Money bound):
 * what a booking's subtotal is bounded by (MAX_ROUND_TRIP_SUBTOTAL).
 */
export const MAX_FARE = 100_000_000;

/**
 * Fares. A trip has a full fare (base, and VIP when the company sells VIP seats); a leg from one
 * stop call to a later one costs the share of the full fare accumulated between them
 * (fare_share_bp, basis points). The fare accumulated up to each call is rounded to the currency's
 * unit (half a pound up) and the leg costs the difference, so consecutive legs of one trip add up to
 * exactly the leg over them both, and the whole route to the full fare. Search orders by the same
 * rule in SQL (db/queries/search-sql.ts fareSql).
 */
export function legFare(fullFare: number, boardShareBp: number, alightShareBp: number): number {
  if (alightShareBp <= boardShareBp) throw new RangeError('alight must come after board');
  return fareUpTo(fullFare, alightShareBp) - fareUpTo(fullFare, boardShareBp);
}

/** The full fare's share accumulated up to a stop call, rounded to the currency's unit. */
function fareUpTo(fullFare: number, shareBp: number): number {
  return Math.round((fullFare * shareBp) / 10_000);
}

/** The fare for a seat of the given class: VIP seats use the VIP fare when the trip has one. */
export function seatFare(
  trip: { priceBase: number; priceVip: number | null },
  seatClass: 'STANDARD' | 'VIP',
): number {
  return seatClass === 'VIP' && trip.priceVip !== null ? trip.priceVip : trip.priceBase;
}
