import type { Context } from 'koa';
import type { z } from 'zod';
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
import type { StaffPrincipal } from '../auth/staff-session.js';
import { created, ok } from '../http/respond.js';
import type { Infer, OperationDoc, Surface } from '../http/route.js';
import { IdParams } from '../http/schemas.js';
import { settingsErrorCode as sessionFieldCode } from './booking-settings.openapi.js';
import {
  actingMember,
  allow,
  MANAGEMENT_ROLES,
  requireActiveCompany,
  requireRole,
  requireVerifiedCompany,
  SENSITIVE_ROLES,
} from './guards.js';
import { staffRoute } from './staff-route.js';
import {
  AccountsQuery,
  AdjustBody,
  AdjustHeaders,
  docs,
  ProgramBody,
  RewardBody,
  TierBody,
} from './loyalty.openapi.js';
import { requestOrigin } from '../http/request-origin.js';

/**
 * A programme write's guard: OWNER or ADMIN of an active, verified company. It runs before the input
 * is read (staffRoute), so another role or an unverified company gets its 403 whatever it sends.
 */
const manager = allow(requireRole(...MANAGEMENT_ROLES), requireActiveCompany, requireVerifiedCompany);

/** The manager the guard let through, as the actor of a programme write. */
const actorOf = (ctx: Context, staff: StaffPrincipal): ProgrammeActor => ({
  companyId: staff.companyId,
  staffUserId: staff.staffUserId,
  ...requestOrigin(ctx),
  actor: actingMember(staff, MANAGEMENT_ROLES),
});

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

  staffRoute(surface, manager, {
    ...docs.putLoyaltyProgramme,
    errorCode: sessionFieldCode,
    method: 'put',
    path: '/loyalty',
    body: ProgramBody,
    handler: async (ctx, staff, { body }) => {
      ok(ctx, await saveProgramTerms(db, body, actorOf(ctx, staff)));
    },
  });

  registerCatalogueWrites(surface, {
    path: '/loyalty/tiers',
    body: TierBody,
    docs: { create: docs.createLoyaltyTier, update: docs.updateLoyaltyTier },
    save: (tier, tierId, actor) => saveTier(db, { tierId, tier }, actor),
  });

  staffRoute(surface, manager, {
    ...docs.adjustLoyaltyAccount,
    errorCode: sessionFieldCode,
    method: 'post',
    path: '/loyalty/accounts/{id}/adjust',
    params: IdParams,
    body: AdjustBody,
    headers: AdjustHeaders,
    handler: async (ctx, staff, { params, body, headers }) => {
      const input = { accountId: params.id, ...body, idempotencyKey: headers['Idempotency-Key'] };
      ok(ctx, await adjustAccount(db, input, actorOf(ctx, staff)));
    },
  });
}

/**
 * POST `path` adds an entry to the programme's catalogue (201), PUT `path`/{id} changes one and,
 * where entries can be withdrawn, DELETE `path`/{id} withdraws one: the tiers and the rewards,
 * each saved by one write that tells a new entry by its missing id.
 */
function registerCatalogueWrites<B extends z.ZodType>(
  surface: Surface,
  catalogue: {
    path: string;
    body: B;
    docs: { create: OperationDoc; update: OperationDoc };
    save: (entry: Infer<B>, id: string | undefined, actor: ProgrammeActor) => Promise<unknown>;
    withdraw?: { doc: OperationDoc; write: (id: string, actor: ProgrammeActor) => Promise<unknown> };
  },
): void {
  const { path, body: Body, save, withdraw } = catalogue;
  staffRoute(surface, manager, {
    ...catalogue.docs.create,
    errorCode: sessionFieldCode,
    method: 'post',
    path,
    body: Body,
    handler: async (ctx, staff, { body }) => {
      created(ctx, await save(body, undefined, actorOf(ctx, staff)));
    },
  });
  staffRoute(surface, manager, {
    ...catalogue.docs.update,
    errorCode: sessionFieldCode,
    method: 'put',
    path: `${path}/{id}`,
    params: IdParams,
    body: Body,
    handler: async (ctx, staff, { params, body }) => {
      ok(ctx, await save(body, params.id, actorOf(ctx, staff)));
    },
  });
  if (!withdraw) return;
  staffRoute(surface, manager, {
    ...withdraw.doc,
    errorCode: sessionFieldCode,
    method: 'delete',
    path: `${path}/{id}`,
    params: IdParams,
    handler: async (ctx, staff, { params }) => {
      ok(ctx, await withdraw.write(params.id, actorOf(ctx, staff)));
    },
  });
}

/** POST, PUT and DELETE /loyalty/rewards: the reward catalogue. */
function registerRewardRoutes(surface: Surface, { db }: AppContext): void {
  registerCatalogueWrites(surface, {
    path: '/loyalty/rewards',
    body: RewardBody,
    docs: { create: docs.createLoyaltyReward, update: docs.updateLoyaltyReward },
    save: (reward, rewardId, actor) => saveReward(db, { rewardId, reward }, actor),
    withdraw: {
      doc: docs.deleteLoyaltyReward,
      write: (rewardId, actor) => withdrawReward(db, rewardId, actor),
    },
  });
}
