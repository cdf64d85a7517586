import type { Database } from '../../orm.js';
import { PG_UNIQUE_VIOLATION, pgCode, pgConstraint } from '../../pg-errors.js';
import { ownBookingSql } from '../../queries/booking-ownership.js';
import { lockActiveTraveller } from '../inventory-caps.js';
import { ensureAccount, lockAccount, openAccount, type Queryable } from './account.js';
import { LoyaltyRefusal } from './refusal.js';

/**
 * POST /loyalty/referral: records that the caller was referred by the holder of `referralCode` in
 * the same company. In one transaction locks the caller's users row (401 AUTH_REQUIRED once it is
 * no longer ACTIVE), then their account in the company. Refused: an unknown code or one of another
 * company, or one whose holder's user is disabled (404 LOYALTY_REFERRAL_NOT_FOUND), the
 * caller's own code (LOYALTY_REFERRAL_SELF), a caller already referred in this company
 * (LOYALTY_REFERRAL_ALREADY_USED), a caller who already travelled with the company (boarded one of
 * its trips: LOYALTY_REFERRAL_NOT_NEW), a caller whom the code's holder entered as their own
 * referrer (LOYALTY_REFERRAL_MUTUAL: one referral per pair, whichever way round).
 */
export async function recordReferral(
  db: Database,
  input: { companyId: string; userId: string; referralCode: string },
): Promise<{ referralId: string; status: 'PENDING' }> {
  // Opened first on its own: a referral refused below still leaves the traveller's account open.
  await openAccount(db, input.companyId, input.userId);
  return db.transaction(async (client) => {
    // The traveller first, as complete-phone locks them before their loyalty accounts: a session of
    // an account merged away while this waited is refused (401), so no referral lands on a disabled
    // user (or on an account the merge removed).
    await lockActiveTraveller(client, input.userId);
    // Read again once the traveller is ours: a merge meanwhile may have replaced an idle account.
    const accountId = await ensureAccount(client, input.companyId, input.userId);
    await lockAccount(client, accountId);
    const referrer = await lockReferrer(client, input.companyId, input.referralCode);
    if (!referrer) {
      throw new LoyaltyRefusal(
        'LOYALTY_REFERRAL_NOT_FOUND',
        'No referral code like this in this program',
        undefined,
        404,
      );
    }
    if (referrer.user_id === input.userId) {
      throw new LoyaltyRefusal('LOYALTY_REFERRAL_SELF', 'You cannot use your own referral code');
    }
    const { rows: previous } = await client.query(
      `select 1 from loyalty_referrals where company_id = $1 and referee_account_id = $2`,
      [input.companyId, accountId],
    );
    if (previous.length > 0) {
      throw new LoyaltyRefusal(
        'LOYALTY_REFERRAL_ALREADY_USED',
        'You have already been referred in this program',
      );
    }
    if (await hasTravelled(client, input.companyId, input.userId, accountId)) {
      throw new LoyaltyRefusal(
        'LOYALTY_REFERRAL_NOT_NEW',
        'Referrals are for travellers new to this company',
      );
    }
    const { rows } = await client
      .query<{ id: string }>(
        `insert into loyalty_referrals (company_id, referrer_account_id, referee_account_id)
         values ($1, $2, $3) returning id`,
        [input.companyId, referrer.id, accountId],
      )
      .catch((error: unknown) => {
        // The caller referred the code's holder already (or does so at this moment: the pair's index
        // makes this insert wait for that one and then fail).
        if (pgCode(error) === PG_UNIQUE_VIOLATION && pgConstraint(error) === 'loyalty_referrals_pair_key') {
          throw new LoyaltyRefusal(
            'LOYALTY_REFERRAL_MUTUAL',
            'You referred the holder of this code, so they cannot refer you',
          );
        }
        throw error;
      });
    return { referralId: rows[0]!.id, status: 'PENDING' as const };
  });
}

/**
 * The account holding `referralCode` in the company, its row shared (FOR KEY SHARE) until the
 * referral is written, so the account the referral names cannot go meanwhile: a phone merge that
 * deletes it (an idle account giving way) or moves it to the surviving user is waited for, and the
 * code is then looked up as the merge left it (a code deleted with its account is unknown: 404).
 * The holder is read by a later statement, once the row is ours. A code of a disabled user is no
 * code: their bonus would go to an account nobody can use. (A merge that retires a user moves their
 * accounts, codes included, to the surviving one first.)
 */
async function lockReferrer(
  client: Queryable,
  companyId: string,
  referralCode: string,
): Promise<{ id: string; user_id: string } | undefined> {
  const { rows: locked } = await client.query<{ id: string }>(
    `select id from loyalty_accounts where referral_code = $1 and company_id = $2 for key share`,
    [referralCode.trim().toUpperCase(), companyId],
  );
  if (!locked[0]) return undefined;
  const { rows } = await client.query<{ id: string; user_id: string }>(
    `select a.id, a.user_id from loyalty_accounts a join users u on u.id = a.user_id and u.status = 'ACTIVE'
      where a.id = $1`,
    [locked[0].id],
  );
  return rows[0];
}

/**
 * Has travelled with the company: boarded one of its trips on a booking of theirs (ownBookingSql:
 * owned, or made for their canonical passenger, as an imported booking is), or earned points there.
 * A check-in is the boarding, whatever the trip's status since: the booking is CHECKED_IN from the
 * check-in until COMPLETE makes it COMPLETED (it follows its tickets: CHECKED_IN when one of them is
 * USED), so a traveller aboard a bus that has not arrived, or whose company has not pressed COMPLETE
 * yet, is not new: a referral now would be rewarded at COMPLETE for a trip taken before it. Not travelled: a
 * NO_SHOW, a check-in undone by RESTORE (CONFIRMED again) and a booking a trip cancel ended (the
 * bus had not left: CANCELLED, its check-in undone). A refund does not undo a boarding.
 */
async function hasTravelled(
  client: Queryable,
  companyId: string,
  userId: string,
  accountId: string,
): Promise<boolean> {
  const { rows } = await client.query(
    `select 1 from bookings b
      where b.company_id = $1 and ${ownBookingSql('$2')} and b.status in ('CHECKED_IN', 'COMPLETED')
     union all
     select 1 from loyalty_transactions where account_id = $3 and kind = 'EARN'
     limit 1`,
    [companyId, userId, accountId],
  );
  return rows.length > 0;
}
