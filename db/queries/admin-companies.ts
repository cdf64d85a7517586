import type { PoolClient } from 'pg';
import type { CompanyAction, CompanyStanding } from '../../domain/company-moderation.js';
import type { Database } from '../orm.js';
import { isoUtc } from './admins.js';
import { allSalesStats } from './analytics.js';
import {
  containingPattern,
  countedPage,
  countMatching,
  nameContains,
  tableListing,
} from './filtered-lists.js';

/**
 * Companies as the administration sees them (their standing, scope, counts of trips, bookings and
 * revenue, and their history of administrator actions), and the warnings a company's OWNER reads.
 * The administration's reads take a transaction's client: each is recorded in the audit log in
 * the same transaction.
 */
type Sql = Pick<PoolClient, 'query'>;

export type CompanyScopeKind = 'PRODUCTION' | 'INTERNAL' | 'DEMO';

export interface AdminCompanyRow {
  id: string;
  name_en: string;
  name_ar: string;
  slug: string;
  status: 'ACTIVE' | 'SUSPENDED';
  verified: boolean;
  published: boolean;
  scope: CompanyScopeKind;
  email: string | null;
  phone: string | null;
  created_at: string;
  trips: number;
  bookings: number;
  /** Integer SYP, as text from bigint arithmetic. */
  revenue: string;
  warnings: number;
  last_action_at: string | null;
}

export interface CompanyFilter {
  search?: string | undefined;
  status?: 'ACTIVE' | 'SUSPENDED' | undefined;
  verified?: boolean | undefined;
  scope?: CompanyScopeKind | undefined;
  limit: number;
  offset: number;
}

const SCOPE_SQL = `case when c.is_internal then 'INTERNAL' when c.is_demo then 'DEMO' else 'PRODUCTION' end`;

/** The counts of one company (`c`), computed for the rows of a page only. */
const COMPANY_COLUMNS = `c.id, c.name_en, c.name_ar, c.slug, c.status, c.verified, c.published, ${SCOPE_SQL} as scope,
  c.email, c.phone, ${isoUtc('c.created_at')} as created_at,
  (select count(*)::int from trips t where t.company_id = c.id) as trips,
  b.bookings, b.revenue::text as revenue,
  (select count(*)::int from company_admin_actions a where a.company_id = c.id and a.action = 'WARN') as warnings,
  (select ${isoUtc('max(a.created_at)')} from company_admin_actions a where a.company_id = c.id) as last_action_at`;

/**
 * Bookings of the company, whatever their status, and their revenue as the company's own figures
 * count it, from the booking statistics (always equal to a recount).
 */
const BOOKING_FIGURES = `cross join lateral (
    select coalesce(sum(s.bookings), 0)::int as bookings, coalesce(sum(s.revenue), 0) as revenue
      from ${allSalesStats('c.id')}) b`;

/** A page of companies, by English name, with the total matching the filter. */
export async function listCompanies(
  sql: Sql,
  filter: CompanyFilter,
): Promise<{ items: AdminCompanyRow[]; total: number }> {
  // The names match as names do (nameContains: الاهلية finds الأهلية); the slug as typed, any case.
  const where = `($1::text is null or ${nameContains('c.name_en', '$5')} or ${nameContains('c.name_ar', '$5')}
      or c.slug ilike $1)
    and ($2::text is null or c.status = $2)
    and ($3::boolean is null or c.verified = $3)
    and ($4::text is null or ${SCOPE_SQL} = $4)`;
  const search = filter.search ? filter.search : null;
  const pattern = search === null ? null : containingPattern(search);
  const params = [pattern, filter.status ?? null, filter.verified ?? null, filter.scope ?? null, search];
  const { rows } = await sql.query<AdminCompanyRow>(
    `with page as (select c.id from companies c where ${where} order by lower(c.name_en), c.id limit $6 offset $7)
     select ${COMPANY_COLUMNS} from page p join companies c on c.id = p.id ${BOOKING_FIGURES}
     order by lower(c.name_en), c.id`,
    [...params, filter.limit, filter.offset],
  );
  return { items: rows, total: await countMatching(sql, 'companies c', where, params) };
}

export interface CompanyActionRow {
  id: string;
  action: CompanyAction;
  reason: string;
  admin_id: string | null;
  admin_name: string | null;
  standing_before: CompanyStanding;
  standing_after: CompanyStanding;
  created_at: string;
}

/** One company with its figures and its history of administrator actions (newest first), or null. */
export async function companyWithHistory(
  sql: Sql,
  companyId: string,
): Promise<{ company: AdminCompanyRow; history: CompanyActionRow[] } | null> {
  const { rows } = await sql.query<AdminCompanyRow>(
    `select ${COMPANY_COLUMNS} from companies c ${BOOKING_FIGURES} where c.id = $1`,
    [companyId],
  );
  if (!rows[0]) return null;
  return { company: rows[0], history: await companyHistory(sql, companyId) };
}

export async function companyHistory(sql: Sql, companyId: string): Promise<CompanyActionRow[]> {
  const { rows } = await sql.query<CompanyActionRow>(
    `select a.id, a.action, a.reason, a.admin_id, ad.name as admin_name, a.standing_before, a.standing_after,
            ${isoUtc('a.created_at')} as created_at
     from company_admin_actions a left join admins ad on ad.id = a.admin_id
     where a.company_id = $1 order by a.created_at desc, a.id`,
    [companyId],
  );
  return rows;
}

export interface CompanyNoticeRow {
  id: string;
  action: 'WARN' | 'SUSPEND' | 'UNSUSPEND';
  reason: string;
  created_at: string;
}

/**
 * What a company's OWNER is told: the warnings, suspensions and unsuspensions of the company,
 * newest first (never who decided them), with the total, and while it is suspended the
 * suspension in force.
 */
export async function companyNotices(
  db: Database,
  companyId: string,
  page: { limit: number; offset: number },
): Promise<{ items: CompanyNoticeRow[]; total: number; suspension: CompanyNoticeRow | null }> {
  const where = `company_id = $1 and action in ('WARN', 'SUSPEND', 'UNSUSPEND')`;
  const columns = `id, action, reason, ${isoUtc('created_at')} as created_at`;
  const listing = tableListing(columns, 'company_admin_actions', {
    where,
    orderBy: 'company_admin_actions.created_at desc, company_admin_actions.id',
  });
  const { items, total } = await countedPage<CompanyNoticeRow>(db.pool, listing, [companyId], page);
  const [suspension] = await db.query<CompanyNoticeRow>(
    `select ${columns} from company_admin_actions a
     where a.company_id = $1 and a.action = 'SUSPEND'
       and exists (select 1 from companies c where c.id = a.company_id and c.status = 'SUSPENDED')
     order by a.created_at desc, a.id limit 1`,
    [companyId],
  );
  return { items, total, suspension: suspension ?? null };
}
