import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/orm.js';
import { adjustPoints, ensureAccount, settleTripEarning } from '../../db/writes/loyalty/index.js';
import type { SignedInTraveller, TestApp } from './harness.js';

/**
 * Loyalty fixtures for any test: a company's program (with tiers), rewards, points on a
 * traveller's account, a completed booking to earn on, and a voucher redeemed through the real API.
 */

export interface ProgramOptions {
  pointsPer100?: number;
  referralPoints?: number;
  active?: boolean;
  /** Tiers as [min lifetime points, multiplier percent]; default one base tier at 0 points, 100%. */
  tiers?: [number, number][];
}

/** Creates (or resets) the program of a company, with its tiers. */
export async function loyaltyProgram(
  db: Database,
  companyId: string,
  options: ProgramOptions = {},
): Promise<void> {
  await db.query(
    `insert into loyalty_programs (company_id, name_ar, name_en, active, points_per_100, referral_points)
     values ($1, 'برنامج الولاء', 'Loyalty program', $2, $3, $4)
     on conflict (company_id) do update
       set active = excluded.active, points_per_100 = excluded.points_per_100, referral_points = excluded.referral_points`,
    [companyId, options.active ?? true, options.pointsPer100 ?? 10, options.referralPoints ?? 0],
  );
  for (const [minLifetimePoints, multiplierPercent] of options.tiers ?? [[0, 100]]) {
    await db.query(
      `insert into loyalty_tiers (company_id, name_ar, name_en, min_lifetime_points, multiplier_percent)
       values ($1, 'فئة', $2, $3, $4)
       on conflict (company_id, min_lifetime_points) do update set multiplier_percent = excluded.multiplier_percent`,
      [companyId, `Tier ${minLifetimePoints}`, minLifetimePoints, multiplierPercent],
    );
  }
}

export interface RewardOptions {
  code?: string;
  type?: string;
  pointsCost?: number;
  discountPercent?: number | null;
  discountAmount?: number | null;
  maxDiscount?: number | null;
  freeSeats?: number | null;
  minSubtotal?: number | null;
  routeIds?: string[];
  allowedDays?: number[];
  voucherValidDays?: number;
  active?: boolean;
  maxRedemptions?: number | null;
}

/** A reward of the company's catalogue; by default a 10% discount costing 100 points. Returns its catalogue code. */
export async function giveReward(
  db: Database,
  companyId: string,
  options: RewardOptions = {},
): Promise<{ id: string; code: string }> {
  const code = options.code ?? `R${randomUUID().slice(0, 8).toUpperCase()}`;
  const type = options.type ?? 'discount';
  const percentDefault = type === 'discount' && options.discountAmount == null ? 10 : null;
  const [row] = await db.query<{ id: string }>(
    `insert into loyalty_rewards (company_id, code, name_ar, name_en, type, discount_percent, discount_amount,
                                  max_discount, free_seats, points_cost, min_subtotal, route_ids, allowed_days,
                                  voucher_valid_days, active, max_redemptions)
     values ($1, $2, 'مكافأة', $3, $4, $5, $6, $7, $8, $9, $10, $11::uuid[], $12::int[], $13, $14, $15)
     returning id`,
    [
      companyId,
      code,
      `Reward ${code}`,
      type,
      options.discountPercent === undefined ? percentDefault : options.discountPercent,
      options.discountAmount ?? null,
      options.maxDiscount ?? null,
      options.freeSeats === undefined ? (type === 'free_trip' ? 1 : null) : options.freeSeats,
      options.pointsCost ?? 100,
      options.minSubtotal ?? null,
      options.routeIds ?? [],
      options.allowedDays ?? [],
      options.voucherValidDays ?? 30,
      options.active ?? true,
      options.maxRedemptions ?? null,
    ],
  );
  return { id: row!.id, code };
}

/** Puts points on the traveller's account in the company (an ADJUST transaction); returns the new balance. */
export async function creditPoints(
  db: Database,
  input: { companyId: string; userId: string; points: number },
): Promise<number> {
  const accountId = await ensureAccount(db.pool, input.companyId, input.userId);
  return (await adjustPoints(db, { accountId, points: input.points, note: 'test credit' })).balance;
}

/**
 * The trip COMPLETED as the dispatch COMPLETE leaves it for earning: the status, and the terms of the
 * company's programme as it stands now settled on the trip (settleTripEarning), which is what its
 * bookings earn. Then awardTripPoints credits them, as after COMPLETE's commit.
 */
export async function completeTripForEarning(db: Database, tripId: string): Promise<void> {
  await db.query(`update trips set status = 'COMPLETED' where id = $1`, [tripId]);
  await settleTripEarning(db.pool, tripId);
}

/** A completed booking of the traveller on the trip, written as the dispatch issue will leave it. */
export async function completedBooking(
  db: Database,
  trip: { tripId: string; companyId: string },
  userId: string,
  options: { totalPrice?: number; status?: string; seats?: number } = {},
): Promise<string> {
  const seats = options.seats ?? 1;
  const [row] = await db.query<{ id: string }>(
    `insert into bookings (booking_code, company_id, trip_id, owner_user_id, passenger_name, passenger_phone,
                           seats_count, seat_numbers, status, total_price)
     values ($1, $2, $3, $4, 'Rami', '+963944000000', $7, $8, $5, $6) returning id`,
    [
      `T-${randomUUID().slice(0, 10)}`,
      trip.companyId,
      trip.tripId,
      userId,
      options.status ?? 'COMPLETED',
      options.totalPrice ?? 25_000,
      seats,
      Array.from({ length: seats }, (_, index) => String(index + 1)),
    ],
  );
  return row!.id;
}

/**
 * Who calls: a bearer token, a signed-in web traveller (cookies + CSRF), or a `Caller` of
 * test/support/journeys.ts (its headers).
 */
export type LoyaltyCaller =
  string | Pick<SignedInTraveller, 'writeHeaders'> | { headers: Record<string, string> };

export function callerInit(caller: LoyaltyCaller): { token?: string; headers?: Record<string, string> } {
  if (typeof caller === 'string') return { token: caller };
  return { headers: 'writeHeaders' in caller ? caller.writeHeaders : caller.headers };
}

/** Redeems a reward through POST /loyalty/redeem and returns the voucher code (RWD-…); fails loudly otherwise. */
export async function redeemVoucher(
  app: TestApp,
  caller: LoyaltyCaller,
  companyId: string,
  rewardCode: string,
): Promise<string> {
  const response = await app.request('/api/loyalty/redeem', {
    method: 'POST',
    json: { companyId, rewardCode },
    ...callerInit(caller),
  });
  if (response.status !== 201) {
    throw new Error(`redeem failed: ${response.status} ${response.text}`);
  }
  return response.body.redemption.code as string;
}
