import { describe, expect, it } from 'vitest';
import { answeredOrWaiting, holdLock, type HeldLock } from '../../drills/support/blocking.js';
import { ensureAccount } from '../../../db/writes/loyalty/index.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp, type TestApp, type TestResponse } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { creditPoints } from '../../support/loyalty.js';
import {
  companyWithProgramme,
  programmeCall,
  type StaffSessionFixture,
} from '../../support/loyalty-admin.js';

/**
 * README (Loyalty): lifetime points decide the tier. A tier added or moved in the dashboard moves
 * every account to the tier its lifetime points reach; a points change or a new account at the same
 * moment must not slip past it: whichever goes first, the account ends in the tier its lifetime
 * points reach (before: the points change read the tiers before the tier change and committed after
 * the tier change had moved the accounts it could see, leaving the account in the old tier).
 */

const tier = (nameEn: string, minLifetimePoints: number) => ({
  nameAr: `فئة ${nameEn}`,
  nameEn,
  minLifetimePoints,
  multiplierPercent: 100 + Math.round(minLifetimePoints / 100),
});

async function createTier(app: TestApp, owner: StaffSessionFixture, body: ReturnType<typeof tier>) {
  const created = await programmeCall(app, owner, 'POST', '/loyalty/tiers', body);
  expect(created.status, created.text).toBe(201);
  return created.body.data.id as string;
}

/** Accounts of the company whose tier is not the highest tier their lifetime points reach. */
async function misplacedAccounts(app: TestApp, companyId: string) {
  const rows = await app.db.query<{
    id: string;
    lifetime_points: number;
    tier: string | null;
    due: string | null;
  }>(
    `select a.id, a.lifetime_points, t.name_en as tier,
            (select d.name_en from loyalty_tiers d where d.company_id = a.company_id
               and d.min_lifetime_points <= a.lifetime_points order by d.min_lifetime_points desc limit 1) as due
       from loyalty_accounts a left join loyalty_tiers t on t.id = a.tier_id
      where a.company_id = $1`,
    [companyId],
  );
  return rows.filter((row) => row.tier !== row.due);
}

async function accountTier(app: TestApp, accountId: string) {
  const [account] = await app.db.query<{ balance: number; lifetime_points: number; tier: string | null }>(
    `select a.balance, a.lifetime_points, t.name_en as tier
       from loyalty_accounts a left join loyalty_tiers t on t.id = a.tier_id where a.id = $1`,
    [accountId],
  );
  return account;
}

/**
 * A ledger write held: an adjustment stops between its account update and its commit (as a slow
 * disk would hold it), while nothing a tier change does waits for this.
 */
const holdLedger = (app: TestApp) => holdLock(app.db, 'lock table loyalty_transactions in share mode');

/**
 * `first` is started and held in flight by `held`, then `second` is started and runs until it
 * answers or waits; then the hold is let go. Answers both answers.
 */
async function meeting(
  app: TestApp,
  held: HeldLock,
  first: () => Promise<TestResponse>,
  second: () => Promise<TestResponse>,
): Promise<[TestResponse, TestResponse]> {
  const firstAnswer = first();
  await answeredOrWaiting(firstAnswer, app.db, held.pid, 1);
  const secondAnswer = second();
  await answeredOrWaiting(secondAnswer, app.db, held.pid, 2);
  await held.release();
  return Promise.all([firstAnswer, secondAnswer]);
}

describe('a tier change meeting a points change or a new account', () => {
  const app = useTestApp();

  async function programme() {
    const companyId = (await createCompany(app.db)).id;
    const owner = await companyWithProgramme(app, companyId);
    const admin = await staffSession(app.db, app.config, companyId, 'ADMIN');
    return { companyId, owner, admin };
  }

  it('a tier added while an adjustment is in flight: the account ends in the new tier its points reach', async () => {
    const { companyId, owner, admin } = await programme();
    await createTier(app, owner, tier('Base', 0));
    await createTier(app, owner, tier('Silver', 500));
    const traveller = await app.signIn();
    const accountId = await ensureAccount(app.db.pool, companyId, traveller.userId);

    const [adjusted, gold] = await meeting(
      app,
      await holdLedger(app),
      () =>
        programmeCall(app, owner, 'POST', `/loyalty/accounts/${accountId}/adjust`, {
          points: 1500,
          reason: 'Goodwill for a late bus',
        }),
      () => programmeCall(app, admin, 'POST', '/loyalty/tiers', tier('Gold', 1000)),
    );
    expect([adjusted.status, gold.status], `${adjusted.text} | ${gold.text}`).toEqual([200, 201]);
    expect(adjusted.body.data.account).toMatchObject({ balance: 1500, lifetimePoints: 1500 });
    // 1,500 lifetime points reach Gold (1,000).
    expect(await accountTier(app, accountId)).toEqual({ balance: 1500, lifetime_points: 1500, tier: 'Gold' });
    expect(await misplacedAccounts(app, companyId)).toEqual([]);
  });

  it('a threshold lowered while an adjustment is in flight: the account ends in the tier its points now reach', async () => {
    const { companyId, owner, admin } = await programme();
    await createTier(app, owner, tier('Base', 0));
    const goldId = await createTier(app, owner, tier('Gold', 3000));
    const traveller = await app.signIn();
    const accountId = await ensureAccount(app.db.pool, companyId, traveller.userId);
    await creditPoints(app.db, { companyId, userId: traveller.userId, points: 1000 });

    const [adjusted, moved] = await meeting(
      app,
      await holdLedger(app),
      () =>
        programmeCall(app, owner, 'POST', `/loyalty/accounts/${accountId}/adjust`, {
          points: 1500,
          reason: 'Goodwill for a late bus',
        }),
      () => programmeCall(app, admin, 'PUT', `/loyalty/tiers/${goldId}`, tier('Gold', 2000)),
    );
    expect([adjusted.status, moved.status], `${adjusted.text} | ${moved.text}`).toEqual([200, 200]);
    // 2,500 lifetime points reach Gold, now from 2,000.
    expect(await accountTier(app, accountId)).toEqual({ balance: 2500, lifetime_points: 2500, tier: 'Gold' });
    expect(await misplacedAccounts(app, companyId)).toEqual([]);
  });

  it('a tier of 0 points added while a traveller opens their account: the new account is in it', async () => {
    const { companyId, owner } = await programme();
    const traveller = await app.signIn();
    // The new account's insert waits for its traveller's row (its foreign key check), as a slow
    // statement would hold it between reading the tiers and its commit.
    const held = await holdLock(app.db, `select id from users where id = '${traveller.userId}' for update`);
    const [opened, base] = await meeting(
      app,
      held,
      () => app.request(`/api/loyalty/account?companyId=${companyId}`, { token: traveller.token }),
      () => programmeCall(app, owner, 'POST', '/loyalty/tiers', tier('Base', 0)),
    );
    expect([opened.status, base.status], `${opened.text} | ${base.text}`).toEqual([200, 201]);
    const [account] = await app.db.query<{ tier: string | null }>(
      `select t.name_en as tier from loyalty_accounts a left join loyalty_tiers t on t.id = a.tier_id
        where a.company_id = $1 and a.user_id = $2`,
      [companyId, traveller.userId],
    );
    expect(account).toEqual({ tier: 'Base' });
    expect(await misplacedAccounts(app, companyId)).toEqual([]);
  });

  it('fired together (Promise.all): adjustments, new accounts and tiers added and moved leave no account in a tier its points do not decide', async () => {
    const { companyId, owner, admin } = await programme();
    await createTier(app, owner, tier('Base', 0));
    const accounts: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const traveller = await app.signIn();
      accounts.push(await ensureAccount(app.db.pool, companyId, traveller.userId));
    }
    let moving: string | undefined;
    for (let round = 1; round <= 5; round += 1) {
      const newcomers = await Promise.all([app.signIn(), app.signIn(), app.signIn()]);
      // Each round every account gets 1,000 points while a tier from the new total is added, the
      // previous round's tier moves half a step, and travellers open accounts.
      const answers = await Promise.all([
        programmeCall(app, admin, 'POST', '/loyalty/tiers', tier(`T${round}`, 1000 * round)),
        ...(moving
          ? [
              programmeCall(
                app,
                owner,
                'PUT',
                `/loyalty/tiers/${moving}`,
                tier(`T${round - 1}`, 1000 * round - 500),
              ),
            ]
          : []),
        ...accounts.map((accountId) =>
          programmeCall(app, owner, 'POST', `/loyalty/accounts/${accountId}/adjust`, {
            points: 1000,
            reason: `Round ${round}`,
          }),
        ),
        ...newcomers.map((newcomer) =>
          app.request(`/api/loyalty/account?companyId=${companyId}`, { token: newcomer.token }),
        ),
      ]);
      expect(
        answers.map((answer) => answer.status),
        answers.map((answer) => answer.text).join(' | '),
      ).toEqual([201, ...answers.slice(1).map(() => 200)]);
      moving = answers[0].body.data.id as string;
    }
    const [total] = await app.db.query<{ n: number }>(
      `select count(*)::int as n from loyalty_accounts where company_id = $1`,
      [companyId],
    );
    expect(total!.n).toBe(12 + 5 * 3);
    expect(await misplacedAccounts(app, companyId)).toEqual([]);
  });
});
