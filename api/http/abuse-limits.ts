import type { Context } from 'koa';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import type { AccountCaps } from '../../domain/inventory-caps.js';
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
