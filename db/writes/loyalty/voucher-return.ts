import { balanceRoom } from '../../../domain/loyalty.js';
import { lockAccount, post, type AccountRow, type Queryable } from './account.js';

/**
 * Vouchers coming back to their traveller: those of a withdrawn reward are cancelled with their
 * points returned (a VOUCHER_REFUND entry), whether the withdrawal finds them unused
 * (db/writes/loyalty/admin-balances.ts) or a company's trip cancel gives one back afterwards
 * (giveBackVouchers); any other voucher given back is ISSUED again. A voucher a refund or its
 * traveller's cancel touched is forfeited first (forfeitVouchers) and never comes back.
 */

export interface CancelledVoucher {
  id: string;
  account_id: string;
  points_used: number;
}

/**
 * A cancelled voucher's points back on its LOCKED account (a VOUCHER_REFUND entry), up to the
 * account's limit as earning stops there: one holder's full balance never fails the withdrawal for
 * every holder. Points that do not fit are not returned, and the entry's reason says how many; an
 * account already at the limit gets no entry (a ledger entry moves at least one point). The entry
 * names `actorStaffUserId` (null: nobody). Answers the points returned.
 */
export async function refundVoucher(
  client: Queryable,
  account: AccountRow,
  voucher: CancelledVoucher,
  refund: { rewardCode: string; actorStaffUserId: string | null },
): Promise<number> {
  const points = Math.min(voucher.points_used, balanceRoom(account.balance));
  if (points <= 0) return 0;
  const lost = voucher.points_used - points;
  const capped =
    lost > 0
      ? ` (${lost} of ${voucher.points_used} points not returned: an account holds at most 2,147,483,647)`
      : '';
  await post(client, account, {
    accountId: voucher.account_id,
    companyId: account.company_id,
    kind: 'VOUCHER_REFUND',
    points,
    redemptionId: voucher.id,
    actorStaffUserId: refund.actorStaffUserId,
    reason: `Reward ${refund.rewardCode} withdrawn: voucher cancelled, points returned${capped}`,
  });
  return points;
}

interface ReturningVoucher extends CancelledVoucher {
  reward_code: string;
  /** Its reward is withdrawn (archived) and the voucher has not expired: the withdrawal's case. */
  withdrawn: boolean;
}

/**
 * A refund (ending the booking or compensating it) or its traveller's cancel of a live booking a
 * voucher paid for: the voucher is forfeited, spent for good (forfeited_at), in the transaction that
 * refunds or cancels, so a trip CANCEL of its other bookings never gives it back whatever the order
 * they end in (a round trip's voucher: giveBackVouchers). `bookingIds` are bookings the caller holds
 * FOR UPDATE and found live (not CANCELLED or EXPIRED) under that lock: a refund of a booking a trip
 * CANCEL already ended (its REFUND_DUE) forfeits nothing, that booking ended by the company's cancel.
 *
 * Locks: the vouchers' rows only, last in the caller's transaction (after a refund's loyalty
 * accounts), as giveBackVouchers takes accounts, rewards, then vouchers. Every other writer of a
 * USED voucher holds one of its bookings first (a modify's discount, a trip CANCEL ending them) and
 * so waits for the caller; a booking trying to spend it again locks it and is refused at once; a
 * withdrawal updates only ISSUED ones. So none waits for this holding what it needs. Stamped `at`
 * (the caller's writeTime) when given, else at the transaction's start.
 */
export async function forfeitVouchers(client: Queryable, bookingIds: string[], at?: string): Promise<void> {
  await client.query(
    `update loyalty_redemptions set forfeited_at = coalesce($2::timestamptz, now())
      where id in (select reward_redemption_id from bookings where id = any($1::uuid[]))
        and status = 'USED' and forfeited_at is null`,
    [bookingIds, at ?? null],
  );
}

/**
 * A voucher none of whose bookings was refunded or cancelled by its traveller while live (not
 * forfeited) and whose bookings have now all ended, the last ones by this trip cancel
 * (`bookingIds`, already CANCELLED), is the traveller's again: ISSUED, with its own expiry, as if
 * never used. It is found through the cancelled bookings' reward_redemption_id (primary-key lookups,
 * never a scan of the vouchers). A voucher still on a live booking (another trip's leg) stays USED,
 * and the cancel that ends that booking later gives it back. One whose reward has been withdrawn
 * meanwhile could never be used again, so it becomes what the withdrawal made of the unused ones:
 * CANCELLED, its points returned (refundVoucher, naming the cancelling user on their own company's
 * accounts, nobody on another company's); an expired one is ISSUED, as any voucher given back late.
 *
 * Locks: the holders' accounts in id order (as a withdrawal returning points), then the rewards FOR
 * SHARE in id order (after the account, as a redeem), then the vouchers. A withdrawal archiving one
 * of the rewards (FOR UPDATE) either committed first, and this reads it archived, or waits for this
 * transaction, and its second step then finds the voucher ISSUED and cancels it: a voucher of a
 * withdrawn reward is never left ISSUED, unusable and unrefunded. A refund or cancel forfeiting it
 * holds one of its bookings, live, so this never picks that voucher (forfeitVouchers).
 */
export async function giveBackVouchers(
  client: Queryable,
  bookingIds: string[],
  actor: { companyId: string; staffUserId: string },
): Promise<void> {
  const { rows: spent } = await client.query<{ id: string; account_id: string }>(
    `select distinct r.id, r.account_id
       from bookings c join loyalty_redemptions r on r.id = c.reward_redemption_id and r.company_id = c.company_id
      where c.id = any($1::uuid[]) and r.status = 'USED' and r.forfeited_at is null
        and not exists (select 1 from bookings b where b.id = any(r.used_booking_ids) and b.status <> 'CANCELLED')
      order by r.account_id`,
    [bookingIds],
  );
  if (spent.length === 0) return;
  const accounts = new Map<string, AccountRow>();
  for (const { account_id } of spent) {
    if (!accounts.has(account_id)) accounts.set(account_id, await lockAccount(client, account_id));
  }
  // A statement of its own once the accounts are ours: FOR SHARE reads a reward as last committed.
  const { rows: vouchers } = await client.query<ReturningVoucher>(
    `select r.id, r.account_id, r.points_used, w.code as reward_code,
            (w.archived_at is not null and r.expires_at > now()) as withdrawn
       from loyalty_redemptions r join loyalty_rewards w on w.id = r.reward_id
      where r.id = any($1::uuid[])
      order by w.id for share of w`,
    [spent.map((voucher) => voucher.id)],
  );
  const { rows: returned } = await client.query<{ id: string; status: string }>(
    `update loyalty_redemptions
        set status = case when id = any($2::uuid[]) then 'CANCELLED' else 'ISSUED' end,
            used_at = null, used_booking_ids = '{}', discount = null
      where id = any($1::uuid[]) and status = 'USED' and forfeited_at is null
      returning id, status`,
    [
      vouchers.map((voucher) => voucher.id),
      vouchers.filter((voucher) => voucher.withdrawn).map((voucher) => voucher.id),
    ],
  );
  const refunded = new Set(returned.filter((row) => row.status === 'CANCELLED').map((row) => row.id));
  for (const voucher of vouchers.filter((candidate) => refunded.has(candidate.id))) {
    const account = accounts.get(voucher.account_id)!;
    await refundVoucher(client, account, voucher, {
      rewardCode: voucher.reward_code,
      actorStaffUserId: account.company_id === actor.companyId ? actor.staffUserId : null,
    });
  }
}
