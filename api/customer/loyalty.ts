import type { Context } from 'koa';
import type { z } from 'zod';
import type { Database } from '../../db/orm.js';
import type { AppContext } from '../app.js';
import type { Infer, OperationDoc, Surface } from '../http/route.js';
import {
  loyaltyAccount,
  loyaltyReferral,
  loyaltyRewards,
  loyaltyTransactions,
  previewVoucherOn,
  redeemInProgram,
  type LoyaltyCaller,
  useReferral,
} from '../use-cases/loyalty.js';
import {
  AccountQuery,
  CompanyQuery,
  docs,
  PreviewBody,
  RedeemBody,
  RedeemHeaders,
  ReferralBody,
  TransactionsQuery,
} from './loyalty.openapi.js';
import { created, ok } from '../http/respond.js';

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

/** A read's docs, path and query. */
type ReadRoute<Q extends z.ZodType> = OperationDoc & { path: string; query: Q };

/**
 * `OPENS_ACCOUNT`: the read opens the caller's account in the chosen company's program (SPEC: GET
 * /loyalty/account "creates a separate account when a company is chosen"), and that company's staff
 * then see the traveller's name and phone. Opening an account changes state, so a web cookie call
 * sends X-CSRF-Token like any write: a cross-site navigation carries the SameSite=Lax access cookie
 * but never the header, and enrols nobody. Bearer calls need none. A HEAD would open it too and never
 * get the body (a bearer HEAD needs no header): 405, Allow: GET.
 */
const OPENS_ACCOUNT = true;

/** A loyalty read: the traveller's GET in one company's program, answered as {success, data}. */
function registerRead<Q extends z.ZodType>(
  surface: Surface,
  { db, callerOf }: Loyalty,
  route: ReadRoute<Q>,
  read: (db: Database, caller: LoyaltyCaller, query: Infer<Q>) => Promise<unknown>,
  opensAccount = false,
): void {
  surface.route({
    ...route,
    method: 'get',
    security: 'traveller',
    csrf: opensAccount,
    head: opensAccount ? false : undefined,
    handler: async (ctx, { query }) => {
      ok(ctx, await read(db, callerOf(ctx), query));
    },
  });
}

function registerAccountRoutes(surface: Surface, loyalty: Loyalty): void {
  const account = { ...docs.getLoyaltyAccount, path: '/loyalty/account', query: AccountQuery };
  registerRead(surface, loyalty, account, loyaltyAccount, OPENS_ACCOUNT);
  const rewards = { ...docs.listLoyaltyRewards, path: '/loyalty/rewards', query: CompanyQuery };
  registerRead(surface, loyalty, rewards, loyaltyRewards);
  const transactions = {
    ...docs.listLoyaltyTransactions,
    path: '/loyalty/transactions',
    query: TransactionsQuery,
  };
  registerRead(surface, loyalty, transactions, loyaltyTransactions, OPENS_ACCOUNT);
}

function registerReferralRoutes(surface: Surface, loyalty: Loyalty): void {
  const referral = { ...docs.getLoyaltyReferral, path: '/loyalty/referral', query: CompanyQuery };
  registerRead(surface, loyalty, referral, loyaltyReferral, OPENS_ACCOUNT);

  const { db, callerOf } = loyalty;
  surface.route({
    ...docs.useLoyaltyReferral,
    method: 'post',
    path: '/loyalty/referral',
    security: 'traveller',
    body: ReferralBody,
    handler: async (ctx, { body }) => {
      const referral = await useReferral(db, callerOf(ctx), body);
      created(ctx, { referral: { id: referral.referralId, status: referral.status } });
    },
  });
}

function registerVoucherRoutes(surface: Surface, { db, callerOf }: Loyalty): void {
  surface.route({
    ...docs.redeemLoyaltyReward,
    method: 'post',
    path: '/loyalty/redeem',
    security: 'traveller',
    body: RedeemBody,
    headers: RedeemHeaders,
    handler: async (ctx, { body, headers }) => {
      const idempotencyKey = headers['Idempotency-Key'];
      const { id, code, pointsUsed, expiresAt } = await redeemInProgram(db, callerOf(ctx), {
        ...body,
        idempotencyKey,
      });
      ctx.status = 201;
      ctx.body = { success: true, redemption: { id, code, pointsUsed, expiresAt: expiresAt.toISOString() } };
    },
  });

  surface.route({
    ...docs.previewLoyaltyVoucher,
    method: 'post',
    path: '/loyalty/preview',
    security: 'traveller',
    body: PreviewBody,
    handler: async (ctx, { body }) => {
      ctx.body = { success: true, ...(await previewVoucherOn(db, callerOf(ctx), body)) };
    },
  });
}
