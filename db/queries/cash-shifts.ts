import { expectedAmount, type CashShiftSummary } from '../../domain/cash-shift.js';
import type { Database } from '../orm.js';
import { companyRecordById } from './company-records.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';
import { camelFields, iso, isoOrNull } from '../row-fields.js';

/**
 * Cash shifts as the dashboard reads them: the shift with its running totals (opening balance,
 * linked collections, movements in and out, expected amount), its movements and its collections.
 */
export type { CashShiftSummary };

interface ShiftRow {
  id: string;
  company_id: string;
  status: 'OPEN' | 'CLOSED';
  currency: string;
  opening_balance: number;
  opened_by: string;
  opened_at: string;
  overdue_since: string | null;
  note: string | null;
  declared_amount: number | null;
  expected_amount: number | null;
  difference: number | null;
  closed_by: string | null;
  closed_at: string | null;
  collections_count: number;
  collections_amount: number;
  movements_in: number;
  movements_out: number;
}

const SHIFT_COLUMNS = `s.id, s.company_id, s.status, s.currency, s.opening_balance::float8 as opening_balance,
    s.opened_by, s.opened_at, s.overdue_since, s.note, s.declared_amount::float8 as declared_amount,
    s.expected_amount::float8 as expected_amount, s.difference::float8 as difference, s.closed_by, s.closed_at,
    c.count as collections_count, c.amount as collections_amount, m.movements_in, m.movements_out`;

/** The shift's collections and movements, summed: a lookup each, so a list sums them for its page only. */
const SHIFT_FIGURES = `
  cross join lateral (
    select count(*)::int as count, coalesce(sum(p.amount), 0)::float8 as amount from payment_operations p
     where p.cash_shift_id = s.id and p.status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED')) c
  cross join lateral (
    select coalesce(sum(amount) filter (where direction = 'IN'), 0)::float8 as movements_in,
           coalesce(sum(amount) filter (where direction = 'OUT'), 0)::float8 as movements_out
      from cash_shift_movements where shift_id = s.id) m`;

const SHIFT_SELECT = `select ${SHIFT_COLUMNS} from cash_shifts s ${SHIFT_FIGURES}`;

/** A closed shift shows what was recorded at closing; an open one its running figure. */
function shownExpectedAmount(row: ShiftRow): number {
  if (row.status === 'CLOSED') return row.expected_amount!;
  return expectedAmount({
    openingBalance: row.opening_balance,
    collections: row.collections_amount,
    movementsIn: row.movements_in,
    movementsOut: row.movements_out,
  });
}

function toSummary(row: ShiftRow): CashShiftSummary {
  return {
    ...camelFields(row, ['id', 'company_id', 'status', 'currency', 'opening_balance', 'opened_by']),
    openedAt: iso(row.opened_at),
    overdueSince: isoOrNull(row.overdue_since),
    note: row.note,
    collections: { count: row.collections_count, amount: row.collections_amount },
    movementsIn: row.movements_in,
    movementsOut: row.movements_out,
    expectedAmount: shownExpectedAmount(row),
    declaredAmount: row.declared_amount,
    difference: row.difference,
    closedBy: row.closed_by,
    closedAt: isoOrNull(row.closed_at),
  };
}

/** One shift with its totals (inside a transaction: after its row was locked). */
export async function readShiftSummary(
  runner: SqlRunner,
  shiftId: string,
): Promise<CashShiftSummary | undefined> {
  const [row] = await rowsOf<ShiftRow>(runner, `${SHIFT_SELECT} where s.id = $1`, [shiftId]);
  return row ? toSummary(row) : undefined;
}

/** The company's open shift, if any. */
export async function readOpenShift(db: Database, companyId: string): Promise<CashShiftSummary | undefined> {
  const [row] = await db.query<ShiftRow>(`${SHIFT_SELECT} where s.company_id = $1 and s.status = 'OPEN'`, [
    companyId,
  ]);
  return row ? toSummary(row) : undefined;
}

/**
 * The company's shifts, newest first, with the total count. The page picks its ids first
 * (cash_shifts_company_idx in list order) and sums collections and movements for those shifts only.
 */
export async function listShifts(
  db: Database,
  companyId: string,
  page: { limit: number; offset: number; status?: 'OPEN' | 'CLOSED' },
): Promise<{ shifts: CashShiftSummary[]; total: number }> {
  const status = page.status ?? null;
  const [rows, counted] = await Promise.all([
    db.query<ShiftRow>(
      `select ${SHIFT_COLUMNS}
         from (select s.id from cash_shifts s where s.company_id = $1 and ($4::text is null or s.status = $4)
                order by s.opened_at desc, s.id desc limit $2 offset $3) page
         join cash_shifts s on s.id = page.id ${SHIFT_FIGURES}
        order by s.opened_at desc, s.id desc`,
      [companyId, page.limit, page.offset, status],
    ),
    db.query<{ total: number }>(
      `select count(*)::int as total from cash_shifts where company_id = $1 and ($2::text is null or status = $2)`,
      [companyId, status],
    ),
  ]);
  return { shifts: rows.map(toSummary), total: counted[0]?.total ?? 0 };
}

/** A shift of the company (another company's is undefined). */
export const findCompanyShift = companyRecordById(SHIFT_SELECT, 's', toSummary);

export interface ShiftMovementRow {
  id: string;
  kind: 'ADJUSTMENT' | 'REFUND';
  direction: 'IN' | 'OUT';
  amount: number;
  reason: string;
  payment_id: string | null;
  recorded_by: string;
  recorded_at: string;
}

export interface ShiftCollectionRow {
  id: string;
  booking_id: string;
  booking_code: string;
  source: string;
  status: string;
  amount: number;
  collected_at: string;
  decided_by: string | null;
}

/** The shift's movements and its linked collections, oldest first. */
export async function readShiftLines(
  db: Database,
  shiftId: string,
): Promise<{ movements: ShiftMovementRow[]; collections: ShiftCollectionRow[] }> {
  const [movements, collections] = await Promise.all([
    db.query<ShiftMovementRow>(
      `select id, kind, direction, amount::float8 as amount, reason, payment_id, recorded_by, recorded_at
         from cash_shift_movements where shift_id = $1 order by recorded_at, id`,
      [shiftId],
    ),
    db.query<ShiftCollectionRow>(
      `select p.id, p.booking_id, b.booking_code, p.source, p.status, p.amount::float8 as amount, p.collected_at,
              p.decided_by
         from payment_operations p join bookings b on b.id = p.booking_id
        where p.cash_shift_id = $1 and p.status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED')
        order by p.collected_at, p.id`,
      [shiftId],
    ),
  ]);
  return { movements, collections };
}

/** A movement as recorded, by id: what an ADJUST sent again under its Idempotency-Key is compared with. */
export interface RecordedMovement {
  shift_id: string;
  company_id: string;
  kind: 'ADJUSTMENT' | 'REFUND';
  direction: 'IN' | 'OUT';
  amount: number;
  reason: string;
  recorded_by: string;
}

/** The movement `movementId`, if recorded (an ADJUST's id comes from the API, see adjustShift). */
export async function recordedMovement(
  db: Database,
  movementId: string,
): Promise<RecordedMovement | undefined> {
  const [row] = await db.query<RecordedMovement>(
    `select shift_id, company_id, kind, direction, amount::float8 as amount, reason, recorded_by
       from cash_shift_movements where id = $1`,
    [movementId],
  );
  return row;
}
