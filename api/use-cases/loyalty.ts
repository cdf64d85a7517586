import type { Database } from '../../db/orm.js';
import {
  findProgram,
  listPrograms,
  listRedeemableRewards,
  listTransactions,
  previewLines,
  readAccount,
  readReferral,
  type LoyaltyProgram,
} from '../../db/queries/loyalty.js';
import {
  openAccount,
  previewVoucher,
  recordReferral,
  redeemReward,
  storedRedemption,
  type Redemption,
} from '../../db/writes/loyalty/index.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import { Refusal } from '../../domain/refusal.js';

/**
 * Customer loyalty (SPEC "Payments and loyalty"). Every use case works in one company's program
 * that the caller may see (in the caller's inventory scope), else 404 LOYALTY_PROGRAM_NOT_FOUND;
 * balances and rewards never cross companies.
 */

export interface LoyaltyCaller {
  userId: string;
  scope: InventoryScope;
}

const programNotFound = () =>
  new Refusal(404, 'LOYALTY_PROGRAM_NOT_FOUND', 'No loyalty program for this company');

async function programFor(db: Database, caller: LoyaltyCaller, companyId: string): Promise<LoyaltyProgram> {
  const program = await findProgram(db, caller.scope, companyId, caller.userId);
  if (!program) throw programNotFound();
  return program;
}

/** The program and the caller's account in it, opened on first use. */
async function accountFor(db: Database, caller: LoyaltyCaller, companyId: string) {
  const program = await programFor(db, caller, companyId);
  return { program, accountId: await openAccount(db, program.companyId, caller.userId) };
}

/** Who a member's write acts for: the program's company and the caller. */
type Member = { companyId: string; userId: string };

/**
 * A write the caller makes as a member of the program of the body's `companyId` (else 404): the
 * write gets the body (its referral or reward code) with the program's company and the caller.
 */
function asMember<Input extends Member, T>(write: (db: Database, input: Input) => Promise<T>) {
  return async (db: Database, caller: LoyaltyCaller, body: Omit<Input, 'userId'>): Promise<T> => {
    const program = await programFor(db, caller, body.companyId);
    return write(db, { ...body, companyId: program.companyId, userId: caller.userId } as Input);
  };
}

/** GET /loyalty/account: the programs the caller may join, or the caller's account in one. */
export async function loyaltyAccount(
  db: Database,
  caller: LoyaltyCaller,
  { companyId }: { companyId?: string | undefined },
) {
  if (!companyId) return { programs: await listPrograms(db, caller.scope, caller.userId) };
  const { program, accountId } = await accountFor(db, caller, companyId);
  const { companyId: _companyId, ...account } = await readAccount(db, accountId);
  return { ...program, account };
}

/** GET /loyalty/rewards. */
export async function loyaltyRewards(
  db: Database,
  caller: LoyaltyCaller,
  { companyId }: { companyId: string },
) {
  const program = await programFor(db, caller, companyId);
  return { companyId: program.companyId, rewards: await listRedeemableRewards(db, program.companyId) };
}

/** GET /loyalty/transactions: one page of the caller's ledger in the program. */
export async function loyaltyTransactions(
  db: Database,
  caller: LoyaltyCaller,
  query: { companyId: string; limit: number; offset: number },
) {
  const { program, accountId } = await accountFor(db, caller, query.companyId);
  const page = await listTransactions(db, accountId, query);
  return {
    companyId: program.companyId,
    balance: page.balance,
    transactions: page.items,
    total: page.total,
    limit: query.limit,
    offset: query.offset,
  };
}

/** GET /loyalty/referral. */
export async function loyaltyReferral(
  db: Database,
  caller: LoyaltyCaller,
  { companyId }: { companyId: string },
) {
  const { program, accountId } = await accountFor(db, caller, companyId);
  return { companyId: program.companyId, ...(await readReferral(db, accountId)) };
}

/** POST /loyalty/referral. */
export const useReferral = asMember(recordReferral);

const redeemAsMember = asMember(redeemReward);

/**
 * POST /loyalty/redeem. A retry whose Idempotency-Key holds the voucher its first call made is
 * answered that voucher before the program is looked up: the points are spent, so a program
 * switched off or a company hidden since changes nothing of it. Any other call is the member's write.
 */
export async function redeemInProgram(
  db: Database,
  caller: LoyaltyCaller,
  body: { companyId: string; rewardCode: string; idempotencyKey?: string | undefined },
): Promise<Redemption> {
  const stored =
    body.idempotencyKey === undefined
      ? null
      : await storedRedemption(db, { ...body, userId: caller.userId }, body.idempotencyKey);
  return stored ?? redeemAsMember(db, caller, body);
}

/** POST /loyalty/preview: what the voucher would take off these trips, consuming nothing. */
export async function previewVoucherOn(
  db: Database,
  caller: LoyaltyCaller,
  body: { redemptionCode: string; subtotal: number; tripIds: string[] },
) {
  const lines = await previewLines(db, caller.scope, body.tripIds, body.subtotal);
  if (!lines) throw new Refusal(404, 'TRIP_NOT_FOUND', 'No such trip');
  const applied = await previewVoucher(db.pool, { code: body.redemptionCode, userId: caller.userId, lines });
  return {
    valid: true as const,
    redemptionCode: body.redemptionCode.toUpperCase(),
    discount: applied.discount,
    finalTotal: body.subtotal - applied.discount,
  };
}
