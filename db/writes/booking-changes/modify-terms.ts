import type { PoolClient } from 'pg';
import { repricedAmounts } from '../../../domain/booking-rules.js';
import type { BookingChannel, ConfirmationMode } from '../../../domain/journey-confirmation.js';
import { voucherConditionRefusal, voucherDiscount, type VoucherLine } from '../../../domain/loyalty.js';
import { FROZEN_TERMS_COLUMNS, rewardTermsOf, type RewardTermsRow } from '../../queries/loyalty.js';
import { voucherRefusal } from '../loyalty/refusal.js';
import { requireAutomaticConfirmation } from '../seat-locks.js';

/**
 * What PATCH /bookings/{id} modify checks again on the new trip, as POST /bookings checks it on a
 * booked one: the company's confirmation mode for the caller's channel, and the booking's voucher.
 */

/**
 * 409 JOURNEY_FLOW_REQUIRED when the company decides bookings of this channel itself: moving
 * seats would confirm them without its decision (a new booking goes through /journeys).
 */
export async function requireAutomaticConfirmationOf(
  client: PoolClient,
  companyId: string,
  channel: BookingChannel,
): Promise<void> {
  const { rows } = await client.query<{ mode: ConfirmationMode; channels: BookingChannel[] }>(
    `select mode, channels from company_booking_settings where company_id = $1`,
    [companyId],
  );
  requireAutomaticConfirmation(
    {
      company_id: companyId,
      confirmation_mode: rows[0]?.mode ?? null,
      confirmation_channels: rows[0]?.channels ?? null,
    },
    channel,
  );
}

/** The booking's amounts on the new trip, and the voucher behind its discount (null: none). */
export interface MovedAmounts {
  subtotal: number;
  discount: number;
  total: number;
  redemptionId: string | null;
}

interface FrozenVoucherRow extends RewardTermsRow {
  id: string;
  company_id: string;
  type: string;
  route_id: string;
}

/**
 * The booking's amounts on the new trip (`line`: its trip, company, departure, new subtotal and
 * each new seat's fare). A voucher's terms, as frozen when it was issued, must still hold for the new trip
 * and subtotal (company and routes, day of departure, minimum), else the refusal booking creation
 * gives (409 LOYALTY_*); its discount is then computed again from those terms on the new subtotal
 * (a percent as a percent, capped as at creation). A discount with no voucher behind it is kept,
 * capped at the new subtotal.
 */
export async function amountsAfterMove(
  client: PoolClient,
  booking: { id: string; discount: string },
  line: Omit<VoucherLine, 'routeId'>,
): Promise<MovedAmounts> {
  const { rows } = await client.query<FrozenVoucherRow>(
    `select r.id, r.company_id, t.route_id, ${FROZEN_TERMS_COLUMNS}
       from bookings b
       join loyalty_redemptions r on r.id = b.reward_redemption_id
       join trips t on t.id = $2
      where b.id = $1`,
    [booking.id, line.tripId],
  );
  const voucher = rows[0];
  if (!voucher) return { ...repricedAmounts(line.subtotal, Number(booking.discount)), redemptionId: null };
  const terms = rewardTermsOf(voucher);
  const lines = [{ ...line, routeId: voucher.route_id }];
  const refusal = voucherConditionRefusal(terms, voucher.company_id, lines);
  if (refusal === 'LOYALTY_MINIMUM_NOT_MET')
    throw voucherRefusal(refusal, { minSubtotal: terms.minSubtotal });
  if (refusal) throw voucherRefusal(refusal);
  const { discount } = voucherDiscount(terms, lines);
  return { subtotal: line.subtotal, discount, total: line.subtotal - discount, redemptionId: voucher.id };
}

/** The voucher's record of what it took off follows the booking's new discount. */
export async function recordVoucherDiscount(
  client: PoolClient,
  booking: { discount: string },
  amounts: MovedAmounts,
): Promise<void> {
  if (!amounts.redemptionId) return;
  await client.query(`update loyalty_redemptions set discount = coalesce(discount, 0) + $2 where id = $1`, [
    amounts.redemptionId,
    amounts.discount - Number(booking.discount),
  ]);
}
