import type { PoolClient } from 'pg';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import {
  nextTierAfter,
  previewShares,
  REDEEMABLE_REWARD_TYPES,
  tierFor,
  type RewardTerms,
  type VoucherLine,
} from '../../domain/loyalty.js';
import type { Database } from '../orm.js';
import { camelFields, iso } from '../row-fields.js';
import { companyScopeSql } from './scope.js';

/** Reads of the customer loyalty routes. Every read is of one company's program: nothing merges across companies. */

export interface LoyaltyProgram {
  companyId: string;
  company: { id: string; nameAr: string; nameEn: string };
  program: { nameAr: string; nameEn: string; pointsPer100: number; referralPoints: number };
}

interface ProgramRow {
  company_id: string;
  company_name_ar: string;
  company_name_en: string;
  name_ar: string;
  name_en: string;
  points_per_100: number;
  referral_points: number;
  balance: number | null;
}

const programOf = (row: ProgramRow): LoyaltyProgram => ({
  companyId: row.company_id,
  company: { id: row.company_id, nameAr: row.company_name_ar, nameEn: row.company_name_en },
  program: {
    nameAr: row.name_ar,
    nameEn: row.name_en,
    pointsPer100: row.points_per_100,
    referralPoints: row.referral_points,
  },
});

function programsSql(scope: InventoryScope, params: unknown[], userParam: string): string {
  return `
    select c.id as company_id, c.name_ar as company_name_ar, c.name_en as company_name_en,
           p.name_ar, p.name_en, p.points_per_100, p.referral_points, a.balance
      from loyalty_programs p
      join companies c on c.id = p.company_id
      left join loyalty_accounts a on a.company_id = p.company_id and a.user_id = ${userParam}
     where p.active and ${companyScopeSql(scope, params)}`;
}

/**
 * The active program of a company the caller may see (in the caller's inventory scope: for a
 * regular account an active, published company), or null: the routes answer 404
 * LOYALTY_PROGRAM_NOT_FOUND for a company outside the scope exactly as for one without a program.
 */
export async function findProgram(
  db: Database,
  scope: InventoryScope,
  companyId: string,
  userId: string,
): Promise<LoyaltyProgram | null> {
  const params: unknown[] = [userId, companyId];
  const rows = await db.query<ProgramRow>(
    `${programsSql(scope, params, '$1')} and p.company_id = $2`,
    params,
  );
  return rows[0] ? programOf(rows[0]) : null;
}

/** Programs of the companies the caller may see, with the caller's balance where an account exists. */
export async function listPrograms(
  db: Database,
  scope: InventoryScope,
  userId: string,
): Promise<(LoyaltyProgram & { balance: number | null; hasAccount: boolean })[]> {
  const params: unknown[] = [userId];
  const rows = await db.query<ProgramRow>(
    `${programsSql(scope, params, '$1')} order by c.name_en, c.id`,
    params,
  );
  return rows.map((row) => ({ ...programOf(row), balance: row.balance, hasAccount: row.balance !== null }));
}

export interface TierView {
  id: string;
  nameAr: string;
  nameEn: string;
  minLifetimePoints: number;
  multiplierPercent: number;
}

export interface AccountView {
  id: string;
  companyId: string;
  balance: number;
  lifetimePoints: number;
  referralCode: string;
  tier: TierView | null;
  nextTier: (TierView & { pointsNeeded: number }) | null;
  createdAt: string;
}

/** The loyalty_accounts columns both the customer's and the dashboard's reads select; timestamptz arrives as PostgreSQL text. */
export interface LoyaltyAccountRow {
  id: string;
  balance: number;
  lifetime_points: number;
  referral_code: string;
  created_at: string;
}

type AccountRow = LoyaltyAccountRow & { company_id: string };

function toAccountView(account: AccountRow, tiers: TierView[]): AccountView {
  const next = nextTierAfter(account.lifetime_points, tiers);
  return {
    ...camelFields(account, ['id', 'company_id', 'balance', 'lifetime_points', 'referral_code']),
    tier: tierFor(account.lifetime_points, tiers),
    nextTier: next ? { ...next, pointsNeeded: next.minLifetimePoints - account.lifetime_points } : null,
    createdAt: iso(account.created_at),
  };
}

/** One account with its tier and the next tier; the tier is recomputed from lifetime points, so it is never stale. */
export async function readAccount(db: Database, accountId: string): Promise<AccountView> {
  const [account] = await db.query<AccountRow>(
    `select id, company_id, balance, lifetime_points, referral_code, created_at from loyalty_accounts where id = $1`,
    [accountId],
  );
  return toAccountView(account!, await listTiers(db, account!.company_id));
}

interface TierRow {
  id: string;
  name_ar: string;
  name_en: string;
  min_lifetime_points: number;
  multiplier_percent: number;
}

const toTierView = (row: TierRow): TierView => ({
  id: row.id,
  nameAr: row.name_ar,
  nameEn: row.name_en,
  minLifetimePoints: row.min_lifetime_points,
  multiplierPercent: row.multiplier_percent,
});

const TIERS_SQL = `select id, name_ar, name_en, min_lifetime_points, multiplier_percent
                     from loyalty_tiers where company_id = $1 order by min_lifetime_points`;

export async function listTiers(db: Database, companyId: string): Promise<TierView[]> {
  return (await db.query<TierRow>(TIERS_SQL, [companyId])).map(toTierView);
}

/** The tiers as a transaction sees them: a points write reads them once it shares the programme row. */
export async function listTiersIn(client: Pick<PoolClient, 'query'>, companyId: string): Promise<TierView[]> {
  return (await client.query<TierRow>(TIERS_SQL, [companyId])).rows.map(toTierView);
}

/** A reward of the catalogue as both the customer's and the dashboard's reads show it. */
export interface RewardFields extends RewardTerms {
  id: string;
  code: string;
  nameAr: string;
  nameEn: string;
  pointsCost: number;
  voucherValidDays: number;
}

export interface RewardView extends RewardFields {
  remaining: number | null;
}

/** A reward's terms as stored (bigint amounts arrive as text): what a voucher of it is worth and where. */
export interface RewardTermsRow {
  discount_percent: number | null;
  discount_amount: string | null;
  max_discount: string | null;
  free_seats: number | null;
  min_subtotal: string | null;
  route_ids: string[];
  allowed_days: number[];
}

/**
 * A voucher's terms as it was issued (loyalty_redemptions.terms, frozen by the insight migration's
 * trigger; alias `r`), as the columns of RewardTermsRow and its `type`: editing the reward later
 * never changes a voucher already issued.
 */
export const FROZEN_TERMS_COLUMNS = `r.terms->>'type' as type,
  (r.terms->>'discount_percent')::int as discount_percent, r.terms->>'discount_amount' as discount_amount,
  r.terms->>'max_discount' as max_discount, (r.terms->>'free_seats')::int as free_seats,
  r.terms->>'min_subtotal' as min_subtotal,
  array(select jsonb_array_elements_text(r.terms->'route_ids')) as route_ids,
  array(select jsonb_array_elements_text(r.terms->'allowed_days')::int) as allowed_days`;

const nullableNumber = (value: string | null) => (value === null ? null : Number(value));

/** The domain's view of a stored reward's terms (catalogue listing, redeeming, checking a voucher). */
export function rewardTermsOf(row: RewardTermsRow & { type: string }): RewardTerms {
  return {
    type: row.type,
    discountPercent: row.discount_percent,
    discountAmount: nullableNumber(row.discount_amount),
    maxDiscount: nullableNumber(row.max_discount),
    freeSeats: row.free_seats,
    minSubtotal: nullableNumber(row.min_subtotal),
    routeIds: row.route_ids,
    allowedDays: row.allowed_days,
  };
}

/** The columns of loyalty_rewards that the traveller's and the company's views of a reward both read. */
export interface RewardCatalogueRow extends RewardTermsRow {
  id: string;
  code: string;
  name_ar: string;
  name_en: string;
  type: string;
  points_cost: number;
  voucher_valid_days: number;
}

interface RewardRow extends RewardCatalogueRow {
  remaining: number | null;
}

const toRewardView = (row: RewardRow): RewardView => ({
  id: row.id,
  code: row.code,
  nameAr: row.name_ar,
  nameEn: row.name_en,
  pointsCost: row.points_cost,
  ...rewardTermsOf(row),
  voucherValidDays: row.voucher_valid_days,
  remaining: row.remaining,
});

/** Rewards a traveller can redeem now: active, of a redeemable type (discount, free_trip), not sold out. */
export async function listRedeemableRewards(db: Database, companyId: string): Promise<RewardView[]> {
  const rows = await db.query<RewardRow>(
    `select id, code, name_ar, name_en, type, points_cost, discount_percent, discount_amount, max_discount,
            free_seats, min_subtotal, route_ids::text[] as route_ids, allowed_days, voucher_valid_days,
            max_redemptions - redemption_count as remaining
       from loyalty_rewards
      where company_id = $1 and active and archived_at is null and type = any($2::text[])
        and (max_redemptions is null or redemption_count < max_redemptions)
      order by points_cost, code`,
    [companyId, [...REDEEMABLE_REWARD_TYPES]],
  );
  return rows.map(toRewardView);
}

export interface TransactionView {
  id: string;
  kind: string;
  points: number;
  balanceAfter: number;
  bookingId: string | null;
  redemptionId: string | null;
  redemptionCode: string | null;
  note: string | null;
  createdAt: string;
}

/** timestamptz arrives as PostgreSQL text. */
interface TransactionRow {
  id: string;
  kind: string;
  points: number;
  balance_after: number;
  booking_id: string | null;
  redemption_id: string | null;
  redemption_code: string | null;
  note: string | null;
  created_at: string;
}

const toTransactionView = (row: TransactionRow): TransactionView => ({
  id: row.id,
  kind: row.kind,
  points: row.points,
  balanceAfter: row.balance_after,
  bookingId: row.booking_id,
  redemptionId: row.redemption_id,
  redemptionCode: row.redemption_code,
  note: row.note,
  createdAt: new Date(row.created_at).toISOString(),
});

/** One page of an account's ledger, newest first, with the total count and the account's balance. */
export async function listTransactions(
  db: Database,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<{ items: TransactionView[]; total: number; balance: number }> {
  const [rows, [account]] = await Promise.all([
    db.query<TransactionRow>(
      `select t.id, t.kind, t.points, t.balance_after, t.booking_id, t.redemption_id, r.code as redemption_code,
              t.note, t.created_at
         from loyalty_transactions t
         left join loyalty_redemptions r on r.id = t.redemption_id
        where t.account_id = $1
        order by t.created_at desc, t.id desc
        limit $2 offset $3`,
      [accountId, page.limit, page.offset],
    ),
    db.query<{ balance: number; total: number }>(
      `select a.balance, (select count(*)::int from loyalty_transactions t where t.account_id = a.id) as total
         from loyalty_accounts a where a.id = $1`,
      [accountId],
    ),
  ]);
  return { balance: account!.balance, total: account!.total, items: rows.map(toTransactionView) };
}

export interface ReferralView {
  referralCode: string;
  /** Whether the caller was referred in this program, and whether that referral was rewarded. */
  referredBy: { status: 'PENDING' | 'REWARDED'; createdAt: string } | null;
  stats: { referred: number; rewarded: number; pending: number; pointsEarned: number };
}

/** count(*) and sum(bigint) arrive as text; timestamptz as PostgreSQL text. */
interface ReferralRow {
  referral_code: string;
  referred_status: 'PENDING' | 'REWARDED' | null;
  referred_at: string | null;
  referred: string;
  rewarded: string;
  points_earned: string;
}

function toReferralView(row: ReferralRow): ReferralView {
  const referred = Number(row.referred);
  const rewarded = Number(row.rewarded);
  return {
    referralCode: row.referral_code,
    referredBy:
      row.referred_status && row.referred_at
        ? { status: row.referred_status, createdAt: new Date(row.referred_at).toISOString() }
        : null,
    stats: { referred, rewarded, pending: referred - rewarded, pointsEarned: Number(row.points_earned) },
  };
}

export async function readReferral(db: Database, accountId: string): Promise<ReferralView> {
  const [row] = await db.query<ReferralRow>(
    `select a.referral_code,
            mine.status as referred_status, mine.created_at as referred_at,
            (select count(*) from loyalty_referrals where referrer_account_id = a.id) as referred,
            (select count(*) from loyalty_referrals where referrer_account_id = a.id and status = 'REWARDED') as rewarded,
            -- Bonuses for trips of the people referred (booked by someone else), not the caller's own welcome bonus.
            (select coalesce(sum(t.points), 0) from loyalty_transactions t join bookings b on b.id = t.booking_id
              where t.account_id = a.id and t.kind = 'REFERRAL_BONUS' and b.owner_user_id <> a.user_id) as points_earned
       from loyalty_accounts a
       left join loyalty_referrals mine on mine.referee_account_id = a.id
      where a.id = $1`,
    [accountId],
  );
  return toReferralView(row!);
}

/** price_base is bigint (text); departure_at timestamptz text. */
interface PreviewTripRow {
  id: string;
  company_id: string;
  route_id: string;
  departure_at: string;
  price_base: string;
}

/**
 * The trips a voucher preview is for, in the caller's inventory scope and in the order given, as
 * voucher lines: the client's subtotal is split over them in proportion to their base seat
 * price, and a free trip covers seats at the base price (a booking's free seats are its cheapest,
 * its standard seats at that fare). Null when a trip is missing.
 */
export async function previewLines(
  db: Database,
  scope: InventoryScope,
  tripIds: string[],
  subtotal: number,
): Promise<VoucherLine[] | null> {
  const params: unknown[] = [tripIds];
  const rows = await db.query<PreviewTripRow>(
    `select t.id, t.company_id, t.route_id, t.departure_at, t.price_base
       from trips t join companies c on c.id = t.company_id
      where t.id = any($1::uuid[]) and ${companyScopeSql(scope, params)}`,
    params,
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const trips = tripIds.flatMap((id) => byId.get(id) ?? []);
  if (trips.length !== tripIds.length) return null;
  const prices = trips.map((trip) => Number(trip.price_base));
  const shares = previewShares(subtotal, prices);
  return trips.map((trip, index) => ({
    tripId: trip.id,
    companyId: trip.company_id,
    routeId: trip.route_id,
    departureAt: new Date(trip.departure_at),
    subtotal: shares[index]!,
    baseSeatPrice: prices[index]!,
  }));
}
