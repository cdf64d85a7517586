import type { RuleRefusal } from './journey-confirmation.js';

/**
 * Abuse limits on inventory one account may take (issue 18 "Inventory hoarding"): seats held by
 * live seat locks and journey holds, per trip and in total, and unpaid live bookings. Pure rules:
 * the write transactions count what the account already has (under a lock on the account's row,
 * so concurrent requests of one account take turns) and ask these rules before they commit.
 * A limit of 0 turns its cap off.
 */
export interface AccountCaps {
  /** Seats the account may hold on one trip (config HELD_SEATS_MAX_PER_TRIP). */
  heldSeatsPerTrip: number;
  /** Seats the account may hold across every trip (config HELD_SEATS_MAX_TOTAL). */
  heldSeatsTotal: number;
  /** Unpaid live bookings the account may have (config UNPAID_BOOKINGS_MAX). */
  unpaidBookings: number;
}

/** Seats of one trip: those the account already holds and those the request would add. */
export interface TripHeldSeats {
  tripId: string;
  held: number;
  adding: number;
}

export type HoldLimitRefusal = RuleRefusal<'SEAT_HOLD_LIMIT_REACHED'>;
export type UnpaidLimitRefusal = RuleRefusal<'UNPAID_BOOKING_LIMIT_REACHED'>;

/**
 * 409 SEAT_HOLD_LIMIT_REACHED when the request would take the account past its per-trip cap on a
 * trip it adds seats to (details.scope TRIP, trip_id) or past its total cap (details.scope
 * ACCOUNT); details.limit, details.held (seats held before the request) and details.requested.
 * Seats already held count once: a hold's own seats are never in `held` and `adding` together.
 */
export function heldSeatsRefusal(
  caps: Pick<AccountCaps, 'heldSeatsPerTrip' | 'heldSeatsTotal'>,
  trips: readonly TripHeldSeats[],
): HoldLimitRefusal | null {
  if (caps.heldSeatsPerTrip > 0) {
    const over = trips.find((trip) => trip.adding > 0 && trip.held + trip.adding > caps.heldSeatsPerTrip);
    if (over) {
      return holdLimit('TRIP', caps.heldSeatsPerTrip, over.held, over.adding, { trip_id: over.tripId });
    }
  }
  const held = trips.reduce((sum, trip) => sum + trip.held, 0);
  const adding = trips.reduce((sum, trip) => sum + trip.adding, 0);
  if (caps.heldSeatsTotal > 0 && adding > 0 && held + adding > caps.heldSeatsTotal) {
    return holdLimit('ACCOUNT', caps.heldSeatsTotal, held, adding, {});
  }
  return null;
}

/**
 * 409 SEAT_HOLD_LIMIT_REACHED for a party no account can ever hold, whatever it holds already: more
 * travellers than the per-trip cap (the party takes that many seats of every trip it rides), or more
 * seats over its `trips` trips than the total cap. Journey search, GET /trips and the quote refuse it
 * up front, so the traveller learns it before choosing, instead of from a hold that must refuse it;
 * details {scope: TRIP or ACCOUNT, limit, requested}. A cap of 0 is off and refuses nothing.
 */
export function partySizeRefusal(
  caps: Pick<AccountCaps, 'heldSeatsPerTrip' | 'heldSeatsTotal'>,
  partySize: number,
  trips = 1,
): HoldLimitRefusal | null {
  if (caps.heldSeatsPerTrip > 0 && partySize > caps.heldSeatsPerTrip) {
    return partyLimit('TRIP', caps.heldSeatsPerTrip, partySize);
  }
  if (caps.heldSeatsTotal > 0 && partySize * trips > caps.heldSeatsTotal) {
    return partyLimit('ACCOUNT', caps.heldSeatsTotal, partySize * trips);
  }
  return null;
}

function partyLimit(scope: 'TRIP' | 'ACCOUNT', limit: number, requested: number): HoldLimitRefusal {
  const where = scope === 'TRIP' ? 'on one trip' : 'across all trips';
  return {
    status: 409,
    code: 'SEAT_HOLD_LIMIT_REACHED',
    message: `One account may hold at most ${limit} seats ${where}, fewer than this party needs`,
    details: { scope, limit, requested },
  };
}

function holdLimit(
  scope: 'TRIP' | 'ACCOUNT',
  limit: number,
  held: number,
  requested: number,
  extra: Record<string, unknown>,
): HoldLimitRefusal {
  const where = scope === 'TRIP' ? 'on this trip' : 'across all trips';
  return {
    status: 409,
    code: 'SEAT_HOLD_LIMIT_REACHED',
    message: `One account may hold at most ${limit} seats ${where}; release a seat lock or hold, or book, first`,
    details: { scope, limit, held, requested, ...extra },
  };
}

/**
 * 409 UNPAID_BOOKING_LIMIT_REACHED when `adding` more unpaid bookings would take the account past
 * its cap; details.limit and details.unpaid (the account's unpaid live bookings now).
 */
export function unpaidBookingsRefusal(
  limit: number,
  unpaid: number,
  adding: number,
): UnpaidLimitRefusal | null {
  if (limit <= 0 || unpaid + adding <= limit) return null;
  return {
    status: 409,
    code: 'UNPAID_BOOKING_LIMIT_REACHED',
    message: `One account may have at most ${limit} unpaid bookings; pay or cancel one first`,
    details: { limit, unpaid },
  };
}
