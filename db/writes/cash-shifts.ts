import type { PoolClient } from 'pg';
import {
  closingDifference,
  expectedAmount,
  refuseOverdraw,
  repeatsClose,
  shiftAlreadyOpen,
  shiftChanged,
  shiftNotOpen,
  shiftStepLate,
  type ShiftClosing,
  type ShiftMovement,
  type ShiftStepOrigin,
} from '../../domain/cash-shift.js';
import type { ActingMember } from '../../domain/company-actor.js';
import type { Database, TransactionClient } from '../orm.js';
import { readShiftSummary, type CashShiftSummary } from '../queries/cash-shifts.js';
import { companyTransaction } from './active-company.js';
import { refuseWhenLate } from './deadline.js';
import { recordStaffAudit } from './audit.js';
import { insertRow } from './insert-row.js';

/**
 * The cash-shift workflow's transitions, one transaction each, idempotent under an activity retry
 * (the ids come from the caller: the shift id from OPEN, the movement id from ADJUST). Every
 * transition runs in companyTransaction: the company row FOR SHARE first (a suspension committed
 * while the step waited refuses it, 403 COMPANY_SUSPENDED, writing nothing), then the acting member
 * (a demotion, deactivation or sign-out committed meanwhile refuses it, 403 ROLE_NOT_ALLOWED or 401
 * INVALID_CREDENTIAL, db/writes/acting-member.ts), then the shift row; a
 * verify or refund that links money to the shift takes the same rows in the same order (the shift
 * FOR SHARE), so a CLOSE computes its expected amount over a settled set. A retry that finds its
 * step already done answers it before the company is checked: that step committed while the
 * company was active. A step given a deadline (`stepBy`) that would commit after it writes nothing
 * (refuseWhenLate, db/writes/deadline.ts), checked only by an attempt that wrote: one that finds its
 * work done by an earlier attempt answers it whenever it comes. Each step's audit row names the
 * member, the company and the request that sent the step (`origin`; none in steps sent before it).
 */
type Queryable = Pick<PoolClient, 'query'>;

export interface OpenShiftInput {
  shiftId: string;
  companyId: string;
  /** Who opens it; checked again (`actor`) when the shift is written. */
  staffUserId: string;
  actor: ActingMember;
  openingBalance: number;
  note?: string | null;
  /** The API's deadline (refuseWhenLate). */
  stepBy?: number;
  /** The request that sent the OPEN, for its audit row (absent in runs started before it). */
  origin?: ShiftStepOrigin | undefined;
}

/**
 * OPEN: the shift row; a second open shift of the company is CASH_SHIFT_ALREADY_OPEN. Opening a
 * shift id again (a retry, or a takeover of a shift whose process ended) answers the row while it
 * is OPEN; once closed it is CASH_SHIFT_NOT_OPEN, so a late takeover never holds a closed shift.
 */
export async function openShift(db: Database, input: OpenShiftInput): Promise<CashShiftSummary> {
  const existing = await readShiftSummary(db, input.shiftId);
  if (existing) return answerOpenAgain(existing);
  const company = { companyId: input.companyId, actor: input.actor };
  return companyTransaction(db, company, 'share', async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `insert into cash_shifts (id, company_id, opening_balance, opened_by, note) values ($1, $2, $3, $4, $5)
       on conflict do nothing returning id`,
      [input.shiftId, input.companyId, input.openingBalance, input.staffUserId, input.note ?? null],
    );
    if (rows[0]) {
      const shift = { kind: 'cash_shift', id: input.shiftId };
      const opener = { companyId: input.companyId, staffUserId: input.staffUserId, ...input.origin };
      await recordStaffAudit(client, opener, 'cash_shifts.open', shift, {
        openingBalance: input.openingBalance,
      });
    }
    const shift = await readShiftSummary(client, input.shiftId);
    // No row of this id: the insert met the company's other open shift.
    if (!shift) throw shiftAlreadyOpen();
    const answer = answerOpenAgain(shift);
    if (rows[0]) await refuseWhenLate(client, input.stepBy, shiftStepLate);
    return answer;
  });
}

/** An OPEN of a shift id the database holds: its row while it is OPEN, else CASH_SHIFT_NOT_OPEN. */
function answerOpenAgain(shift: CashShiftSummary): CashShiftSummary {
  if (shift.status !== 'OPEN') throw shiftNotOpen();
  return shift;
}

/**
 * `work` as the company transaction of the shift's company (read first: a shift's company never
 * changes) with `actor` checked again; a shift id the database does not hold is CASH_SHIFT_NOT_OPEN.
 */
async function shiftTransaction<T>(
  db: Database,
  step: { shiftId: string; actor: ActingMember },
  work: (client: TransactionClient) => Promise<T>,
): Promise<T> {
  const [shift] = await db.query<{ company_id: string }>(`select company_id from cash_shifts where id = $1`, [
    step.shiftId,
  ]);
  if (!shift) throw shiftNotOpen();
  return companyTransaction(db, { companyId: shift.company_id, actor: step.actor }, 'share', work);
}

/** The open shift locked for taking cash out or closing it (FOR UPDATE), or for linking money in (FOR SHARE). */
export async function lockOpenShift(
  client: Queryable,
  where: { shiftId: string } | { companyId: string },
  mode: 'update' | 'share',
): Promise<{ id: string }> {
  const byId = 'shiftId' in where;
  const { rows } = await client.query<{ id: string }>(
    `select id from cash_shifts where ${byId ? 'id' : 'company_id'} = $1 and status = 'OPEN'
       for ${mode === 'update' ? 'update' : 'share'}`,
    [byId ? where.shiftId : where.companyId],
  );
  if (!rows[0]) throw shiftNotOpen();
  return rows[0];
}

/**
 * A step that names the shift it was counted for (`namedShiftId`) reaches the shift `shiftId`, the
 * company's open shift (its row locked OPEN by the caller, in the transaction that writes): another
 * is CASH_SHIFT_CHANGED, nothing written. One that names none goes to the open shift.
 */
function refuseOtherShift(step: { shiftId: string; namedShiftId?: string }): void {
  const named = step.namedShiftId;
  if (named && named !== step.shiftId) throw shiftChanged(named, step.shiftId);
}

/** ADJUST of the shift `shiftId`: the step's movement, its member and its deadline (refuseWhenLate). */
export interface AdjustShiftInput extends ShiftMovement {
  shiftId: string;
}

/** ADJUST: one documented movement; taking out more than the till should hold is refused. */
export async function adjustShift(db: Database, input: AdjustShiftInput): Promise<CashShiftSummary> {
  const recorded = await db.query(`select 1 from cash_shift_movements where id = $1`, [input.movementId]);
  if (recorded[0]) return (await readShiftSummary(db, input.shiftId))!;
  return shiftTransaction(db, input, async (client) => {
    const { rows: done } = await client.query(`select 1 from cash_shift_movements where id = $1`, [
      input.movementId,
    ]);
    if (done[0]) return (await readShiftSummary(client, input.shiftId))!;
    await lockOpenShift(client, { shiftId: input.shiftId }, 'update');
    refuseOtherShift(input);
    const before = (await readShiftSummary(client, input.shiftId))!;
    if (input.direction === 'OUT') refuseOverdraw(before.expectedAmount, input.amount);
    await insertRow(client, 'cash_shift_movements', {
      id: input.movementId,
      shift_id: input.shiftId,
      company_id: before.companyId,
      direction: input.direction,
      amount: input.amount,
      reason: input.reason,
      recorded_by: input.actor.staffUserId,
    });
    const shift = { kind: 'cash_shift', id: input.shiftId };
    const recorder = { companyId: before.companyId, staffUserId: input.actor.staffUserId, ...input.origin };
    await recordStaffAudit(client, recorder, 'cash_shifts.adjust', shift, {
      movementId: input.movementId,
      direction: input.direction,
      amount: input.amount,
    });
    const after = (await readShiftSummary(client, input.shiftId))!;
    await refuseWhenLate(client, input.stepBy, shiftStepLate);
    return after;
  });
}

/** CLOSE of the shift `shiftId`: the count, the step's member and its deadline (refuseWhenLate). */
export interface CloseShiftInput extends ShiftClosing {
  shiftId: string;
}

/** CLOSE: records declared, expected (computed under the lock) and their difference together. */
export async function closeShift(db: Database, input: CloseShiftInput): Promise<CashShiftSummary> {
  const { staffUserId } = input.actor;
  const done = await readShiftSummary(db, input.shiftId);
  if (repeatsClose(done, input, input.shiftId)) return done!;
  return shiftTransaction(db, input, async (client) => {
    await client.query(`select 1 from cash_shifts where id = $1 for update`, [input.shiftId]);
    const open = await readShiftSummary(client, input.shiftId);
    if (repeatsClose(open, input, input.shiftId)) return open!;
    if (open?.status !== 'OPEN') throw shiftNotOpen();
    refuseOtherShift(input);
    const expected = expectedAmount({
      openingBalance: open.openingBalance,
      collections: open.collections.amount,
      movementsIn: open.movementsIn,
      movementsOut: open.movementsOut,
    });
    const difference = closingDifference(input.declaredAmount, expected);
    // clock_timestamp(), not now(): a collection that took the till while this close waited for its
    // lock committed after this transaction began, and belongs to the shift it closes.
    await client.query(
      `update cash_shifts set status = 'CLOSED', declared_amount = $2, expected_amount = $3, difference = $4,
              closed_by = $5, closed_at = clock_timestamp(), note = coalesce($6, note)
        where id = $1`,
      [input.shiftId, input.declaredAmount, expected, difference, staffUserId, input.note ?? null],
    );
    const shift = { kind: 'cash_shift', id: input.shiftId };
    const closer = { companyId: open.companyId, staffUserId, ...input.origin };
    await recordStaffAudit(client, closer, 'cash_shifts.close', shift, {
      declared: input.declaredAmount,
      expected,
      difference,
    });
    const closed = (await readShiftSummary(client, input.shiftId))!;
    await refuseWhenLate(client, input.stepBy, shiftStepLate);
    return closed;
  });
}

/** The shift stayed open past the limit: flagged once, never closed. */
export async function markShiftOverdue(db: Database, input: { shiftId: string }): Promise<void> {
  await db.query(
    `update cash_shifts set overdue_since = coalesce(overdue_since, now()) where id = $1 and status = 'OPEN'`,
    [input.shiftId],
  );
}
