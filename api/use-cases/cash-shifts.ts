import { createHash, randomUUID } from 'node:crypto';
import type { Config } from '../../config/index.js';
import {
  findCompanyShift,
  listShifts,
  recordedMovement,
  readOpenShift,
  readShiftLines,
  type ShiftCollectionRow,
  type ShiftMovementRow,
} from '../../db/queries/cash-shifts.js';
import type { Database } from '../../db/orm.js';
import {
  isOverdue,
  repeatsClose,
  type CashShiftSummary,
  type MovementDirection,
  type ShiftClosing,
  type ShiftMovement,
  type ShiftStepOrigin,
} from '../../domain/cash-shift.js';
import type { ActingMember } from '../../domain/company-actor.js';
import { Refusal } from '../http/errors.js';
import type { CashShiftClient } from '../temporal/cash-shift-client.js';
import { iso } from '../../db/row-fields.js';
import { keyReused } from '../../domain/idempotency.js';

/** Cash shifts for the dashboard: reads from the database, steps through the shift's workflow. */
export interface CashShiftDeps {
  db: Database;
  config: Pick<Config, 'CASH_SHIFT_MAX_HOURS' | 'CASH_SHIFT_STEPS_PER_RUN'>;
  workflow: CashShiftClient;
}

export function shiftView(shift: CashShiftSummary, maxHours: number, now = new Date()) {
  const overdue =
    shift.status === 'OPEN' &&
    (shift.overdueSince !== null || isOverdue(new Date(shift.openedAt), now, maxHours));
  return {
    id: shift.id,
    status: shift.status,
    currency: shift.currency,
    opening_balance: shift.openingBalance,
    opened_by: shift.openedBy,
    opened_at: shift.openedAt,
    overdue,
    overdue_since: shift.overdueSince,
    note: shift.note,
    collections: shift.collections,
    movements_in: shift.movementsIn,
    movements_out: shift.movementsOut,
    expected_amount: shift.expectedAmount,
    declared_amount: shift.declaredAmount,
    difference: shift.difference,
    closed_by: shift.closedBy,
    closed_at: shift.closedAt,
  };
}

export async function shiftOverview(
  deps: Pick<CashShiftDeps, 'db' | 'config'>,
  companyId: string,
  page: { limit: number; offset: number; status?: 'OPEN' | 'CLOSED' },
) {
  const [current, history] = await Promise.all([
    readOpenShift(deps.db, companyId),
    listShifts(deps.db, companyId, page),
  ]);
  const view = (shift: CashShiftSummary) => shiftView(shift, deps.config.CASH_SHIFT_MAX_HOURS);
  return { current: current ? view(current) : null, shifts: history.shifts.map(view), total: history.total };
}

const shiftNotFound = () => new Refusal(404, 'CASH_SHIFT_NOT_FOUND', 'No such cash shift');

const movementView = (row: ShiftMovementRow) => ({ ...row, recorded_at: iso(row.recorded_at) });
const collectionView = ({ decided_by, ...row }: ShiftCollectionRow) => ({
  ...row,
  collected_at: iso(row.collected_at),
  verified_by: decided_by,
});

export async function shiftDetail(
  deps: Pick<CashShiftDeps, 'db' | 'config'>,
  companyId: string,
  shiftId: string,
) {
  const shift = await findCompanyShift(deps.db, companyId, shiftId);
  if (!shift) throw shiftNotFound();
  const { movements, collections } = await readShiftLines(deps.db, shiftId);
  return {
    shift: shiftView(shift, deps.config.CASH_SHIFT_MAX_HOURS),
    movements: movements.map(movementView),
    collections: collections.map(collectionView),
  };
}

export type ShiftCommand =
  | { action: 'OPEN'; opening_balance: number; note?: string }
  | { action: 'ADJUST'; direction: MovementDirection; amount: number; reason: string; shift_id?: string }
  | { action: 'CLOSE'; declared_amount: number; note?: string; shift_id?: string };

type ShiftStaff = { companyId: string; actor: ActingMember; origin: ShiftStepOrigin };

/**
 * One step of the company's shift workflow by `staff.actor` (checked again in the step's
 * transaction), sent from `staff.origin` (its audit row's IP and request id); the answer is the
 * shift after it. `idempotencyKey` (the Idempotency-Key header) is read by ADJUST only.
 */
export async function commandShift(
  deps: CashShiftDeps,
  staff: ShiftStaff,
  command: ShiftCommand,
  idempotencyKey?: string,
) {
  const { actor, origin } = staff;
  let shift: CashShiftSummary;
  if (command.action === 'OPEN') {
    shift = await openingOnce(deps, {
      shiftId: randomUUID(),
      companyId: staff.companyId,
      openedBy: actor.staffUserId,
      actor,
      openingBalance: command.opening_balance,
      note: command.note ?? null,
      maxOpenMilliseconds: Math.round(deps.config.CASH_SHIFT_MAX_HOURS * 3_600_000),
      stepsPerRun: deps.config.CASH_SHIFT_STEPS_PER_RUN,
      origin,
    });
  } else if (command.action === 'ADJUST') {
    shift = await adjusting(deps, staff, command, idempotencyKey);
  } else {
    const request = {
      actor,
      declaredAmount: command.declared_amount,
      note: command.note ?? null,
      ...named(command.shift_id),
      origin,
    };
    shift = await resumingOnce(deps, staff, () => deps.workflow.close(staff.companyId, request)).catch(
      (error: unknown) => closedBefore(deps, staff.companyId, request, error),
    );
  }
  return shiftView(shift, deps.config.CASH_SHIFT_MAX_HOURS);
}

/** The shift a step names (checked in its transaction, db/writes/cash-shifts.ts); absent, none. */
const named = (shiftId: string | undefined) => (shiftId ? { namedShiftId: shiftId } : {});

type AdjustCommand = Extract<ShiftCommand, { action: 'ADJUST' }>;

/**
 * ADJUST. Its movement id is the Update's id and the movement row's (adjustShift answers a
 * movement already recorded): random, or with an Idempotency-Key the key's id in the company, so
 * the same ADJUST sent again after its answer was lost finds its movement and records none.
 */
async function adjusting(
  deps: CashShiftDeps,
  staff: ShiftStaff,
  command: AdjustCommand,
  key: string | undefined,
): Promise<CashShiftSummary> {
  const request: ShiftMovement = {
    movementId: key ? keyedMovementId(staff.companyId, key) : randomUUID(),
    actor: staff.actor,
    direction: command.direction,
    amount: command.amount,
    reason: command.reason,
    ...named(command.shift_id),
    origin: staff.origin,
  };
  const send = () => resumingOnce(deps, staff, () => deps.workflow.adjust(staff.companyId, request));
  if (!key) return send();
  const recorded = await keyedMovementShift(deps, staff.companyId, request);
  if (recorded) return recorded;
  const shift = await send();
  // Sent at the same moment as another body under the key: Temporal answers both with the first.
  await keyedMovementShift(deps, staff.companyId, request);
  return shift;
}

/** The movement id of an ADJUST under Idempotency-Key `key` in the company: a UUID of their SHA-256. */
function keyedMovementId(companyId: string, key: string): string {
  const hex = createHash('sha256').update(`cash-shift-adjust:${companyId}:${key}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const adjustKeyReused = () => {
  const { status, code, message } = keyReused('cash adjustment');
  return new Refusal(status, code, message);
};

/**
 * The shift the keyed ADJUST's movement was recorded in, as it stands, when that movement is this
 * request's (same member, direction, amount and reason, and the shift it names if it names one);
 * undefined when none is recorded. Any other movement under the key is 409 IDEMPOTENCY_KEY_REUSED.
 */
async function keyedMovementShift(
  deps: CashShiftDeps,
  companyId: string,
  step: ShiftMovement,
): Promise<CashShiftSummary | undefined> {
  const movement = await recordedMovement(deps.db, step.movementId);
  if (!movement) return undefined;
  const same =
    movement.company_id === companyId &&
    movement.kind === 'ADJUSTMENT' &&
    movement.recorded_by === step.actor.staffUserId &&
    movement.direction === step.direction &&
    movement.amount === step.amount &&
    movement.reason === step.reason &&
    (!step.namedShiftId || step.namedShiftId === movement.shift_id);
  if (!same) throw adjustKeyReused();
  return findCompanyShift(deps.db, companyId, movement.shift_id);
}

/**
 * A refused CLOSE that repeats a recorded close (repeatsClose: same member, count and note), sent
 * again after its answer was lost: answered with that close, as the process answered it, nothing
 * written. Naming its shift, that shift's close, refused CASH_SHIFT_NOT_OPEN (its process ended
 * with the close) or CASH_SHIFT_CHANGED (the next shift opened since); naming none, refused
 * CASH_SHIFT_NOT_OPEN, the close of the company's latest shift (none opened since: one that is
 * open takes the CLOSE). Anything else keeps its refusal.
 */
async function closedBefore(
  deps: CashShiftDeps,
  companyId: string,
  close: ShiftClosing,
  refusal: unknown,
): Promise<CashShiftSummary> {
  if (!(refusal instanceof Refusal)) throw refusal;
  const shift = await repeatedClose(deps, companyId, close, refusal.code);
  if (!shift) throw refusal;
  return shift;
}

async function repeatedClose(
  deps: CashShiftDeps,
  companyId: string,
  close: ShiftClosing,
  code: string,
): Promise<CashShiftSummary | undefined> {
  const shiftId = close.namedShiftId;
  if (code !== 'CASH_SHIFT_NOT_OPEN' && (code !== 'CASH_SHIFT_CHANGED' || !shiftId)) return undefined;
  const shift = shiftId
    ? await findCompanyShift(deps.db, companyId, shiftId)
    : (await listShifts(deps.db, companyId, { limit: 1, offset: 0 })).shifts[0];
  return shift && repeatsClose(shift, close, shift.id) ? shift : undefined;
}

/**
 * A step refused for want of a running shift process while the database holds an open shift (a
 * shift written by the demo seed or an import, a development server whose history was reset, a
 * run an operator terminated): the process is started again for that shift (its OPEN step finds
 * the row and writes nothing; a row closed meanwhile is CASH_SHIFT_NOT_OPEN) and the step is sent
 * once more. The overdue timer keeps the shift's own opening time.
 */
async function resumingOnce(
  deps: CashShiftDeps,
  { companyId, actor }: { companyId: string; actor: ActingMember },
  step: () => Promise<CashShiftSummary>,
): Promise<CashShiftSummary> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof Refusal) || error.code !== 'CASH_SHIFT_NOT_OPEN') throw error;
    const open = await readOpenShift(deps.db, companyId);
    if (!open) throw error;
    const limit = Date.parse(open.openedAt) + deps.config.CASH_SHIFT_MAX_HOURS * 3_600_000;
    await takingOver(deps, {
      shiftId: open.id,
      companyId,
      openedBy: open.openedBy,
      actor,
      openingBalance: open.openingBalance,
      note: open.note,
      maxOpenMilliseconds: Math.max(1, Math.round(limit - Date.now())),
      stepsPerRun: deps.config.CASH_SHIFT_STEPS_PER_RUN,
    });
    return step();
  }
}

/**
 * Starts the process again for the open shift `resume` names. CASH_SHIFT_ALREADY_OPEN means the
 * company's process runs: another request resumed the shift first (the step is sent to it), or an
 * OPEN sent at the same moment started a run for a shift of its own, which the database refuses
 * (the step refused above was queued behind it): that run is waited for until it ends, and the
 * shift is resumed after it.
 */
async function takingOver(
  deps: CashShiftDeps,
  resume: Parameters<CashShiftClient['resume']>[0],
): Promise<void> {
  const started = () =>
    deps.workflow.resume(resume).then(
      () => true,
      (refusal: unknown) => {
        if (refusal instanceof Refusal && refusal.code === 'CASH_SHIFT_ALREADY_OPEN') return false;
        throw refusal;
      },
    );
  if (await started()) return;
  if (!(await deps.workflow.runsShift(resume.companyId, resume.shiftId))) await started();
}

/**
 * An OPEN refused CASH_SHIFT_ALREADY_OPEN for the company's running process while the database
 * holds no open shift of the company: the process may hold a shift whose row is closed (a CLOSE
 * whose transaction committed while its activity reported failure, a database restored under a
 * running Temporal). The process checks its row (RECONCILE, after the steps before it, so an OPEN
 * another request is writing stands); when that ends it, the OPEN is sent once more.
 */
async function openingOnce(
  deps: CashShiftDeps,
  input: Parameters<CashShiftClient['open']>[0],
): Promise<CashShiftSummary> {
  try {
    return await deps.workflow.open(input);
  } catch (error) {
    if (!(error instanceof Refusal) || error.code !== 'CASH_SHIFT_ALREADY_OPEN') throw error;
    if (await readOpenShift(deps.db, input.companyId)) throw error;
    const held = await deps.workflow.reconcile(input.companyId).catch((refusal: unknown) => {
      // The process ended meanwhile.
      if (refusal instanceof Refusal && refusal.code === 'CASH_SHIFT_NOT_OPEN') return undefined;
      throw refusal;
    });
    if (held?.phase === 'OPEN' || held?.phase === 'OVERDUE') throw error;
    return deps.workflow.open(input);
  }
}

const csvCell = (value: string | number | null) => {
  const text = value === null ? '' : String(value);
  // Quote every cell; a leading =, +, - or @ is neutralised so a spreadsheet never runs it as a formula.
  const safe = /^[=+\-@]/.test(text) && Number.isNaN(Number(text)) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
};

/** The CSV of a closed shift: totals, then movements and collections (UTF-8 with a BOM). */
export async function shiftCsv(
  deps: Pick<CashShiftDeps, 'db' | 'config'>,
  companyId: string,
  shiftId: string,
) {
  const { shift, movements, collections } = await shiftDetail(deps, companyId, shiftId);
  if (shift.status !== 'CLOSED') {
    throw new Refusal(409, 'CASH_SHIFT_NOT_CLOSED', 'Only a closed shift has a CSV');
  }
  const rows: (string | number | null)[][] = [
    ['record', 'id', 'time', 'direction', 'amount', 'reference', 'by'],
    ['opening_balance', shift.id, shift.opened_at, 'IN', shift.opening_balance, '', shift.opened_by],
    ...collections.map((c) => [
      'collection',
      c.id,
      c.collected_at,
      'IN',
      c.amount,
      c.booking_code,
      c.verified_by,
    ]),
    ...movements.map((m) => [
      m.kind.toLowerCase(),
      m.id,
      m.recorded_at,
      m.direction,
      m.amount,
      m.reason,
      m.recorded_by,
    ]),
    ['expected', shift.id, shift.closed_at, '', shift.expected_amount, '', ''],
    ['declared', shift.id, shift.closed_at, '', shift.declared_amount, '', shift.closed_by],
    ['difference', shift.id, shift.closed_at, '', shift.difference, '', ''],
  ];
  return `\uFEFF${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
