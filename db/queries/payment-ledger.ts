import {
  ledgerStatistics,
  type BookingPaymentFact,
  type LedgerStatistics,
  type PaymentSource,
  type PaymentStatus,
} from '../../domain/payment-ledger.js';
import { normalisePhone } from '../../domain/phone.js';
import { damascusDayEnd, damascusDayStart } from '../../domain/time.js';
import type { Database } from '../orm.js';
import { likeEscaped, nameContains } from './filtered-lists.js';
import { companyRecordById } from './company-records.js';
import { clauses, type Statement } from './statements.js';

/**
 * The company's payment ledger: one line per payment_operations row of the company (operation
 * records, driver and office collections, and booking payment facts no other record proves), so a
 * collection that also set its booking's payment fact is one line. Reads only.
 */

export interface LedgerFilters {
  status?: PaymentStatus;
  provider?: 'cash';
  source?: PaymentSource;
  /** First and last Damascus day of created_at (inclusive), YYYY-MM-DD. */
  fromDay?: string;
  toDay?: string;
  /** Booking code (prefix), passenger name (part) or passenger phone (part). */
  search?: string;
}

/** A ledger line; instants are timestamptz text as the pool hands them over. */
export interface LedgerRow {
  id: string;
  company_id: string;
  source: PaymentSource;
  status: PaymentStatus;
  method: string;
  provider: string;
  amount: number;
  currency: string;
  note: string | null;
  refund_due_reason: string | null;
  created_at: string;
  collected_at: string | null;
  refunded_at: string | null;
  cancelled_at: string | null;
  decided_by: string | null;
  decided_at: string | null;
  refunded_by: string | null;
  cancelled_by: string | null;
  /** The driver holding the cash of a driver line they recorded; null otherwise. */
  collected_by: string | null;
  cash_shift_id: string | null;
  booking_id: string;
  booking_code: string;
  booking_status: string;
  /** The booking's payment fact (bookings.payment_status). */
  booking_payment_status: BookingPaymentFact;
  passenger_name: string;
  passenger_phone: string;
}

const LINE_COLUMNS = `p.id, p.company_id, p.source, p.status, p.method, p.provider, p.amount::float8 as amount, p.currency,
  p.note, p.refund_due_reason, p.created_at, p.collected_at, p.refunded_at, p.cancelled_at, p.decided_by, p.decided_at,
  p.refunded_by, p.cancelled_by, p.collected_by, p.cash_shift_id, p.booking_id, b.booking_code, b.status as booking_status,
  b.payment_status as booking_payment_status, b.passenger_name, b.passenger_phone`;

/** A ledger line: the payment operation and the booking it belongs to. */
const LINE_SELECT = `select ${LINE_COLUMNS} from payment_operations p join bookings b on b.id = p.booking_id`;

/**
 * The two statements behind GET /dashboard/api/payments: the page (newest first) and the grouped
 * totals of the whole filtered set. Without a search the totals come from payment_ledger_daily
 * (the same filters on whole Damascus days, which is what from/to are); with one, from the
 * matching lines. The benchmark runs exactly these as its bare-SQL baseline.
 */
export function ledgerStatements(
  companyId: string,
  filters: LedgerFilters,
  page: { limit: number; offset: number },
): { page: Statement; totals: Statement } {
  const search = filters.search?.trim();
  const values: unknown[] = [companyId];
  const lines = clauses(values);
  lines.where.push('p.company_id = $1');
  if (filters.fromDay) lines.add((slot) => `p.created_at >= ${slot}`, damascusDayStart(filters.fromDay));
  if (filters.toDay) lines.add((slot) => `p.created_at < ${slot}`, damascusDayEnd(filters.toDay));
  if (filters.status) lines.add((slot) => `p.status = ${slot}`, filters.status);
  if (filters.source) lines.add((slot) => `p.source = ${slot}`, filters.source);
  if (filters.provider) lines.add((slot) => `p.provider = ${slot}`, filters.provider);
  if (search) {
    // A phone number typed as the platform reads one (0944 123 456, 00963…) finds the stored E.164
    // form too; a search that is no number binds null there and matches as before. The name matches
    // as names do (nameContains: احمد finds أحمد).
    lines.add(
      (slot, phone, text) =>
        `(b.booking_code ilike ${slot} || '%' or ${nameContains('b.passenger_name', text)}` +
        ` or b.passenger_phone like '%' || ${slot} || '%' or b.passenger_phone = ${phone}::text)`,
      likeEscaped(search),
      normalisePhone(search),
      search,
    );
  }
  const lineWhere = lines.where.join(' and ');
  return {
    page: {
      text: `${LINE_SELECT}
              where ${lineWhere}
              order by p.created_at desc, p.id desc limit $${values.length + 1} offset $${values.length + 2}`,
      values: [...values, page.limit, page.offset],
    },
    totals: search
      ? {
          text: `select p.status, p.source, count(*)::int as count, coalesce(sum(p.amount), 0)::float8 as amount
                   from payment_operations p join bookings b on b.id = p.booking_id
                  where ${lineWhere} group by p.status, p.source`,
          values,
        }
      : dailyTotals(companyId, filters),
  };
}

/** The totals of whole days from the daily rollup. */
function dailyTotals(companyId: string, filters: LedgerFilters): Statement {
  const values: unknown[] = [companyId];
  const days = clauses(values);
  days.where.push('d.company_id = $1');
  if (filters.fromDay) days.add((slot) => `d.day >= ${slot}::date`, filters.fromDay);
  if (filters.toDay) days.add((slot) => `d.day <= ${slot}::date`, filters.toDay);
  if (filters.status) days.add((slot) => `d.status = ${slot}`, filters.status);
  if (filters.source) days.add((slot) => `d.source = ${slot}`, filters.source);
  if (filters.provider) days.add((slot) => `d.provider = ${slot}`, filters.provider);
  return {
    text: `select d.status, d.source, sum(d.count)::int as count, sum(d.amount)::float8 as amount
             from payment_ledger_daily d where ${days.where.join(' and ')}
            group by d.status, d.source having sum(d.count) > 0`,
    values,
  };
}

interface TotalsRow {
  status: PaymentStatus;
  source: PaymentSource;
  count: number;
  amount: number;
}

export async function readLedger(
  db: Database,
  companyId: string,
  filters: LedgerFilters,
  page: { limit: number; offset: number },
): Promise<{ lines: LedgerRow[]; statistics: LedgerStatistics }> {
  const statements = ledgerStatements(companyId, filters, page);
  const [lines, totals] = await Promise.all([
    db.query<LedgerRow>(statements.page.text, statements.page.values),
    db.query<TotalsRow>(statements.totals.text, statements.totals.values),
  ]);
  return { lines, statistics: ledgerStatistics(totals) };
}

/** One ledger line of the company, or undefined (another company's line is not found either). */
export const findLedgerLine = companyRecordById(LINE_SELECT, 'p', (row: LedgerRow) => row);
