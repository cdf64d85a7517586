import { LoyaltyAdminRefusal } from '../../../domain/loyalty-admin.js';
import type { Database, TransactionClient } from '../../orm.js';
import { withDeadlockRetry } from '../../pg-errors.js';
import { lockAccount, post, shareProgramme, type AccountRow } from './account.js';
import { programmeCompany, rewardNotFound, type ProgrammeActor } from './admin-catalogue.js';
import { refundVoucher, type CancelledVoucher } from './voucher-return.js';
import { companyTransaction } from '../active-company.js';
import { recordStaffAudit } from '../audit.js';
import { answeredData, claimKey, keyedRequest, storeKeyAnswer } from '../keyed-write.js';

/**
 * Points the company moves by hand: a manual adjustment of one account, and the points of unused
 * vouchers returned when a reward is withdrawn. Each balance change locks its account row first
 * (lockAccount) in one transaction and leaves a ledger entry (kind ADJUST) naming the company user
 * who made it and the reason (ADJUST, or VOUCHER_REFUND for returned voucher points, which do not
 * count as points earned); a balance never goes below zero, and returned points stop at the
 * account's limit (2,147,483,647) as earned points do.
 */

export interface Adjustment {
  account: { id: string; balance: number; lifetimePoints: number };
  transaction: {
    id: string;
    kind: 'ADJUST';
    points: number;
    balanceAfter: number;
    reason: string;
    actorStaffUserId: string;
    createdAt: string;
  };
}

interface LedgerRow {
  id: string;
  points: number;
  balance_after: number;
  created_at: string;
}

/**
 * The account of the actor's company, locked as lockAccount locks it (the programme row shared
 * first, then the account FOR NO KEY UPDATE); another company's account is the same 404 as none.
 */
async function lockCompanyAccount(
  client: TransactionClient,
  companyId: string,
  accountId: string,
): Promise<AccountRow> {
  await shareProgramme(client, companyId);
  const { rows } = await client.query<AccountRow>(
    `select id, company_id, balance, lifetime_points from loyalty_accounts where id = $1 and company_id = $2 for no key update`,
    [accountId, companyId],
  );
  if (!rows[0])
    throw new LoyaltyAdminRefusal(404, 'LOYALTY_ACCOUNT_NOT_FOUND', 'No such account in the programme');
  return rows[0];
}

/** What a manual adjustment is asked: the account, the points (negative takes) and the reason. */
interface AdjustRequest {
  accountId: string;
  points: number;
  reason: string;
}

/**
 * POST /loyalty/accounts/{id}/adjust: adds (or takes, when negative) points with a reason. Two
 * adjustments of one account take turns on its row lock, so two that would each leave a balance
 * of zero or more but together a negative one end with one refused (409 LOYALTY_INSUFFICIENT_POINTS).
 * A positive adjustment also counts towards lifetime points (and the tier: a tier change at the same
 * moment takes turns with it on the programme row, so the account ends in the tier its lifetime
 * points reach whichever goes first). Audited as loyalty.account.adjust. Runs again on a deadlock.
 * With an Idempotency-Key (db/writes/keyed-write.ts), claimed per company before the account is
 * locked: the same key and request again answers the adjustment the first call made and moves
 * nothing; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED; a refused adjustment
 * keeps nothing under its key. Without one every call moves points.
 */
export async function adjustAccount(
  db: Database,
  input: AdjustRequest & { idempotencyKey?: string | undefined },
  actor: ProgrammeActor,
): Promise<Adjustment> {
  const { idempotencyKey, ...request } = input;
  const keyed =
    idempotencyKey === undefined
      ? null
      : keyedRequest(`loyalty-adjust:${actor.companyId}`, idempotencyKey, request);
  return withDeadlockRetry(() =>
    companyTransaction(db, programmeCompany(actor), 'share', async (client) => {
      const stored = keyed && (await claimKey(client, keyed, 'adjustment'));
      if (stored) return answeredData<Adjustment>(stored);
      const adjustment = await adjustLocked(client, request, actor);
      if (keyed)
        await storeKeyAnswer(client, keyed, { status: 200, body: { success: true, data: adjustment } });
      return adjustment;
    }),
  );
}

/** The adjustment itself, in the caller's transaction: the account locked, the entry posted and audited. */
async function adjustLocked(
  client: TransactionClient,
  input: AdjustRequest,
  actor: ProgrammeActor,
): Promise<Adjustment> {
  const account = await lockCompanyAccount(client, actor.companyId, input.accountId);
  await post(client, account, {
    accountId: account.id,
    companyId: account.company_id,
    kind: 'ADJUST',
    points: input.points,
    actorStaffUserId: actor.staffUserId,
    reason: input.reason,
  });
  // The account is locked: the newest entry is the one just written.
  const { rows } = await client.query<LedgerRow>(
    `select id, points, balance_after, created_at from loyalty_transactions
      where account_id = $1 order by created_at desc, id desc limit 1`,
    [account.id],
  );
  const entry = rows[0]!;
  await recordStaffAudit(
    client,
    actor,
    'loyalty.account.adjust',
    { kind: 'loyalty_account', id: account.id },
    { points: input.points, reason: input.reason, balanceAfter: entry.balance_after },
  );
  return {
    account: { id: account.id, balance: account.balance, lifetimePoints: account.lifetime_points },
    transaction: {
      id: entry.id,
      kind: 'ADJUST',
      points: entry.points,
      balanceAfter: entry.balance_after,
      reason: input.reason,
      actorStaffUserId: actor.staffUserId,
      createdAt: new Date(entry.created_at).toISOString(),
    },
  };
}

export interface Withdrawal {
  rewardId: string;
  /** true: the reward was never redeemed and is gone; false: it is archived (its vouchers exist). */
  removed: boolean;
  vouchersCancelled: number;
  pointsReturned: number;
}

interface RewardLockRow {
  id: string;
  code: string;
  archived: boolean;
  redeemed: boolean;
}

/** Step 1: remove a reward never redeemed, else archive it so no voucher of it can be issued any more. */
async function retireReward(
  db: Database,
  rewardId: string,
  actor: ProgrammeActor,
): Promise<RewardLockRow & { removed: boolean }> {
  // The company first (db/writes/active-company.ts): none after its suspension or unverification.
  // Step 2 finishes a withdrawal step 1 committed, so it does not ask again.
  return companyTransaction(db, programmeCompany(actor), 'share', async (client) => {
    const { rows } = await client.query<Omit<RewardLockRow, 'redeemed'>>(
      `select id, code, archived_at is not null as archived
         from loyalty_rewards where id = $1 and company_id = $2 for update`,
      [rewardId, actor.companyId],
    );
    const locked = rows[0];
    if (!locked) throw rewardNotFound();
    // Its vouchers read once the reward is locked (a statement of its own: one that waited for the
    // lock would still see the vouchers as they were when it began, without a redeem just committed).
    const { rows: vouchers } = await client.query<{ redeemed: boolean }>(
      `select exists (select 1 from loyalty_redemptions where reward_id = $1) as redeemed`,
      [locked.id],
    );
    const reward = { ...locked, redeemed: vouchers[0]!.redeemed };
    if (reward.archived) return { ...reward, removed: false };
    if (reward.redeemed) {
      await client.query(
        `update loyalty_rewards set archived_at = now(), active = false, updated_at = now() where id = $1`,
        [reward.id],
      );
    } else {
      await client.query(`delete from loyalty_rewards where id = $1`, [reward.id]);
    }
    await recordStaffAudit(
      client,
      actor,
      reward.redeemed ? 'loyalty.reward.withdraw' : 'loyalty.reward.delete',
      { kind: 'loyalty_reward', id: reward.id },
      { code: reward.code },
    );
    return { ...reward, removed: !reward.redeemed };
  });
}

/**
 * Step 2: every unused, unexpired voucher of the archived reward is cancelled and its points are
 * returned. Accounts are locked in id order; no new voucher can appear (the reward is archived),
 * and a voucher used meanwhile is no longer ISSUED, so nothing is returned twice. No voucher turns
 * ISSUED behind this step's read either: a trip cancel giving one back reads the reward under a
 * share lock, which waited for step 1, so it cancels and refunds the voucher itself
 * (giveBackVouchers, voucher-return.ts).
 */
async function returnVoucherPoints(
  db: Database,
  reward: { id: string; code: string },
  actor: ProgrammeActor,
): Promise<{ vouchersCancelled: number; pointsReturned: number }> {
  // Run again as a deadlock's victim: a trip's points award locks a referee, then the referrer.
  return withDeadlockRetry(() =>
    db.transaction(async (client) => {
      const { rows: holders } = await client.query<{ account_id: string }>(
        `select distinct account_id from loyalty_redemptions
        where reward_id = $1 and status = 'ISSUED' and expires_at > now() order by account_id`,
        [reward.id],
      );
      const accounts = new Map<string, AccountRow>();
      for (const { account_id } of holders) accounts.set(account_id, await lockAccount(client, account_id));
      const { rows: vouchers } = await client.query<CancelledVoucher>(
        `update loyalty_redemptions set status = 'CANCELLED'
        where reward_id = $1 and status = 'ISSUED' and expires_at > now() and account_id = any($2::uuid[])
        returning id, account_id, points_used`,
        [reward.id, [...accounts.keys()]],
      );
      let pointsReturned = 0;
      for (const voucher of vouchers) {
        pointsReturned += await refundVoucher(client, accounts.get(voucher.account_id)!, voucher, {
          rewardCode: reward.code,
          actorStaffUserId: actor.staffUserId,
        });
      }
      return { vouchersCancelled: vouchers.length, pointsReturned };
    }),
  );
}

/**
 * DELETE /loyalty/rewards/{id}: a reward never redeemed is deleted; one with vouchers is archived
 * (its code stays taken) and its unused vouchers are cancelled with their points returned. Asking
 * again for an archived reward finishes step 2 if it was interrupted (and returns nothing twice).
 */
export async function withdrawReward(
  db: Database,
  rewardId: string,
  actor: ProgrammeActor,
): Promise<Withdrawal> {
  const reward = await retireReward(db, rewardId, actor);
  if (reward.removed) return { rewardId, removed: true, vouchersCancelled: 0, pointsReturned: 0 };
  return { rewardId, removed: false, ...(await returnVoucherPoints(db, reward, actor)) };
}
