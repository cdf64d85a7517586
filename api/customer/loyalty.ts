import type { Context } from 'koa';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import {
  loyaltyAccount,
  loyaltyReferral,
  loyaltyRewards,
  loyaltyTransactions,
  previewVoucherOn,
  redeemInProgram,
  useReferral,
  type LoyaltyCaller,
} from '../use-cases/loyalty.js';
import {
  ACCOUNT_RULES,
  AccountAnswer,
  AccountQuery,
  CompanyQuery,
  Preview,
  PREVIEW_RULES,
  PreviewBody,
  REDEEM_RULES,
  RedeemBody,
  Redeemed,
  Referral,
  REFERRAL_RULES,
  ReferralBody,
  ReferralRecorded,
  REWARDS_RULES,
  RewardsResponse,
  TRANSACTIONS_RULES,
  TransactionsQuery,
  TransactionsResponse,
  USE_REFERRAL_RULES,
} from './loyalty.openapi.js';

/**
 * Customer loyalty (SPEC "Payments and loyalty"): the account and its ledger, referrals, and
 * vouchers (redeem, preview). The rules and schemas are in loyalty.openapi.ts, the work in
 * api/use-cases/loyalty.ts.
 */

type Loyalty = Pick<AppContext, 'db'> & { callerOf: (ctx: Context) => LoyaltyCaller };

export function registerLoyaltyRoutes(surface: Surface, { db }: AppContext): void {
  const loyalty: Loyalty = {
    db,
    callerOf: (ctx) => ({ userId: ctx.state.traveller!.userId, scope: ctx.state.scope }),
  };
  registerAccountRoutes(surface, loyalty);
  registerReferralRoutes(surface, loyalty);
  registerVoucherRoutes(surface, loyalty);
}

function registerAccountRoutes(surface: Surface, { db, callerOf }: Loyalty): void {
  surface.route({
    method: 'get',
    path: '/loyalty/account',
    operationId: 'getLoyaltyAccount',
    summary: 'Loyalty programs, or your account in one company’s program',
    description: ACCOUNT_RULES,
    tags: ['Loyalty'],
    security: 'traveller',
    query: AccountQuery,
    responses: {
      200: { description: 'Programs, or one account', schema: AccountAnswer },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { query }) => {
      ctx.body = { success: true, data: await loyaltyAccount(db, callerOf(ctx), query.companyId) };
    },
  });

  surface.route({
    method: 'get',
    path: '/loyalty/rewards',
    operationId: 'listLoyaltyRewards',
    summary: 'Rewards you can redeem in one company’s program',
    description: REWARDS_RULES,
    tags: ['Loyalty'],
    security: 'traveller',
    query: CompanyQuery,
    responses: { 200: { description: 'Rewards', schema: RewardsResponse }, ...errorResponses(400, 401, 404) },
    handler: async (ctx, { query }) => {
      ctx.body = { success: true, data: await loyaltyRewards(db, callerOf(ctx), query.companyId) };
    },
  });

  surface.route({
    method: 'get',
    path: '/loyalty/transactions',
    operationId: 'listLoyaltyTransactions',
    summary: 'Your points ledger in one company’s program, newest first',
    description: TRANSACTIONS_RULES,
    tags: ['Loyalty'],
    security: 'traveller',
    query: TransactionsQuery,
    responses: {
      200: { description: 'One page of transactions', schema: TransactionsResponse },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { query }) => {
      ctx.body = { success: true, data: await loyaltyTransactions(db, callerOf(ctx), query) };
    },
  });
}

function registerReferralRoutes(surface: Surface, { db, callerOf }: Loyalty): void {
  surface.route({
    method: 'get',
    path: '/loyalty/referral',
    operationId: 'getLoyaltyReferral',
    summary: 'Your referral code in one company’s program and how it has done',
    description: REFERRAL_RULES,
    tags: ['Loyalty'],
    security: 'traveller',
    query: CompanyQuery,
    responses: {
      200: { description: 'Referral code and stats', schema: Referral },
      ...errorResponses(400, 401, 404),
    },
    handler: async (ctx, { query }) => {
      ctx.body = { success: true, data: await loyaltyReferral(db, callerOf(ctx), query.companyId) };
    },
  });

  surface.route({
    method: 'post',
    path: '/loyalty/referral',
    operationId: 'useLoyaltyReferral',
    summary: 'Say who referred you to a company',
    description: USE_REFERRAL_RULES,
    tags: ['Loyalty'],
    security: 'traveller',
    body: ReferralBody,
    responses: {
      201: { description: 'Referral recorded', schema: ReferralRecorded },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      const referral = await useReferral(db, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = { success: true, data: { referral: { id: referral.referralId, status: referral.status } } };
    },
  });
}

function registerVoucherRoutes(surface: Surface, { db, callerOf }: Loyalty): void {
  surface.route({
    method: 'post',
    path: '/loyalty/redeem',
    operationId: 'redeemLoyaltyReward',
    summary: 'Spend points on a reward and get a voucher',
    description: REDEEM_RULES,
    tags: ['Loyalty'],
    security: 'traveller',
    body: RedeemBody,
    responses: {
      201: { description: 'Voucher created', schema: Redeemed },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      const { id, code, pointsUsed, expiresAt } = await redeemInProgram(db, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = { success: true, redemption: { id, code, pointsUsed, expiresAt: expiresAt.toISOString() } };
    },
  });

  surface.route({
    method: 'post',
    path: '/loyalty/preview',
    operationId: 'previewLoyaltyVoucher',
    summary: 'What a voucher would take off a purchase (consumes nothing)',
    description: PREVIEW_RULES,
    tags: ['Loyalty'],
    security: 'traveller',
    body: PreviewBody,
    responses: {
      200: { description: 'The voucher applies', schema: Preview },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (ctx, { body }) => {
      ctx.body = { success: true, ...(await previewVoucherOn(db, callerOf(ctx), body)) };
    },
  });
}
