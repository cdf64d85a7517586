import type { Context } from 'koa';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { partySizeRefusal, type AccountCaps } from '../../domain/inventory-caps.js';
import { Refusal } from '../../domain/refusal.js';
import { hourlyLimiter } from './rate-limit.js';

/**
 * Abuse limits per traveller account (README "Abuse limits"): the inventory caps the write
 * transactions enforce, and the hourly request limits of the routes that take inventory.
 */
export type CapSettings = Pick<
  Config,
  'HELD_SEATS_MAX_PER_TRIP' | 'HELD_SEATS_MAX_TOTAL' | 'UNPAID_BOOKINGS_MAX'
>;

/** The caps of config, as the writes take them (0 turns one off). */
export const accountCaps = (config: CapSettings): AccountCaps => ({
  heldSeatsPerTrip: config.HELD_SEATS_MAX_PER_TRIP,
  heldSeatsTotal: config.HELD_SEATS_MAX_TOTAL,
  unpaidBookings: config.UNPAID_BOOKINGS_MAX,
});

/**
 * 409 SEAT_HOLD_LIMIT_REACHED for a party larger than one account may ever hold on a trip (domain
 * partySizeRefusal): journey search, GET /trips and the quote refuse it before reading anything, so
 * the traveller learns it before choosing instead of at a hold that must refuse it. `trips`: the
 * trips the party rides (a quote's legs). Nothing is refused while the held-seat caps are off (0).
 */
export function requireHoldableParty(caps: AccountCaps, partySize: number, trips = 1): void {
  const refusal = partySizeRefusal(caps, partySize, trips);
  if (refusal) throw new Refusal(refusal.status, refusal.code, refusal.message, refusal.details);
}

/**
 * Counts one request of the signed-in traveller against `perHour` requests per hour (the counter
 * `name` is shared by every route that passes it); over the limit: 429 RATE_LIMITED with Retry-After.
 */
export function perAccountHourlyLimit(
  db: Pick<Database, 'pool'>,
  name: string,
  perHour: number,
): (ctx: Context) => Promise<void> {
  const limiter = hourlyLimiter(db, name, perHour);
  return (ctx) => limiter.consume(ctx, ctx.state.traveller!.userId);
}
