import type { PoolClient } from 'pg';
import { OPERATING_TIME_ZONE } from '../../domain/time.js';
import { bookingMeasures, CUSTOMER_KEY } from './analytics.js';

/**
 * The platform's figures over a period of Damascus days (domain/platform-analytics.ts says what
 * counts): bookings, revenue and active travellers per company, per day and per company and day;
 * the confirmation funnel of journeys; and the company decisions on journey requests. Each is one
 * statement over the period's rows; `$1`/`$2` are the period's first and last day, `$3` an
 * optional company.
 */
type Sql = Pick<PoolClient, 'query'>;

export interface AnalyticsFilter {
  from: string;
  to: string;
  companyId?: string | undefined;
}

const TZ = `'${OPERATING_TIME_ZONE}'`;
/** created_at (of `alias`) within the period's days in Damascus. */
const inPeriod = (alias: string) =>
  `${alias}.created_at >= ($1::date)::timestamp at time zone ${TZ}
   and ${alias}.created_at < ($2::date + 1)::timestamp at time zone ${TZ}`;

export interface FigureRow {
  company_id: string | null;
  company_name: string | null;
  day: string | null;
  bookings: number;
  revenue: string;
  active_travellers: number;
  /** 3: the whole period; 1: per company; 2: per day; 0: per company and day. */
  level: number;
}

/** Bookings, revenue and active travellers of the period: totals, per company, per day, per both. */
export async function bookingFigures(sql: Sql, filter: AnalyticsFilter): Promise<FigureRow[]> {
  const { rows } = await sql.query<FigureRow>(
    `with b as (
       select b.company_id, to_char((b.created_at at time zone ${TZ})::date, 'YYYY-MM-DD') as day, m.revenue,
              ${CUSTOMER_KEY} as traveller
       from bookings b cross join ${bookingMeasures('b')} m
       where ${inPeriod('b')} and ($3::uuid is null or b.company_id = $3))
     select f.*, c.name_en as company_name from (
       select company_id, day, count(*)::int as bookings,
              coalesce(sum(revenue), 0)::text as revenue,
              count(distinct traveller)::int as active_travellers, grouping(company_id, day)::int as level
       from b group by grouping sets ((), (company_id), (day), (company_id, day))) f
     left join companies c on c.id = f.company_id
     order by f.level desc, f.day nulls first, c.name_en nulls first`,
    [filter.from, filter.to, filter.companyId ?? null],
  );
  return rows;
}

export interface FunnelRow {
  quoted: number;
  held: number;
  submitted: number;
  requested: number;
  confirmed: number;
  cancelled: number;
  released_or_expired: number;
}

/**
 * Journeys of the period (made at their first hold through /journeys) step by step: quoted, held,
 * submitted (confirm called), requested (a company had to decide), confirmed (at any time after),
 * cancelled, released or expired.
 */
export async function confirmationFunnel(sql: Sql, filter: AnalyticsFilter): Promise<FunnelRow> {
  const { rows } = await sql.query<FunnelRow>(
    `with j as (
       select j.id, j.order_id, j.status, j.confirmed_at from journeys j
       where j.origin = 'JOURNEY_API' and ${inPeriod('j')}
         and ($3::uuid is null or exists (select 1 from journey_legs l where l.journey_id = j.id and l.company_id = $3)))
     select
       (select count(*)::int from journey_quotes q where ${inPeriod('q')}
          and ($3::uuid is null or q.response->'legs' @> jsonb_build_array(jsonb_build_object('company_id', $3::text)))) as quoted,
       count(*)::int as held,
       count(*) filter (where exists (select 1 from journey_tickets t where t.journey_id = j.id))::int as submitted,
       count(*) filter (where exists (select 1 from confirmation_requests r
         where (r.scope_kind = 'JOURNEY' and r.scope_id = j.id) or (r.scope_kind = 'ORDER' and r.scope_id = j.order_id)))::int
         as requested,
       count(*) filter (where j.confirmed_at is not null)::int as confirmed,
       count(*) filter (where j.status = 'CANCELLED')::int as cancelled,
       count(*) filter (where j.status in ('RELEASED', 'EXPIRED'))::int as released_or_expired
     from j`,
    [filter.from, filter.to, filter.companyId ?? null],
  );
  return rows[0]!;
}

export interface DecisionRow {
  company_id: string | null;
  company_name: string | null;
  requests: number;
  pending: number;
  approved: number;
  rejected: number;
  expired: number;
  cancelled: number;
  /** 1: the whole period; 0: one company. */
  level: number;
}

/** Company decisions on the journey requests raised in the period: in total and per company. */
export async function decisionFigures(sql: Sql, filter: AnalyticsFilter): Promise<DecisionRow[]> {
  const { rows } = await sql.query<DecisionRow>(
    `select f.*, c.name_en as company_name from (
       select r.company_id, count(*)::int as requests,
              count(*) filter (where r.status = 'PENDING')::int as pending,
              count(*) filter (where r.status = 'APPROVED')::int as approved,
              count(*) filter (where r.status = 'REJECTED')::int as rejected,
              count(*) filter (where r.status = 'EXPIRED')::int as expired,
              count(*) filter (where r.status = 'CANCELLED')::int as cancelled,
              grouping(r.company_id)::int as level
       from confirmation_requests r where ${inPeriod('r')} and ($3::uuid is null or r.company_id = $3)
       group by grouping sets ((), (r.company_id))) f
     left join companies c on c.id = f.company_id
     order by f.level desc, c.name_en`,
    [filter.from, filter.to, filter.companyId ?? null],
  );
  return rows;
}
