import { pointsRoom, tierFor, tripPoints } from '../../../domain/loyalty.js';
import type { Database } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { listTiersIn } from '../../queries/loyalty.js';
import {
  ensureAccount,
  lockAccount,
  post,
  shareActiveTraveller,
  type AccountRow,
  type Queryable,
} from './account.js';

export interface TripPointsResult {
  /**
   * Bookings whose points this call posted (0 on a replay): a booking earning 0 points (a free seat)
   * posts nothing and is not counted, on the first call or any other.
   */
  bookingsCredited: number;
  pointsCredited: number;
  referralsRewarded: number;
}

/**
 * What a COMPLETED trip's bookings earn: the terms its COMPLETE settled (settleTripEarning), not the
 * programme's terms of the day the award runs.
 */
interface EarningTerms {
  company_id: string;
  points_per_100: number;
  referral_points: number;
}

interface EarningBooking {
  id: string;
  /** The owner when the trip's bookings were listed: creditBooking reads it again under its locks. */
  owner_user_id: string;
  /** bigint, as text. */
  total_price: string;
}

/**
 * Settles, in the COMPLETE transaction that completes the trip, what its bookings earn: the terms of
 * the company's programme as COMPLETE finds it (points per 100 and referral points, kept on the trip
 * row), or nothing when the programme is switched off or missing then (the columns stay null). The
 * award after the commit, and every replayed COMPLETE, credits under these terms only: a replay
 * finishes what this completion owed and never earns under a programme switched on or terms raised
 * later. A plain read: a terms change committing meanwhile is after this completion.
 */
export async function settleTripEarning(client: Queryable, tripId: string): Promise<void> {
  await client.query(
    `update trips t set earning_points_per_100 = p.points_per_100, earning_referral_points = p.referral_points
       from loyalty_programs p
      where t.id = $1 and p.company_id = t.company_id and p.active`,
    [tripId],
  );
}

/** The terms a COMPLETED trip's completion settled, while its company's programme is active. */
async function earningTerms(db: Database, tripId: string): Promise<EarningTerms | undefined> {
  const { rows } = await db.pool.query<EarningTerms>(
    `select t.company_id, t.earning_points_per_100 as points_per_100, t.earning_referral_points as referral_points
       from trips t join loyalty_programs p on p.company_id = t.company_id and p.active
      where t.id = $1 and t.status = 'COMPLETED' and t.earning_points_per_100 is not null`,
    [tripId],
  );
  return rows[0];
}

/**
 * Whether the programme is still active once this transaction shares the programme row
 * (lockAccount): one switched off meanwhile credits nothing now (a replay while it is active again
 * finishes the earning, under the terms the completion settled).
 */
async function programmeActive(client: Queryable, companyId: string): Promise<boolean> {
  const { rows } = await client.query(`select 1 from loyalty_programs where company_id = $1 and active`, [
    companyId,
  ]);
  return rows.length > 0;
}

/** A booking that earns points: travelled (checked in or completed) and not refunded. */
const EARNING_BOOKING = `status in ('COMPLETED', 'CHECKED_IN') and payment_status <> 'REFUNDED'`;

/**
 * Points earning, run after the COMPLETE that completed the trip commits, and again on each replayed
 * COMPLETE. Every booking of the trip with status COMPLETED or CHECKED_IN (not cancelled, no-show or
 * refunded) earns floor(total_price / 100 × points_per_100 × tier multiplier / 100) points for its
 * owner, points_per_100 being the one the completion settled (settleTripEarning; a trip completed
 * while the programme was off earns nothing, ever), once per booking however often this runs; the
 * tier is the one the owner's lifetime points reach before this trip's own points
 * (lifetimeBeforeTrip), the same for every booking of the trip and on a rerun; a pending referral of
 * that traveller is rewarded (the settled referral_points to both). Nothing is credited while the
 * programme is switched off. Each booking is one transaction, so a failure leaves the others
 * credited and a rerun finishes. The owner credited is the one the booking has once it is locked
 * (earningOwner): a phone merge moving it to the surviving account meanwhile sends the points
 * there, never to a new account of the disabled user; a booking whose owner is disabled and not
 * merged earns nothing now and stays creditable by a later run.
 */
export async function awardTripPoints(db: Database, tripId: string): Promise<TripPointsResult> {
  const result: TripPointsResult = { bookingsCredited: 0, pointsCredited: 0, referralsRewarded: 0 };
  const terms = await earningTerms(db, tripId);
  if (!terms) return result;
  const { rows: bookings } = await db.pool.query<EarningBooking>(
    `select id, owner_user_id, total_price from bookings
      where trip_id = $1 and owner_user_id is not null
        and ${EARNING_BOOKING}
      order by id`,
    [tripId],
  );
  for (const booking of bookings) {
    // Run again as a deadlock's victim: the referrer is locked after the referee, which a withdrawal
    // returning voucher points (accounts in id order) may hold the other way round.
    const credited = await withDeadlockRetry(() =>
      db.transaction((client) => creditBooking(client, { terms, tripId, booking })),
    );
    result.bookingsCredited += credited.bookings;
    result.pointsCredited += credited.points;
    result.referralsRewarded += credited.referrals;
  }
  return result;
}

const roomOf = (account: AccountRow) =>
  pointsRoom({ balance: account.balance, lifetimePoints: account.lifetime_points });

/**
 * The lifetime points of a LOCKED account before the trip's award: less what that award has already
 * added to them (the EARN of an earlier booking of the trip not taken back by a refund, and the
 * referral bonuses its bookings brought). A trip's bookings earn at the tier the traveller had when
 * it was completed: the first credit reaching a tier does not raise the second, and a rerun after an
 * interruption finds the same tier.
 */
async function lifetimeBeforeTrip(client: Queryable, account: AccountRow, tripId: string): Promise<number> {
  const { rows } = await client.query<{ points: string }>(
    `select coalesce(sum(t.points), 0) as points
       from loyalty_transactions t join bookings b on b.id = t.booking_id
      where t.account_id = $1 and b.trip_id = $2
        and (t.kind = 'REFERRAL_BONUS' or (t.kind = 'EARN' and not exists (
              select 1 from loyalty_transactions r
               where r.account_id = t.account_id and r.booking_id = t.booking_id and r.kind = 'EARN_REVERSAL')))`,
    [account.id, tripId],
  );
  return Math.max(0, account.lifetime_points - Number(rows[0]?.points ?? 0));
}

/**
 * The owner to credit for a booking that still earns, its users row shared (shareActiveTraveller)
 * and then the booking locked FOR SHARE (as a refund locks it before the account: one order, no
 * deadlock), checked again under the lock: a refund that committed since the list was read earns
 * nothing, and one in flight waits for this credit and then takes it back (reversal.ts). The owner
 * is taken before the booking, as a phone merge takes the users before it moves their bookings: a
 * merge of the owner in flight is waited for, and then the booking (a later statement) names the
 * surviving account, whose row is shared in turn; while the row is shared no merge moves its
 * bookings, so the owner read under the booking's lock is the one credited. None (undefined) for a
 * booking that no longer earns, or whose owner is not ACTIVE and was not merged away (a disabled
 * account: nothing is credited, and a later run credits the booking if the account is active again).
 */
async function earningOwner(client: Queryable, booking: EarningBooking): Promise<string | undefined> {
  let owner = booking.owner_user_id;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const active = await shareActiveTraveller(client, owner);
    const { rows } = await client.query<{ owner_user_id: string | null }>(
      `select owner_user_id from bookings
        where id = $1 and ${EARNING_BOOKING} for share`,
      [booking.id],
    );
    const current = rows[0]?.owner_user_id;
    if (!current) return undefined;
    if (current === owner) return active ? owner : undefined;
    owner = current;
  }
  throw new Error(`the owner of booking ${booking.id} keeps changing`);
}

/**
 * One booking's points (once: a replay finds its EARN row, on whichever account) for the owner it
 * has under its lock (earningOwner), and that owner's pending referral. The booking counts as
 * credited only when points are posted for it.
 */
async function creditBooking(
  client: Queryable,
  earning: { terms: EarningTerms; tripId: string; booking: EarningBooking },
): Promise<{ bookings: number; points: number; referrals: number }> {
  const { terms, tripId, booking } = earning;
  const companyId = terms.company_id;
  const credited = { bookings: 0, points: 0, referrals: 0 };
  const owner = await earningOwner(client, booking);
  if (!owner) return credited;
  // Then the programme row and the owner's account (lockAccount; opened here on first use), so a
  // tier change and this credit take turns.
  const accountId = await ensureAccount(client, companyId, owner);
  const account = await lockAccount(client, accountId);
  // Once per booking, whatever account its EARN is on: its points are the booking's, not the
  // account's (a refund takes them back wherever they are: reversal.ts).
  const { rows: done } = await client.query(
    `select 1 from loyalty_transactions where kind = 'EARN' and booking_id = $1`,
    [booking.id],
  );
  if (done.length > 0) return credited;
  // The programme's state and tiers read under the shared programme row, not before the loop: a
  // switch-off or tier change this credit waited for has committed, and the account's tier (post)
  // follows the same tiers. The rates are the completion's (terms), whatever the programme says now;
  // the tier is the one the traveller had before this trip's points (lifetimeBeforeTrip).
  if (!(await programmeActive(client, companyId))) return credited;
  const multiplier =
    tierFor(await lifetimeBeforeTrip(client, account, tripId), await listTiersIn(client, companyId))
      ?.multiplierPercent ?? 100;
  // Earned points stop at the account's limit: a trip's completion never fails on them.
  const points = Math.min(
    tripPoints(Number(booking.total_price), terms.points_per_100, multiplier),
    roomOf(account),
  );
  if (points > 0) {
    await post(client, account, {
      accountId,
      companyId,
      kind: 'EARN',
      points,
      bookingId: booking.id,
    });
    credited.points = points;
    credited.bookings = 1;
  }
  if (await rewardReferral(client, terms, account, booking.id)) credited.referrals = 1;
  return credited;
}

/** Rewards the pending referral of a traveller (a LOCKED account) whose first trip just completed. */
async function rewardReferral(
  client: Queryable,
  terms: EarningTerms,
  referee: AccountRow,
  bookingId: string,
): Promise<boolean> {
  const { rows } = await client.query<{ id: string; referrer_account_id: string }>(
    `update loyalty_referrals set status = 'REWARDED', rewarded_at = now()
      where company_id = $1 and referee_account_id = $2 and status = 'PENDING'
      returning id, referrer_account_id`,
    [terms.company_id, referee.id],
  );
  const referral = rows[0];
  if (!referral) return false;
  if (terms.referral_points > 0) {
    const bonus = {
      companyId: terms.company_id,
      kind: 'REFERRAL_BONUS' as const,
      points: terms.referral_points,
      bookingId,
    };
    await postBonus(client, referee, bonus, 'referred traveller');
    const referrer = await lockAccount(client, referral.referrer_account_id);
    await postBonus(client, referrer, bonus, 'referral completed a trip');
  }
  return true;
}

/** A referral bonus on a LOCKED account, up to the points the account can still take. */
async function postBonus(
  client: Queryable,
  account: AccountRow,
  bonus: { companyId: string; kind: 'REFERRAL_BONUS'; points: number; bookingId: string },
  note: string,
): Promise<void> {
  const points = Math.min(bonus.points, roomOf(account));
  if (points > 0) await post(client, account, { ...bonus, points, accountId: account.id, note });
}
