import type { BookingFacts, Fail } from './invariants-seats.js';
import { answerBetweenRecounts, type Reader } from './snapshot.js';
import { companyIds, staffRead, type DrillCompany, type World } from './world.js';

/**
 * Invariants of points and vouchers, and of the dashboard's analytics against a recount of the
 * bookings.
 */

/** Every account's balance is the sum of its ledger and never negative. */
export async function balancesAreTheirLedger(read: Reader, world: World, fail: Fail): Promise<void> {
  const accounts = await read.query<{ id: string; balance: number; ledger: number }>(
    `select a.id, a.balance,
            coalesce((select sum(t.points) from loyalty_transactions t where t.account_id = a.id), 0)::int as ledger
       from loyalty_accounts a where a.company_id = any($1)`,
    [companyIds(world)],
  );
  for (const account of accounts) {
    if (account.balance !== account.ledger || account.balance < 0)
      fail(`loyalty account ${JSON.stringify(account)}`);
  }
}

/**
 * Points are earned once, only by a booking that travelled, in full on a completed trip (price / 100
 * × the programme's rate), and taken back once when that booking is refunded.
 */
export async function pointsEarnedOnce(
  read: Reader,
  world: World,
  bookings: BookingFacts[],
  fail: Fail,
): Promise<void> {
  const entries = await read.query<{
    booking_id: string;
    earned: number;
    earns: number;
    reversals: number;
  }>(
    `select booking_id, coalesce(sum(points) filter (where kind = 'EARN'), 0)::int as earned,
            count(*) filter (where kind = 'EARN')::int as earns,
            count(*) filter (where kind = 'EARN_REVERSAL')::int as reversals
       from loyalty_transactions where company_id = $1 and booking_id is not null group by booking_id`,
    [world.auto.id],
  );
  const entriesOf = new Map(entries.map((entry) => [entry.booking_id, entry]));
  for (const b of bookings.filter((booking) => booking.company_id === world.auto.id)) {
    const { earned, earns, reversals } = entriesOf.get(b.id) ?? { earned: 0, earns: 0, reversals: 0 };
    const tag = `booking ${b.id} ${b.status}/${b.payment_status} trip ${b.trip_status} earned ${earned} (${earns} entries, ${reversals} reversals)`;
    const travelled = ['CHECKED_IN', 'COMPLETED'].includes(b.status);
    if (earns > 1 || reversals > 1) fail(`${tag}: earned or reversed twice`);
    if (earns && !travelled) fail(`${tag}: points for a booking that did not travel`);
    if (b.trip_status === 'COMPLETED' && travelled) {
      const due = Math.floor((b.total_price / 100) * world.pointsPer100);
      if (b.payment_status !== 'REFUNDED' && earned !== due) fail(`${tag}: should have earned ${due}`);
      if (b.payment_status === 'REFUNDED' && earns && !reversals) fail(`${tag}: refunded, points kept`);
    }
    if (b.trip_status === 'COMPLETED' && b.status === 'CONFIRMED')
      fail(`${tag}: a confirmed booking on a completed trip`);
  }
}

/**
 * The reward is never redeemed past its cap, and a voucher rides on at most one live booking, or on
 * the two bookings of one round trip (its discount split across both).
 */
export async function vouchersUsedOnce(read: Reader, world: World, fail: Fail): Promise<void> {
  const [reward] = await read.query<{ max_redemptions: number; issued: number }>(
    `select r.max_redemptions, (select count(*)::int from loyalty_redemptions x where x.reward_id = r.id) as issued
       from loyalty_rewards r where r.id = $1`,
    [world.reward.id],
  );
  if (reward!.issued > reward!.max_redemptions)
    fail(`reward redeemed ${reward!.issued} times, cap ${reward!.max_redemptions}`);
  const vouchers = await read.query<{ code: string; status: string; live: number; ever: number }>(
    `select x.code, x.status,
            (select count(distinct coalesce(j.order_id, j.id))::int from bookings b join journeys j on j.id = b.journey_id
              where b.reward_redemption_id = x.id and b.status <> 'CANCELLED') as live,
            (select count(*)::int from bookings b where b.reward_redemption_id = x.id) as ever
       from loyalty_redemptions x where x.reward_id = $1`,
    [world.reward.id],
  );
  for (const voucher of vouchers) {
    if (voucher.live > 1)
      fail(`voucher ${voucher.code} carried by ${voucher.live} live bookings or round trips`);
    if (voucher.status === 'ISSUED' && voucher.live > 0)
      fail(`voucher ${voucher.code} ISSUED while a live booking uses it`);
    if (voucher.status === 'USED' && voucher.ever === 0) fail(`voucher ${voucher.code} USED by no booking`);
  }
}

/**
 * Today's indicators on GET /dashboard/api/analytics?period=daily equal a recount of the bookings
 * made today (Damascus day): all of them, the sold ones, their seats, their unrefunded revenue and
 * the cancelled ones. Decision deadlines keep firing in the background while the drill checks (a
 * request's booking rows become CANCELLED), so the answer is compared with a recount taken both
 * before and after it (answerBetweenRecounts).
 */
export async function analyticsRecount(world: World, fail: Fail): Promise<void> {
  for (const company of world.companies) {
    const { shown, recount, settled } = await answerBetweenRecounts(
      `${company.name} analytics`,
      () => recountToday(world, company.id),
      () => analyticsShown(world, company),
    );
    if (JSON.stringify(shown) !== JSON.stringify(recount)) {
      fail(
        `${company.name}: analytics ${JSON.stringify(shown)}, recount ${JSON.stringify(recount)}${settled ? '' : ' (its bookings kept changing)'}`,
      );
    }
  }
}

async function recountToday(world: World, companyId: string): Promise<Record<string, number> | undefined> {
  const [recount] = await world.app.db.query<Record<string, number>>(
    `select count(*)::int as bookings,
            count(*) filter (where status in ('CONFIRMED', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW'))::int as sold,
            coalesce(sum(seats_count) filter (where status in ('CONFIRMED', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW')), 0)::int as seats,
            coalesce(sum(total_price) filter (where status in ('CONFIRMED', 'CHECKED_IN', 'COMPLETED', 'NO_SHOW')
                                               and payment_status <> 'REFUNDED'), 0)::float8 as revenue,
            count(*) filter (where status = 'CANCELLED')::int as cancelled
       from bookings
      where company_id = $1
        and (created_at at time zone 'Asia/Damascus')::date = (now() at time zone 'Asia/Damascus')::date`,
    [companyId],
  );
  return recount;
}

async function analyticsShown(world: World, company: DrillCompany) {
  const answer = world.answers.record(
    'analytics',
    await staffRead(world, company, '/dashboard/api/analytics?period=daily'),
  );
  const indicators = answer.body?.data?.indicators;
  return (
    indicators && {
      bookings: indicators.bookings.current,
      sold: indicators.soldBookings.current,
      seats: indicators.seatsSold.current,
      revenue: indicators.revenue.current,
      cancelled: indicators.cancellations.current,
    }
  );
}
