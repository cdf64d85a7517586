import { tierFor } from '../../domain/loyalty.js';
import { normalisePhone } from '../../domain/phone.js';
import type { Database } from '../orm.js';
import { camelFields, iso } from '../row-fields.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';
import { containingPattern, nameContains } from './filtered-lists.js';
import type { Statement } from './statements.js';
import {
  listTiers,
  rewardTermsOf,
  type LoyaltyAccountRow,
  type RewardCatalogueRow,
  type RewardFields,
  type TierView,
} from './loyalty.js';

/**
 * What the company dashboard reads of its own loyalty programme (GET /dashboard/api/loyalty):
 * the programme's terms, its tiers and reward catalogue, and its travellers' accounts. Always of
 * one company, the session's.
 */

export interface ProgramTerms {
  nameAr: string;
  nameEn: string;
  active: boolean;
  pointsPer100: number;
  referralPoints: number;
  updatedAt: string;
}

interface ProgramRow {
  name_ar: string;
  name_en: string;
  active: boolean;
  points_per_100: number;
  referral_points: number;
  updated_at: string;
}

export async function readProgramTerms(runner: SqlRunner, companyId: string): Promise<ProgramTerms | null> {
  const [row] = await rowsOf<ProgramRow>(
    runner,
    `select name_ar, name_en, active, points_per_100, referral_points, updated_at
       from loyalty_programs where company_id = $1`,
    [companyId],
  );
  return row
    ? {
        nameAr: row.name_ar,
        nameEn: row.name_en,
        active: row.active,
        pointsPer100: row.points_per_100,
        referralPoints: row.referral_points,
        updatedAt: new Date(row.updated_at).toISOString(),
      }
    : null;
}

export interface AdminReward extends RewardFields {
  active: boolean;
  maxRedemptions: number | null;
  redemptionCount: number;
  /** Vouchers of this reward issued and not used, cancelled or expired yet. */
  openVouchers: number;
  updatedAt: string;
}

interface AdminRewardRow extends RewardCatalogueRow {
  active: boolean;
  max_redemptions: number | null;
  redemption_count: number;
  open_vouchers: number;
  updated_at: string;
}

const toAdminReward = (row: AdminRewardRow): AdminReward => {
  const { type: _type, ...terms } = rewardTermsOf(row);
  return {
    id: row.id,
    code: row.code,
    nameAr: row.name_ar,
    nameEn: row.name_en,
    type: row.type,
    ...terms,
    pointsCost: row.points_cost,
    voucherValidDays: row.voucher_valid_days,
    active: row.active,
    maxRedemptions: row.max_redemptions,
    redemptionCount: row.redemption_count,
    openVouchers: row.open_vouchers,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
};

const REWARD_COLUMNS = `w.id, w.code, w.name_ar, w.name_en, w.type, w.discount_percent, w.discount_amount, w.max_discount,
  w.free_seats, w.min_subtotal, w.route_ids::text[] as route_ids, w.allowed_days, w.points_cost, w.voucher_valid_days,
  w.active, w.max_redemptions, w.redemption_count, w.updated_at,
  (select count(*)::int from loyalty_redemptions r
    where r.reward_id = w.id and r.status = 'ISSUED' and r.expires_at > now()) as open_vouchers`;

/** The company's rewards (withdrawn ones left out), cheapest first. */
export async function listAdminRewards(runner: SqlRunner, companyId: string): Promise<AdminReward[]> {
  const rows = await rowsOf<AdminRewardRow>(
    runner,
    `select ${REWARD_COLUMNS} from loyalty_rewards w
      where w.company_id = $1 and w.archived_at is null order by w.points_cost, w.code`,
    [companyId],
  );
  return rows.map(toAdminReward);
}

export async function readAdminReward(runner: SqlRunner, rewardId: string): Promise<AdminReward> {
  const [row] = await rowsOf<AdminRewardRow>(
    runner,
    `select ${REWARD_COLUMNS} from loyalty_rewards w where w.id = $1`,
    [rewardId],
  );
  return toAdminReward(row!);
}

export interface AdminAccount {
  id: string;
  userId: string;
  name: string | null;
  phone: string | null;
  balance: number;
  lifetimePoints: number;
  tier: { id: string; nameAr: string; nameEn: string } | null;
  referralCode: string;
  createdAt: string;
  updatedAt: string;
}

type AccountRow = LoyaltyAccountRow & {
  user_id: string;
  name: string | null;
  phone: string | null;
  updated_at: string;
};

function toAdminAccount(row: AccountRow, tiers: TierView[]): AdminAccount {
  const tier = tierFor(row.lifetime_points, tiers);
  return {
    ...camelFields(row, ['id', 'user_id', 'name', 'phone', 'balance', 'lifetime_points']),
    tier: tier && { id: tier.id, nameAr: tier.nameAr, nameEn: tier.nameEn },
    referralCode: row.referral_code,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/**
 * One page of the programme's accounts, highest balance first (ties by id), with the total;
 * `search` matches the traveller's name (as names match: nameContains), phone or the account's
 * referral code (case-insensitive, as typed), or, typed as a phone number in any form the platform reads (domain/phone.ts), the
 * traveller's phone. The page picks its ids first from the accounts alone (the traveller's name and phone
 * joined only for a search) and reads the travellers of those rows only.
 */
export async function listAdminAccounts(
  db: Database,
  companyId: string,
  query: { search?: string; limit: number; offset: number },
): Promise<{ accounts: AdminAccount[]; total: number }> {
  const search = query.search
    ? { text: query.search, pattern: containingPattern(query.search), phone: normalisePhone(query.search) }
    : null;
  const statements = accountListStatements(companyId, search, query);
  const [rows, [count], tiers] = await Promise.all([
    db.query<AccountRow>(statements.page.text, statements.page.values),
    db.query<{ total: number }>(statements.count.text, statements.count.values),
    listTiers(db, companyId),
  ]);
  return { accounts: rows.map((row) => toAdminAccount(row, tiers)), total: count!.total };
}

/**
 * What a search on the accounts looks for: `text` in the name as names match (nameContains),
 * `pattern` anywhere in the phone or referral code, and, when the text is a phone number as the
 * platform reads one (0944 123 456, 00963…), `phone`, its E.164 form, as users.phone stores it.
 */
interface AccountSearch {
  text: string;
  pattern: string;
  phone: string | null;
}

/**
 * The accounts of the company ($1) a search (pattern $2, phone $3, text $4, or none) matches, as
 * `from ... where ...`.
 */
const accountSelection = (search: AccountSearch | null) =>
  search === null
    ? 'from loyalty_accounts a where a.company_id = $1'
    : `from loyalty_accounts a join users u on u.id = a.user_id
        where a.company_id = $1
          and (${nameContains('u.name', '$4')} or u.phone ilike $2 or a.referral_code ilike $2 or u.phone = $3::text)`;

/** The two statements behind the accounts of GET /dashboard/api/loyalty: the page and the count of its selection. */
function accountListStatements(
  companyId: string,
  search: AccountSearch | null,
  page: { limit: number; offset: number },
): { page: Statement; count: Statement } {
  const selection = accountSelection(search);
  const values = search === null ? [companyId] : [companyId, search.pattern, search.phone, search.text];
  const n = values.length;
  return {
    page: {
      text: `select a.id, a.user_id, u.name, u.phone, a.balance, a.lifetime_points, a.referral_code, a.created_at,
                    a.updated_at
               from (select a.id ${selection} order by a.balance desc, a.id limit $${n + 1} offset $${n + 2}) page
               join loyalty_accounts a on a.id = page.id join users u on u.id = a.user_id
              order by a.balance desc, a.id`,
      values: [...values, page.limit, page.offset],
    },
    count: { text: `select count(*)::int as total ${selection}`, values },
  };
}

/** The route ids among `routeIds` the company does not run (not its own, unknown, or inactive). */
export async function routesNotRun(
  runner: SqlRunner,
  companyId: string,
  routeIds: readonly string[],
): Promise<string[]> {
  if (routeIds.length === 0) return [];
  const rows = await rowsOf<{ id: string }>(
    runner,
    `select id::text from unnest($1::uuid[]) as asked(id)
      where not exists (select 1 from routes r where r.id = asked.id and r.company_id = $2 and r.active)`,
    [routeIds, companyId],
  );
  return rows.map((row) => row.id);
}
