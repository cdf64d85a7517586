import { currentShift } from './company-flows.js';
import type { BookingFacts, Fail } from './invariants-seats.js';
import { answerBetweenRecounts, type Reader } from './snapshot.js';
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

const LINE_COLUMNS = `id, booking_id, status, amount::float8 as amount, cash_shift_id, company_id, source`;

export function paymentLines(read: Reader, world: World): Promise<PaymentLine[]> {
  return read.query<PaymentLine>(
    `select ${LINE_COLUMNS} from payment_operations where company_id = any($1)`,
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
export async function refundsLeftTheTill(
  read: Reader,
  world: World,
  payments: PaymentLine[],
  fail: Fail,
): Promise<void> {
  const movements = await read.query<{
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

/**
 * GET /dashboard/api/payments lists every line of the company as stored, and its statistics add up.
 * The lines are read just before and just after the pages (answerBetweenRecounts).
 */
export async function ledgerShown(world: World, company: DrillCompany, fail: Fail): Promise<void> {
  const { shown, recount: mine } = await answerBetweenRecounts(
    `${company.name} ledger`,
    () =>
      world.app.db.query<PaymentLine>(
        `select ${LINE_COLUMNS} from payment_operations where company_id = $1 order by id`,
        [company.id],
      ),
    () => ledgerPages(world, company),
  );
  if ('failed' in shown) return fail(`${company.name}: ledger ${shown.failed}`);
  const { lines, statistics } = shown;
  if (lines.length !== mine.length)
    fail(`${company.name}: ledger lists ${lines.length} lines, the table has ${mine.length}`);
  for (const line of mine) {
    const listed = lines.find((each) => each.id === line.id);
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

type ShownLine = { id: string; status: string; amount: number };

/** Every page of the company's ledger and the statistics of the last, or why a page failed. */
async function ledgerPages(
  world: World,
  company: DrillCompany,
): Promise<{ lines: ShownLine[]; statistics?: Record<string, number> } | { failed: string }> {
  const lines: ShownLine[] = [];
  let statistics: Record<string, number> | undefined;
  for (let offset = 0; ; offset += 100) {
    const page = world.answers.record(
      'ledger',
      await staffRead(world, company, `/dashboard/api/payments?limit=100&offset=${offset}`),
    );
    if (page.status !== 200) return { failed: `${page.status} ${page.text.slice(0, 200)}` };
    statistics = page.body.statistics;
    lines.push(...page.body.data);
    if (page.body.data.length < 100) return { lines, statistics };
  }
}

/** Every collected line belongs to a shift. */
export function collectionsInAShift(world: World, payments: PaymentLine[], fail: Fail): void {
  for (const line of payments.filter((each) => COLLECTED.includes(each.status) && !each.cash_shift_id)) {
    const company = world.companies.find((each) => each.id === line.company_id);
    fail(`${company?.name}: collected payment ${line.id} (${line.source}) linked to no shift`);
  }
}

interface OpenShiftRecount {
  id: string;
  opening_balance: number;
  count: number;
  amount: number;
  ins: number;
  outs: number;
}

/**
 * The company has an open shift; what the dashboard says it should hold is its opening balance plus
 * the collections linked to it plus its movements in, less its movements out, never below zero. The
 * shift's figures are recounted just before and just after the dashboard's answer.
 */
export async function openShiftAddsUp(world: World, company: DrillCompany, fail: Fail): Promise<void> {
  const { shown: current, recount } = await answerBetweenRecounts(
    `${company.name} open shift`,
    () => openShiftRecount(world, company.id),
    () => currentShift(world, company),
  );
  if (!current || !recount) {
    return fail(`${company.name}: no open shift (dashboard ${current?.id}, table ${recount?.id})`);
  }
  if (current.id !== recount.id)
    fail(`${company.name}: the dashboard's open shift is ${current.id}, the table's ${recount.id}`);
  if (current.collections.amount !== recount.amount || current.collections.count !== recount.count) {
    fail(
      `${company.name}: shift collections ${JSON.stringify(current.collections)}, its lines ${recount.count}/${recount.amount}`,
    );
  }
  const expected = recount.opening_balance + recount.amount + recount.ins - recount.outs;
  if (current.expected_amount !== expected)
    fail(`${company.name}: shift expects ${current.expected_amount}, its lines add to ${expected}`);
  if (current.expected_amount < 0) fail(`${company.name}: negative till ${current.expected_amount}`);
}

/** The company's OPEN shift with its collected lines and movements, in one statement. */
async function openShiftRecount(world: World, companyId: string): Promise<OpenShiftRecount | undefined> {
  const [row] = await world.app.db.query<OpenShiftRecount>(
    `select s.id, s.opening_balance::float8 as opening_balance,
            (select count(*)::int from payment_operations p where p.cash_shift_id = s.id
               and p.status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED')) as count,
            coalesce((select sum(p.amount) from payment_operations p where p.cash_shift_id = s.id
               and p.status in ('COMPLETED', 'REFUND_DUE', 'REFUNDED')), 0)::float8 as amount,
            coalesce((select sum(m.amount) from cash_shift_movements m where m.shift_id = s.id and m.direction = 'IN'), 0)::float8 as ins,
            coalesce((select sum(m.amount) from cash_shift_movements m where m.shift_id = s.id and m.direction = 'OUT'), 0)::float8 as outs
       from cash_shifts s where s.company_id = $1 and s.status = 'OPEN'`,
    [companyId],
  );
  return row;
}

/** A closed shift's stored figure still equals its lines, and nothing was linked to it after it closed. */
export async function closedShiftsStand(read: Reader, world: World, fail: Fail): Promise<void> {
  const closed = await read.query<{ id: string; expected: number; recount: number }>(
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
  const late = await read.query(
    `select p.id, p.status, p.decided_at, s.closed_at from payment_operations p join cash_shifts s on s.id = p.cash_shift_id
      where s.company_id = any($1) and s.status = 'CLOSED' and p.decided_at > s.closed_at`,
    [companyIds(world)],
  );
  for (const row of late) fail(`payment linked to a shift after it closed: ${JSON.stringify(row)}`);
}
