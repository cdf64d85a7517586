import { currentShift } from './company-flows.js';
import type { BookingFacts, Fail } from './invariants-seats.js';
import { companyIds, staffRead, type DrillCompany, type World } from './world.js';

/**
 * Invariants of money: payment lines against their bookings, the dashboard's ledger and its
 * statistics against the table, refunds against the till's movements, and every cash shift's
 * expected amount against a recount of its lines.
 */
interface PaymentLine {
  id: string;
  booking_id: string;
  status: string;
  amount: number;
  cash_shift_id: string | null;
  company_id: string;
  source: string;
}

const COLLECTED = ['COMPLETED', 'REFUND_DUE', 'REFUNDED'];
const sum = (lines: PaymentLine[]) => lines.reduce((total, line) => total + line.amount, 0);

export function paymentLines(world: World): Promise<PaymentLine[]> {
  return world.app.db.query<PaymentLine>(
    `select id, booking_id, status, amount::float8 as amount, cash_shift_id, company_id, source from payment_operations
      where company_id = any($1)`,
    [companyIds(world)],
  );
}

/** A booking's payment status matches its lines; it is collected at most once, for its price. */
export function bookingsPaid(bookings: BookingFacts[], payments: PaymentLine[], fail: Fail): void {
  const linesOf = new Map<string, PaymentLine[]>();
  for (const line of payments) linesOf.set(line.booking_id, [...(linesOf.get(line.booking_id) ?? []), line]);
  for (const b of bookings) {
    const lines = linesOf.get(b.id) ?? [];
    const tag = `booking ${b.id} ${b.status}/${b.payment_status} lines ${JSON.stringify(lines.map((l) => `${l.source}:${l.status}:${l.amount}`))}`;
    const has = (...statuses: string[]) => lines.some((line) => statuses.includes(line.status));
    if (b.payment_status === 'PAID' && !has('COMPLETED', 'REFUND_DUE'))
      fail(`${tag}: PAID without a collection`);
    if (b.payment_status === 'REFUNDED' && !has('REFUNDED')) fail(`${tag}: REFUNDED without a refunded line`);
    if (b.payment_status === 'UNPAID' && has(...COLLECTED)) fail(`${tag}: UNPAID with collected money`);
    const collected = lines.filter((line) => COLLECTED.includes(line.status));
    if (collected.length > 1) fail(`${tag}: collected more than once`);
    for (const line of collected) {
      if (line.amount !== b.total_price)
        fail(`${tag}: collected ${line.amount} for a booking of ${b.total_price}`);
    }
    if (lines.filter((line) => line.status === 'PENDING').length > 1) fail(`${tag}: two pending lines`);
    if (['CANCELLED', 'EXPIRED'].includes(b.status) && has('PENDING'))
      fail(`${tag}: money still awaited on an ended booking`);
  }
}

/** Every REFUNDED line left the till exactly once, never for more than was paid. */
export async function refundsLeftTheTill(world: World, payments: PaymentLine[], fail: Fail): Promise<void> {
  const movements = await world.app.db.query<{
    payment_id: string;
    amount: number;
    paid: number;
    status: string;
  }>(
    `select m.payment_id, m.amount::float8 as amount, p.amount::float8 as paid, p.status from cash_shift_movements m
       join payment_operations p on p.id = m.payment_id where m.kind = 'REFUND' and m.company_id = any($1)`,
    [companyIds(world)],
  );
  for (const movement of movements) {
    if (movement.amount > movement.paid || movement.status !== 'REFUNDED')
      fail(`refund movement ${JSON.stringify(movement)}`);
  }
  for (const line of payments.filter((payment) => payment.status === 'REFUNDED')) {
    const out = movements.filter((movement) => movement.payment_id === line.id).length;
    if (out !== 1) fail(`REFUNDED payment ${line.id} with ${out} refund movements`);
  }
}

/** GET /dashboard/api/payments lists every line of the company as stored, and its statistics add up. */
export async function ledgerShown(
  world: World,
  company: DrillCompany,
  payments: PaymentLine[],
  fail: Fail,
): Promise<void> {
  const shown: { id: string; status: string; amount: number }[] = [];
  let statistics: Record<string, number> | undefined;
  for (let offset = 0; ; offset += 100) {
    const page = world.answers.record(
      'ledger',
      await staffRead(world, company, `/dashboard/api/payments?limit=100&offset=${offset}`),
    );
    if (page.status !== 200) return fail(`${company.name}: ledger ${page.status} ${page.text.slice(0, 200)}`);
    statistics = page.body.statistics;
    shown.push(...page.body.data);
    if (page.body.data.length < 100) break;
  }
  const mine = payments.filter((line) => line.company_id === company.id);
  if (shown.length !== mine.length)
    fail(`${company.name}: ledger lists ${shown.length} lines, the table has ${mine.length}`);
  for (const line of mine) {
    const listed = shown.find((each) => each.id === line.id);
    if (listed?.status !== line.status || listed.amount !== line.amount) {
      fail(
        `${company.name}: ledger line ${line.id} ${JSON.stringify(listed)} is ${line.status} ${line.amount} in the table`,
      );
    }
  }
  const inStatus = (...statuses: string[]) => sum(mine.filter((line) => statuses.includes(line.status)));
  const recount = {
    count: mine.length,
    collected: inStatus(...COLLECTED),
    refunded: inStatus('REFUNDED'),
    outstanding: inStatus('PENDING'),
    refundDue: inStatus('REFUND_DUE'),
  };
  const figures = statistics && Object.fromEntries(Object.keys(recount).map((key) => [key, statistics[key]]));
  if (JSON.stringify(figures) !== JSON.stringify(recount)) {
    fail(`${company.name}: ledger statistics ${JSON.stringify(figures)}, recount ${JSON.stringify(recount)}`);
  }
}

/**
 * The company has an open shift; what the dashboard says it should hold is its opening balance plus
 * the collections linked to it plus its movements in, less its movements out, never below zero; and
 * every collected line belongs to a shift.
 */
export async function openShiftAddsUp(
  world: World,
  company: DrillCompany,
  payments: PaymentLine[],
  fail: Fail,
): Promise<void> {
  const mine = payments.filter((line) => line.company_id === company.id);
  for (const line of mine.filter((each) => COLLECTED.includes(each.status) && !each.cash_shift_id)) {
    fail(`${company.name}: collected payment ${line.id} (${line.source}) linked to no shift`);
  }
  const current = await currentShift(world, company);
  if (!current) return fail(`${company.name}: no open shift`);
  const linked = mine.filter((line) => line.cash_shift_id === current.id && COLLECTED.includes(line.status));
  const [moves] = await world.app.db.query<{ ins: number; outs: number }>(
    `select coalesce(sum(amount) filter (where direction = 'IN'), 0)::float8 as ins,
            coalesce(sum(amount) filter (where direction = 'OUT'), 0)::float8 as outs
       from cash_shift_movements where shift_id = $1`,
    [current.id],
  );
  if (current.collections.amount !== sum(linked) || current.collections.count !== linked.length) {
    fail(
      `${company.name}: shift collections ${JSON.stringify(current.collections)}, its lines ${linked.length}/${sum(linked)}`,
    );
  }
  const expected = current.opening_balance + sum(linked) + moves!.ins - moves!.outs;
  if (current.expected_amount !== expected)
    fail(`${company.name}: shift expects ${current.expected_amount}, its lines add to ${expected}`);
  if (current.expected_amount < 0) fail(`${company.name}: negative till ${current.expected_amount}`);
}

/** A closed shift's stored figure still equals its lines, and nothing was linked to it after it closed. */
export async function closedShiftsStand(world: World, fail: Fail): Promise<void> {
  const { db } = world.app;
  const closed = await db.query<{ id: string; expected: number; recount: number }>(
    `select s.id, s.expected_amount::float8 as expected,
            (s.opening_balance
             + coalesce((select sum(p.amount) from payment_operations p where p.cash_shift_id = s.id
                           and p.status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED')), 0)
             + coalesce((select sum(m.amount) from cash_shift_movements m where m.shift_id = s.id and m.direction = 'IN'), 0)
             - coalesce((select sum(m.amount) from cash_shift_movements m where m.shift_id = s.id and m.direction = 'OUT'), 0)
            )::float8 as recount
       from cash_shifts s where s.company_id = any($1) and s.status = 'CLOSED'`,
    [companyIds(world)],
  );
  for (const shift of closed) {
    if (shift.expected !== shift.recount)
      fail(`closed shift ${shift.id} stored ${shift.expected}, its lines now add to ${shift.recount}`);
  }
  const late = await db.query(
    `select p.id, p.status, p.decided_at, s.closed_at from payment_operations p join cash_shifts s on s.id = p.cash_shift_id
      where s.company_id = any($1) and s.status = 'CLOSED' and p.decided_at > s.closed_at`,
    [companyIds(world)],
  );
  for (const row of late) fail(`payment linked to a shift after it closed: ${JSON.stringify(row)}`);
}
