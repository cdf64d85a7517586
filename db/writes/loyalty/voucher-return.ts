import { balanceRoom } from '../../../domain/loyalty.js';
import { lockAccount, post, type AccountRow, type Queryable } from './account.js';

/**
 * Vouchers coming back to their traveller: those of a withdrawn reward are cancelled with their
 * points returned (a VOUCHER_REFUND entry), whether the withdrawal finds them unused
 * (db/writes/loyalty/admin-balances.ts) or a company's trip cancel gives one back afterwards
 * (giveBackVouchers); any other voucher given back is ISSUED again.
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
 * Whether the CANCELLED booking `b` was ended by its company's trip cancel: the first revocation of
 * its tickets on its trip says how it ended (written in the transaction that ended it, never
 * replaced: db/queries/documents.ts reads it so too), TRIP_CANCELLED for a trip cancel
 * (db/writes/trip-operations/cancel-trip.ts), BOOKING_CANCELLED for its traveller's cancel,
 * BOOKING_REFUNDED for a refund. A later refund of a trip-cancelled booking (its REFUND_DUE)
 * revokes nothing more. A voucher pays only for bookings confirmed at once with signed tickets
 * (POST /bookings, /bookings/round-trip); a booking without any (an imported row, a request never
 * confirmed) never counts as ended by a trip cancel.
 */
const ENDED_BY_TRIP_CANCEL = `b.status = 'CANCELLED' and coalesce((
       select cr.reason from journey_tickets k join credential_revocations cr on cr.ticket_id = k.id
        where k.journey_id = b.journey_id and k.trip_id = b.trip_id and k.status <> 'REISSUED'
        order by cr.revoked_at limit 1), '') = 'TRIP_CANCELLED'`;

/**
 * A voucher whose bookings were all ended by their company's trip cancel (`bookingIds`, already
 * CANCELLED, by this cancel; the others by this one or an earlier one) is the traveller's again:
 * ISSUED, with its own expiry, as if never used. A voucher still on a live booking (another trip's
 * leg) stays USED, and the cancel that ends that booking later gives it back. A voucher on a booking
 * its traveller cancelled or the company refunded stays spent, whichever ended first: the outcome
 * never depends on the order its bookings end in. One whose reward has been withdrawn
 * meanwhile could never be used again, so it becomes what the withdrawal made of the unused ones:
 * CANCELLED, its points returned (refundVoucher, naming the cancelling user on their own company's
 * accounts, nobody on another company's); an expired one is ISSUED, as any voucher given back late.
 *
 * Locks: the holders' accounts in id order (as a withdrawal returning points), then the rewards FOR
 * SHARE in id order (after the account, as a redeem), then the vouchers. A withdrawal archiving one
 * of the rewards (FOR UPDATE) either committed first, and this reads it archived, or waits for this
 * transaction, and its second step then finds the voucher ISSUED and cancels it: a voucher of a
 * withdrawn reward is never left ISSUED, unusable and unrefunded.
 */
export async function giveBackVouchers(
  client: Queryable,
  bookingIds: string[],
  actor: { companyId: string; staffUserId: string },
): Promise<void> {
  const { rows: spent } = await client.query<{ id: string; account_id: string }>(
    `select r.id, r.account_id from loyalty_redemptions r
     where r.status = 'USED' and r.used_booking_ids && $1::uuid[]
       and r.company_id in (select company_id from bookings where id = any($1::uuid[]))
       and not exists (select 1 from bookings b where b.id = any(r.used_booking_ids) and not (${ENDED_BY_TRIP_CANCEL}))
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
      where id = any($1::uuid[]) and status = 'USED'
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
