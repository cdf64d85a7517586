import { randomBytes } from 'node:crypto';
import { redeemRefusal, voucherCodeFrom, type RedeemableReward } from '../../../domain/loyalty.js';
import type { Database } from '../../orm.js';
import { rewardTermsOf, type RewardTermsRow } from '../../queries/loyalty.js';
import { lockActiveTraveller } from '../inventory-caps.js';
import { ensureAccount, lockAccount, openAccount, post, type Queryable } from './account.js';
import { claimRedeemKey, storeRedeemAnswer } from './redeem-key.js';
import { LoyaltyRefusal } from './refusal.js';

export interface Redemption {
  id: string;
  code: string;
  pointsUsed: number;
  expiresAt: Date;
}

interface RewardRow extends RewardTermsRow {
  id: string;
  type: string;
  active: boolean;
  points_cost: number;
  max_redemptions: number | null;
  redemption_count: number;
  voucher_valid_days: number;
}

const toRedeemableReward = (row: RewardRow): RedeemableReward => ({
  active: row.active,
  terms: rewardTermsOf(row),
  pointsCost: row.points_cost,
  maxRedemptions: row.max_redemptions,
  redemptionCount: row.redemption_count,
});

/** The reward of the program with this catalogue code, locked (FOR UPDATE) so its counter is ours. */
async function lockReward(
  client: Queryable,
  companyId: string,
  rewardCode: string,
): Promise<RewardRow | undefined> {
  const { rows } = await client.query<RewardRow>(
    `select id, type, active, points_cost, max_redemptions, redemption_count, voucher_valid_days,
            discount_percent, discount_amount, max_discount, free_seats, min_subtotal,
            route_ids::text[] as route_ids, allowed_days
       from loyalty_rewards
      where company_id = $1 and code = $2 and archived_at is null
      for update`,
    [companyId, rewardCode],
  );
  return rows[0];
}

/**
 * The company's programme row, FOR SHARE: a change of its terms (saveProgramTerms, FOR NO KEY
 * UPDATE) waits for redeems in flight, and a redeem that waited for one reads the terms it left.
 * Taken before the account, as the programme's tier changes lock the programme, then the accounts.
 * A programme switched off since the caller's check is 404 LOYALTY_PROGRAM_NOT_FOUND, as for none.
 */
async function shareActiveProgram(client: Queryable, companyId: string): Promise<void> {
  const { rows } = await client.query<{ active: boolean }>(
    `select active from loyalty_programs where company_id = $1 for share`,
    [companyId],
  );
  if (!rows[0]?.active) {
    throw new LoyaltyRefusal(
      'LOYALTY_PROGRAM_NOT_FOUND',
      'No loyalty program for this company',
      undefined,
      404,
    );
  }
}

/**
 * POST /loyalty/redeem: in ONE transaction locks the traveller's users row (401 AUTH_REQUIRED once
 * it is no longer ACTIVE), claims the request's Idempotency-Key when it has one (redeem-key.ts: a
 * retry answers the voucher already made; the same key with another body is 409
 * IDEMPOTENCY_KEY_REUSED), shares the programme row (404 LOYALTY_PROGRAM_NOT_FOUND once it is
 * switched off), locks their account in the company, then the reward row, checks the reward
 * (active, redeemable type, sane configuration, not sold out) and the balance, deducts the points,
 * bumps the redemption counter, records the REDEEM transaction, creates the voucher and stores it
 * as the key's answer. Concurrent redeems on one account run one after another, so a balance that
 * covers one reward yields exactly one voucher. Without a key every call redeems anew.
 */
export async function redeemReward(
  db: Database,
  input: { companyId: string; userId: string; rewardCode: string; idempotencyKey?: string | undefined },
): Promise<Redemption> {
  // Opened first on its own: a redeem refused below still leaves the traveller's account open.
  await openAccount(db, input.companyId, input.userId);
  return db.transaction(async (client) => {
    // The traveller first, as complete-phone locks them before their loyalty accounts: a session of
    // an account merged away while this waited is refused (401), so no voucher names a disabled user.
    await lockActiveTraveller(client, input.userId);
    const claim = input.idempotencyKey ? await claimRedeemKey(client, input, input.idempotencyKey) : null;
    if (claim && 'replay' in claim) return claim.replay;
    await shareActiveProgram(client, input.companyId);
    // Read again once the traveller is ours: a merge meanwhile may have replaced an idle account.
    const accountId = await ensureAccount(client, input.companyId, input.userId);
    const account = await lockAccount(client, accountId);
    const found = await lockReward(client, input.companyId, input.rewardCode);
    const refusal = redeemRefusal(found && toRedeemableReward(found), account.balance);
    if (refusal) throw LoyaltyRefusal.of(refusal);
    // redeemRefusal refuses a code no reward has, so there is one here.
    const reward = found!;
    await client.query(
      `update loyalty_rewards set redemption_count = redemption_count + 1, updated_at = now() where id = $1`,
      [reward.id],
    );
    const voucher = await insertVoucher(client, {
      accountId,
      companyId: input.companyId,
      rewardId: reward.id,
      userId: input.userId,
      pointsUsed: reward.points_cost,
      validDays: reward.voucher_valid_days,
    });
    await post(client, account, {
      accountId,
      companyId: input.companyId,
      kind: 'REDEEM',
      points: -reward.points_cost,
      redemptionId: voucher.id,
    });
    if (claim) await storeRedeemAnswer(client, claim.record, voucher);
    return voucher;
  });
}

interface InsertedVoucherRow {
  id: string;
  code: string;
  /** timestamptz, as PostgreSQL text. */
  expires_at: string;
}

async function insertVoucher(
  client: Queryable,
  input: {
    accountId: string;
    companyId: string;
    rewardId: string;
    userId: string;
    pointsUsed: number;
    validDays: number;
  },
): Promise<Redemption> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    // "do nothing" on a code collision keeps the transaction alive for another try.
    const { rows } = await client.query<InsertedVoucherRow>(
      `insert into loyalty_redemptions (code, account_id, company_id, reward_id, user_id, points_used, expires_at)
       values ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7))
       on conflict (code) do nothing
       returning id, code, expires_at`,
      [
        voucherCodeFrom(randomBytes(8)),
        input.accountId,
        input.companyId,
        input.rewardId,
        input.userId,
        input.pointsUsed,
        input.validDays,
      ],
    );
    const row = rows[0];
    if (row)
      return {
        id: row.id,
        code: row.code,
        pointsUsed: input.pointsUsed,
        expiresAt: new Date(row.expires_at),
      };
  }
  throw new Error('could not create a unique voucher code');
}
