import type { PoolClient } from 'pg';

/**
 * What a traveller did, as completing the phone weighs and moves it (domain/traveller-identity.ts,
 * planPhoneCompletion). Every table with a user or passenger key, and what it is:
 *
 * Operational data (counted, and moved by a merge):
 *   users-keyed       journey_orders, journeys, hold_batches (journey holds, seat locks), bookings,
 *                     payment_operations, loyalty_redemptions (vouchers), loyalty_accounts with a
 *                     ledger entry, a voucher or a referral, support_tickets
 *   passengers-keyed  favorites, and the passenger_id of journey_orders, journeys, bookings and
 *                     loyalty_accounts
 * Moved with them but not counted (each hangs on a booking or a journey above, or holds nothing):
 *   journey_quotes (priced offers that expire and hold no seats), document_snapshots,
 *   document_share_grants issued or revoked by the traveller, the traveller's support messages,
 *   loyalty_accounts without activity, the stored answers of the traveller's idempotency keys
 *   (idempotency_records of scope confirm:{userId} and loyalty-redeem:{userId}).
 * Identity and session plumbing (never moved; the merge itself rewrites it): users.passenger_id,
 *   passengers.merged_into_id, user_identities, unlinked_identities (what the old account unlinked
 *   stays its own), traveller_sessions and refresh_tokens (the old account's are revoked),
 *   email_tokens (they stop matching once the address is released).
 * History that keeps who acted: audit_log, document_access_log.
 *
 * Everything counted hangs on the users and passengers rows the merge locks before it weighs, except
 * what names a loyalty account only: a ledger entry, or a referral naming the account's code as its
 * referrer (lockIdleLoyaltyAccounts).
 */

/** A loyalty account `a` nothing ever happened on: no ledger entry, no voucher, no referral. */
const IDLE_LOYALTY_ACCOUNT = `not exists (select 1 from loyalty_transactions t where t.account_id = a.id)
  and not exists (select 1 from loyalty_redemptions r where r.account_id = a.id)
  and not exists (select 1 from loyalty_referrals f where a.id in (f.referrer_account_id, f.referee_account_id))`;

/** Whether the account `u` has operational data of its own (an SQL boolean over alias u). */
export const ACCOUNT_HAS_OPERATIONAL_DATA = `(
     exists (select 1 from journey_orders o where o.owner_user_id = u.id)
  or exists (select 1 from journeys j where j.owner_user_id = u.id)
  or exists (select 1 from hold_batches h where h.owner_user_id = u.id)
  or exists (select 1 from bookings b where b.owner_user_id = u.id)
  or exists (select 1 from payment_operations po where po.user_id = u.id)
  or exists (select 1 from loyalty_redemptions r where r.user_id = u.id)
  or exists (select 1 from loyalty_accounts a where a.user_id = u.id and not (${IDLE_LOYALTY_ACCOUNT}))
  or exists (select 1 from support_tickets s where s.traveller_user_id = u.id))`;

/** Whether the profile `p` has operational data (an SQL boolean over alias p). */
export const PROFILE_HAS_OPERATIONAL_DATA = `(
     exists (select 1 from favorites f where f.passenger_id = p.id)
  or exists (select 1 from journey_orders o where o.passenger_id = p.id)
  or exists (select 1 from journeys j where j.passenger_id = p.id)
  or exists (select 1 from bookings b where b.passenger_id = p.id)
  or exists (select 1 from loyalty_accounts a where a.passenger_id = p.id and not (${IDLE_LOYALTY_ACCOUNT})))`;

/**
 * Locks (FOR UPDATE) the idle loyalty accounts of these users (both sides of a merge: a move deletes
 * an empty account of either, a side with operational data elsewhere included) and of these
 * profiles (those weighed without operational data), and answers whether there was any. A ledger
 * entry or a referral naming an account's code holds only the account row (FOR KEY SHARE), not the
 * users row the merge holds, so one may be under way, or commit, after the weigh: once the lock is
 * ours none is in flight, and the caller weighs again in a later statement, which sees what they
 * wrote (an account that became a referrer no longer gives way: it moves, or the merge is refused
 * when both sides now have operational data, instead of failing to delete an account a referral
 * names). Only idle accounts are taken, before the bookings move, without a cycle: no writer holds a
 * booking while it waits for an account with no entries (a refund's reversal takes the accounts that
 * hold the booking's points; the trip award takes the users row, which the merge holds, first).
 */
export async function lockIdleLoyaltyAccounts(
  client: PoolClient,
  userIds: string[],
  passengerIds: string[],
): Promise<boolean> {
  if (userIds.length === 0 && passengerIds.length === 0) return false;
  const { rows } = await client.query(
    `select a.id from loyalty_accounts a
      where (a.user_id = any($1::uuid[]) or a.passenger_id = any($2::uuid[])) and ${IDLE_LOYALTY_ACCOUNT}
      order by a.id for update`,
    [userIds, passengerIds],
  );
  return rows.length > 0;
}

/**
 * Gives everything the old account did to the surviving one, in the order the writers of those
 * rows lock them (orders, journeys, holds, bookings, payments; loyalty accounts before their
 * vouchers), so a confirmation or a payment decision in flight either finishes before its rows
 * move or finds them moved. The caller holds both users rows FOR UPDATE, which every insert with a
 * foreign key to either account waits for. Only the old account may have operational data here
 * (the rule refused otherwise): the surviving account's loyalty accounts in the old one's
 * companies are idle, and where both have one in a company the idle one gives way (one account
 * per company and traveller). A quote whose client
 * idempotency key the surviving account already used stays behind: it holds nothing. The stored
 * answers of the old account's confirm and redeem keys move first, as a confirm claims its key
 * before it locks its journeys: a retry from the surviving account's session is answered what the
 * first call did (its tickets, its voucher) instead of acting again; a key the surviving account
 * used too keeps that account's answer.
 */
export async function moveAccountData(
  client: PoolClient,
  fromUserId: string,
  toUserId: string,
): Promise<void> {
  const move = (sql: string) => client.query(sql, [fromUserId, toUserId]);
  await move(`update idempotency_records r set scope = split_part(r.scope, ':', 1) || ':' || $2::text
               where r.scope in ('confirm:' || $1::text, 'loyalty-redeem:' || $1::text)
                 and not exists (select 1 from idempotency_records n
                                  where n.scope = split_part(r.scope, ':', 1) || ':' || $2::text and n.key = r.key)`);
  await move(`update journey_quotes q set owner_user_id = $2 where q.owner_user_id = $1
               and not exists (select 1 from journey_quotes n where n.owner_user_id = $2 and n.idempotency_key = q.idempotency_key)`);
  await move('update journey_orders set owner_user_id = $2, updated_at = now() where owner_user_id = $1');
  await move('update journeys set owner_user_id = $2, updated_at = now() where owner_user_id = $1');
  await move('update hold_batches set owner_user_id = $2 where owner_user_id = $1');
  await move('update bookings set owner_user_id = $2, updated_at = now() where owner_user_id = $1');
  await move('update payment_operations set user_id = $2, updated_at = now() where user_id = $1');
  await move('update document_snapshots set owner_user_id = $2 where owner_user_id = $1');
  await move(`delete from loyalty_accounts a where a.user_id = $1 and ${IDLE_LOYALTY_ACCOUNT}
               and a.company_id in (select company_id from loyalty_accounts where user_id = $2)`);
  await move(`delete from loyalty_accounts a where a.user_id = $2 and ${IDLE_LOYALTY_ACCOUNT}
               and a.company_id in (select company_id from loyalty_accounts where user_id = $1)`);
  await move('update loyalty_accounts set user_id = $2, updated_at = now() where user_id = $1');
  await move('update loyalty_redemptions set user_id = $2 where user_id = $1');
  await move('update support_tickets set traveller_user_id = $2 where traveller_user_id = $1');
  await move(
    `update support_tickets set opened_by = $2 where opened_by_kind = 'TRAVELLER' and opened_by = $1`,
  );
  await move(
    `update support_ticket_messages set author_id = $2 where author_kind = 'TRAVELLER' and author_id = $1`,
  );
  await move(
    `update document_share_grants set issuer_id = $2 where issuer_kind = 'TRAVELLER' and issuer_id = $1`,
  );
  await move(
    `update document_share_grants set revoked_by = $2 where revoked_by_kind = 'TRAVELLER' and revoked_by = $1`,
  );
}

/** Repoints what hangs on the absorbed profile to the canonical one (favorites, journeys, bookings, loyalty). */
export async function moveProfileData(
  client: PoolClient,
  fromPassengerId: string,
  toPassengerId: string,
): Promise<void> {
  const move = (sql: string) => client.query(sql, [fromPassengerId, toPassengerId]);
  await move('update favorites set passenger_id = $2 where passenger_id = $1');
  await move('update journey_orders set passenger_id = $2, updated_at = now() where passenger_id = $1');
  await move('update journeys set passenger_id = $2, updated_at = now() where passenger_id = $1');
  await move('update bookings set passenger_id = $2, updated_at = now() where passenger_id = $1');
  await move('update loyalty_accounts set passenger_id = $2, updated_at = now() where passenger_id = $1');
}
