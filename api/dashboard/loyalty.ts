import type { Context } from 'koa';
import { listAdminAccounts, listAdminRewards, readProgramTerms } from '../../db/queries/loyalty-admin.js';
import { listTiers } from '../../db/queries/loyalty.js';
import { adjustAccount, withdrawReward } from '../../db/writes/loyalty/admin-balances.js';
import {
  saveProgramTerms,
  saveReward,
  saveTier,
  type ProgrammeActor,
} from '../../db/writes/loyalty/admin-catalogue.js';
import type { AppContext } from '../app.js';
import { created, ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { settingsErrorCode as sessionFieldCode } from './booking-settings.openapi.js';
import {
  allow,
  authorize,
  MANAGEMENT_ROLES,
  requireActiveCompany,
  requireRole,
  requireVerifiedCompany,
  SENSITIVE_ROLES,
} from './guards.js';
import { staffRoute } from './staff-route.js';
import { AccountsQuery, AdjustBody, docs, ProgramBody, RewardBody, TierBody } from './loyalty.openapi.js';

/** The signed-in manager, as the actor of a programme write. */
function managerOf(ctx: Context): ProgrammeActor {
  const staff = authorize(
    ctx,
    requireRole(...MANAGEMENT_ROLES),
    requireActiveCompany,
    requireVerifiedCompany,
  );
  return {
    companyId: staff.companyId,
    staffUserId: staff.staffUserId,
    ip: ctx.ip,
    requestId: ctx.state.requestId,
  };
}

const WRITE = { security: 'companyStaff', errorCode: sessionFieldCode } as const;

/**
 * The company's loyalty programme (SPEC "Company dashboard API", loyalty rows and "Loyalty program
 * writes"): GET and PUT /loyalty, rewards, tiers and manual adjustments. Writes need OWNER or ADMIN
 * of an active, verified company; the company is always the session's.
 */
export function registerLoyaltyProgrammeRoutes(surface: Surface, context: AppContext): void {
  registerProgrammeRoutes(surface, context);
  registerRewardRoutes(surface, context);
}

/** GET and PUT /loyalty, tiers and manual adjustments. */
function registerProgrammeRoutes(surface: Surface, { db }: AppContext): void {
  staffRoute(surface, allow(requireRole(...SENSITIVE_ROLES)), {
    ...docs.getLoyaltyProgramme,
    method: 'get',
    path: '/loyalty',
    query: AccountsQuery,
    handler: async (ctx, { companyId }, { query }) => {
      const [program, tiers, rewards, page] = await Promise.all([
        readProgramTerms(db, companyId),
        listTiers(db, companyId),
        listAdminRewards(db, companyId),
        listAdminAccounts(db, companyId, query),
      ]);
      ctx.body = {
        success: true,
        data: { program, tiers, rewards, accounts: page.accounts },
        pagination: { limit: query.limit, offset: query.offset, total: page.total },
      };
    },
  });

  surface.route({
    ...docs.putLoyaltyProgramme,
    ...WRITE,
    method: 'put',
    path: '/loyalty',
    body: ProgramBody,
    handler: async (ctx, { body }) => {
      ok(ctx, await saveProgramTerms(db, body, managerOf(ctx)));
    },
  });

  surface.route({
    ...docs.createLoyaltyTier,
    ...WRITE,
    method: 'post',
    path: '/loyalty/tiers',
    body: TierBody,
    handler: async (ctx, { body }) => {
      const tier = await saveTier(db, { tier: body }, managerOf(ctx));
      created(ctx, tier);
    },
  });

  surface.route({
    ...docs.updateLoyaltyTier,
    ...WRITE,
    method: 'put',
    path: '/loyalty/tiers/{id}',
    params: IdParams,
    body: TierBody,
    handler: async (ctx, { params, body }) => {
      ok(ctx, await saveTier(db, { tierId: params.id, tier: body }, managerOf(ctx)));
    },
  });

  surface.route({
    ...docs.adjustLoyaltyAccount,
    ...WRITE,
    method: 'post',
    path: '/loyalty/accounts/{id}/adjust',
    params: IdParams,
    body: AdjustBody,
    handler: async (ctx, { params, body }) => {
      ok(ctx, await adjustAccount(db, { accountId: params.id, ...body }, managerOf(ctx)));
    },
  });
}

/** POST, PUT and DELETE /loyalty/rewards: the reward catalogue. */
function registerRewardRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    ...docs.createLoyaltyReward,
    ...WRITE,
    method: 'post',
    path: '/loyalty/rewards',
    body: RewardBody,
    handler: async (ctx, { body }) => {
      const reward = await saveReward(db, { reward: body }, managerOf(ctx));
      created(ctx, reward);
    },
  });

  surface.route({
    ...docs.updateLoyaltyReward,
    ...WRITE,
    method: 'put',
    path: '/loyalty/rewards/{id}',
    params: IdParams,
    body: RewardBody,
    handler: async (ctx, { params, body }) => {
      ok(ctx, await saveReward(db, { rewardId: params.id, reward: body }, managerOf(ctx)));
    },
  });

  surface.route({
    ...docs.deleteLoyaltyReward,
    ...WRITE,
    method: 'delete',
    path: '/loyalty/rewards/{id}',
    params: IdParams,
    handler: async (ctx, { params }) => {
      ok(ctx, await withdrawReward(db, params.id, managerOf(ctx)));
    },
  });
}
