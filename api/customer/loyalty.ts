import type { Context } from 'koa';
import type { z } from 'zod';
import type { Database } from '../../db/orm.js';
import type { AppContext } from '../app.js';
import type { ResponseSpec, Surface } from '../http/route.js';
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

/** What a query schema parses to, as the route passes it to its handler. */
type Parsed<Q> = Q extends z.ZodType ? z.output<Q> : undefined;

interface ReadRoute<Q extends z.ZodType> {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  query: Q;
  answer: ResponseSpec;
}

/** A loyalty read: the traveller's GET in one company's program, answered as {success, data}. */
function registerRead<Q extends z.ZodType>(
  surface: Surface,
  { db, callerOf }: Loyalty,
  route: ReadRoute<Q>,
  read: (db: Database, caller: LoyaltyCaller, query: Parsed<Q>) => Promise<unknown>,
): void {
  surface.route({
    method: 'get',
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: ['Loyalty'],
    security: 'traveller',
    query: route.query,
    responses: { 200: route.answer, ...errorResponses(400, 401, 404) },
    handler: async (ctx, { query }) => {
      ctx.body = { success: true, data: await read(db, callerOf(ctx), query) };
    },
  });
}

function registerAccountRoutes(surface: Surface, loyalty: Loyalty): void {
  const account = {
    path: '/loyalty/account',
    operationId: 'getLoyaltyAccount',
    summary: 'Loyalty programs, or your account in one company’s program',
    description: ACCOUNT_RULES,
    query: AccountQuery,
    answer: { description: 'Programs, or one account', schema: AccountAnswer },
  };
  registerRead(surface, loyalty, account, loyaltyAccount);
  const rewards = {
    path: '/loyalty/rewards',
    operationId: 'listLoyaltyRewards',
    summary: 'Rewards you can redeem in one company’s program',
    description: REWARDS_RULES,
    query: CompanyQuery,
    answer: { description: 'Rewards', schema: RewardsResponse },
  };
  registerRead(surface, loyalty, rewards, loyaltyRewards);
  const transactions = {
    path: '/loyalty/transactions',
    operationId: 'listLoyaltyTransactions',
    summary: 'Your points ledger in one company’s program, newest first',
    description: TRANSACTIONS_RULES,
    query: TransactionsQuery,
    answer: { description: 'One page of transactions', schema: TransactionsResponse },
  };
  registerRead(surface, loyalty, transactions, loyaltyTransactions);
}

function registerReferralRoutes(surface: Surface, loyalty: Loyalty): void {
  const referral = {
    path: '/loyalty/referral',
    operationId: 'getLoyaltyReferral',
    summary: 'Your referral code in one company’s program and how it has done',
    description: REFERRAL_RULES,
    query: CompanyQuery,
    answer: { description: 'Referral code and stats', schema: Referral },
  };
  registerRead(surface, loyalty, referral, loyaltyReferral);

  const { db, callerOf } = loyalty;
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
