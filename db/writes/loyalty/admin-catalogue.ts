import { withDeadlockRetry } from '../../pg-errors.js';
import { LockMode } from '@mikro-orm/postgresql';
import {
  LoyaltyAdminRefusal,
  redemptionLimitRefusal,
  rewardDefinitionRefusal,
  routesNotRunRefusal,
  type RewardDefinition,
} from '../../../domain/loyalty-admin.js';
import type { Refusal } from '../../../domain/refusal.js';
import { LoyaltyProgram, LoyaltyReward, LoyaltyTier } from '../../entities/loyalty.js';
import type { Database, TransactionClient } from '../../orm.js';
import {
  readAdminReward,
  readProgramTerms,
  routesNotRun,
  type AdminReward,
  type ProgramTerms,
} from '../../queries/loyalty-admin.js';
import type { TierView } from '../../queries/loyalty.js';
import type { ActingMember } from '../acting-member.js';
import { companyTransaction, type WriteCompany } from '../active-company.js';
import { recordStaffAudit, type RequestOrigin } from '../audit.js';
import { flushUnlessTaken } from '../flush-unique.js';

/**
 * The company's loyalty programme, its tiers and its reward catalogue, written by OWNER or ADMIN
 * through the dashboard (CRUD through the transaction's EntityManager, each change audited in the
 * same transaction). The company is always the session's; a tier or reward of another company is
 * the same 404 as one that does not exist.
 */

/** Who changes the programme, and from where (for the audit log). */
export interface ProgrammeActor extends RequestOrigin {
  companyId: string;
  staffUserId: string;
  /** The dashboard member, checked again under the company lock (db/writes/acting-member.ts). */
  actor?: ActingMember | undefined;
}

/**
 * The company a programme write takes first (companyTransaction): active and still verified, as the
 * route's guard let it in (SPEC: loyalty programme writes are for a verified company), with the
 * member checked again; a suspension or unverification committed while the write waited refuses it.
 */
export const programmeCompany = (actor: ProgrammeActor): WriteCompany => ({
  companyId: actor.companyId,
  actor: actor.actor,
  requireVerified: true,
});

/** Flushes the EntityManager in a savepoint; a unique key taken becomes `refusal`, the transaction still usable. */
async function flushUnique(client: TransactionClient, refusal: Refusal): Promise<void> {
  if (!(await flushUnlessTaken(client))) throw refusal;
}

export interface ProgramTermsInput {
  nameAr: string;
  nameEn: string;
  active: boolean;
  pointsPer100: number;
  referralPoints: number;
}

/** PUT /loyalty: creates the programme or replaces its terms (loyalty.program.update). */
export async function saveProgramTerms(
  db: Database,
  terms: ProgramTermsInput,
  actor: ProgrammeActor,
): Promise<ProgramTerms> {
  return companyTransaction(db, programmeCompany(actor), 'share', async (client) => {
    const em = client.em;
    // The first change creates the programme (a second one at once waits for it and changes
    // nothing here); then the row is locked, so two changes of the terms take turns.
    await client.query(
      `insert into loyalty_programs (company_id, name_ar, name_en, active, points_per_100, referral_points)
       values ($1, $2, $3, $4, $5, $6) on conflict (company_id) do nothing`,
      [actor.companyId, terms.nameAr, terms.nameEn, terms.active, terms.pointsPer100, terms.referralPoints],
    );
    await lockProgram(client, actor.companyId);
    const program = await em.findOneOrFail(LoyaltyProgram, actor.companyId);
    em.assign(program, terms);
    await em.flush();
    const target = { kind: 'company', id: actor.companyId };
    await recordStaffAudit(client, actor, 'loyalty.program.update', target, { terms });
    return (await readProgramTerms(client, actor.companyId))!;
  });
}

const programMissing = () =>
  new LoyaltyAdminRefusal(
    409,
    'LOYALTY_PROGRAM_NOT_FOUND',
    'Set up the loyalty programme first (PUT /loyalty)',
  );

/**
 * The programme row, locked: changes of the terms, tiers and rewards of one company take turns.
 * FOR NO KEY UPDATE: the company's loyalty rows refer to it, and their inserts (a voucher, a ledger
 * entry of a redeem holding its reward) must not wait for a catalogue change that waits for them.
 * Every write of an account's points or tier shares this row before it takes the account
 * (account.ts shareProgramme), so it and a tier change take turns.
 */
async function lockProgram(client: TransactionClient, companyId: string): Promise<void> {
  const { rows } = await client.query(
    `select company_id from loyalty_programs where company_id = $1 for no key update`,
    [companyId],
  );
  if (!rows[0]) throw programMissing();
}

export interface TierInput {
  nameAr: string;
  nameEn: string;
  minLifetimePoints: number;
  multiplierPercent: number;
}

const thresholdTaken = (minLifetimePoints: number) =>
  new LoyaltyAdminRefusal(
    409,
    'LOYALTY_TIER_THRESHOLD_TAKEN',
    'Another tier of the programme starts at these points',
    {
      minLifetimePoints,
    },
  );

/**
 * Every account's tier follows its lifetime points again after a tier changed. Runs under the
 * programme lock, which every points write and new account shares first (account.ts): none is in
 * flight here, each committed before (and is re-sorted) or waits and then reads the new tiers.
 */
async function reassignTiers(client: TransactionClient, companyId: string): Promise<void> {
  await client.query(
    `update loyalty_accounts a set tier_id = t.tier_id, updated_at = now()
       from (select a2.id,
                    (select t.id from loyalty_tiers t
                      where t.company_id = a2.company_id and t.min_lifetime_points <= a2.lifetime_points
                      order by t.min_lifetime_points desc limit 1) as tier_id
               from loyalty_accounts a2 where a2.company_id = $1) t
      where a.id = t.id and a.tier_id is distinct from t.tier_id`,
    [companyId],
  );
}

/**
 * POST and PUT /loyalty/tiers: a tier of the programme (loyalty.tier.create / loyalty.tier.update).
 * It waits for the points writes in flight (they share the programme row) and they wait for it, so
 * no account is left in a tier its lifetime points do not reach. Runs again on a deadlock.
 */
export async function saveTier(
  db: Database,
  input: { tierId?: string; tier: TierInput },
  actor: ProgrammeActor,
): Promise<TierView> {
  return withDeadlockRetry(() =>
    companyTransaction(db, programmeCompany(actor), 'share', async (client) => {
      await lockProgram(client, actor.companyId);
      const em = client.em;
      let tier;
      if (input.tierId) {
        tier = await em.findOne(LoyaltyTier, { id: input.tierId, companyId: actor.companyId });
        if (!tier)
          throw new LoyaltyAdminRefusal(404, 'LOYALTY_TIER_NOT_FOUND', 'No such tier in the programme');
        em.assign(tier, input.tier);
      } else {
        tier = em.create(LoyaltyTier, { companyId: actor.companyId, ...input.tier });
      }
      await flushUnique(client, thresholdTaken(input.tier.minLifetimePoints));
      await reassignTiers(client, actor.companyId);
      const action = input.tierId ? 'loyalty.tier.update' : 'loyalty.tier.create';
      const target = { kind: 'loyalty_tier', id: tier.id };
      await recordStaffAudit(client, actor, action, target, { tier: input.tier });
      return {
        id: tier.id,
        nameAr: tier.nameAr,
        nameEn: tier.nameEn,
        minLifetimePoints: tier.minLifetimePoints,
        multiplierPercent: tier.multiplierPercent,
      };
    }),
  );
}

const codeTaken = (code: string) =>
  new LoyaltyAdminRefusal(409, 'LOYALTY_REWARD_CODE_TAKEN', 'Another reward of the programme has this code', {
    code,
  });

export const rewardNotFound = () =>
  new LoyaltyAdminRefusal(404, 'LOYALTY_REWARD_NOT_FOUND', 'No such reward in the programme');

/** The reward's definition is sane and names only routes the company runs. */
async function checkDefinition(
  client: TransactionClient,
  companyId: string,
  reward: RewardDefinition,
): Promise<void> {
  const refusal = rewardDefinitionRefusal(reward);
  if (refusal) throw refusal;
  const foreign = await routesNotRun(client, companyId, reward.routeIds);
  if (foreign.length > 0) throw routesNotRunRefusal(foreign);
}

/**
 * POST and PUT /loyalty/rewards: a reward of the catalogue (loyalty.reward.create / .update). An
 * edit changes the reward for vouchers issued from now on; vouchers already issued keep the terms
 * they were issued with (loyalty_redemptions.terms).
 */
export async function saveReward(
  db: Database,
  input: { rewardId?: string; reward: RewardDefinition },
  actor: ProgrammeActor,
): Promise<AdminReward> {
  return companyTransaction(db, programmeCompany(actor), 'share', async (client) => {
    await lockProgram(client, actor.companyId);
    await checkDefinition(client, actor.companyId, input.reward);
    const em = client.em;
    let reward;
    if (input.rewardId) {
      // Locked: a redeem bumps the count under this lock, so the limit is judged by the count it
      // leaves; a reward withdrawn meanwhile is not found.
      reward = await em.findOne(
        LoyaltyReward,
        { id: input.rewardId, companyId: actor.companyId, archivedAt: null },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!reward) throw rewardNotFound();
      const limit = redemptionLimitRefusal(input.reward.maxRedemptions, reward.redemptionCount);
      if (limit) throw limit;
      em.assign(reward, input.reward);
    } else {
      reward = em.create(LoyaltyReward, { companyId: actor.companyId, ...input.reward });
    }
    await flushUnique(client, codeTaken(input.reward.code));
    const action = input.rewardId ? 'loyalty.reward.update' : 'loyalty.reward.create';
    const target = { kind: 'loyalty_reward', id: reward.id };
    await recordStaffAudit(client, actor, action, target, { reward: input.reward });
    return readAdminReward(client, reward.id);
  });
}
