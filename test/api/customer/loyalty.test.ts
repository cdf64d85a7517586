import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import type { Database } from '../../../db/orm.js';
import { awardTripPoints } from '../../../db/writes/loyalty/index.js';
import { damascusIsoWeekday } from '../../../domain/loyalty.js';
import { bookableTrip, createBooking, type BookableTripFixture } from '../../support/bookings.js';
import { atDamascus, createCompany, createRoute, futureDay } from '../../support/factories.js';
import { useTestApp, type SignedInTraveller, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { openShift, paymentAction } from '../../support/finance.js';
import { companyWithProgramme, programmeCall, PROGRAM } from '../../support/loyalty-admin.js';
import { collectCash } from '../../support/payments.js';
import {
  completedBooking,
  completeTripForEarning,
  creditPoints,
  giveReward,
  loyaltyProgram,
  redeemVoucher,
  type RewardOptions,
} from '../../support/loyalty.js';

/** A Damascus date 2..8 days ahead whose weekday (ISO, 1 = Monday) is `isoWeekday`. */
function nextWeekday(isoWeekday: number): string {
  for (let days = 2; days <= 8; days += 1) {
    const date = futureDay(days);
    if (damascusIsoWeekday(atDamascus(date, '08:00')) === isoWeekday) return date;
  }
  throw new Error('no such weekday in a week');
}

const bearer = (traveller: SignedInTraveller) => ({ token: traveller.token });

async function accountOf(db: Database, companyId: string, userId: string) {
  const [row] = await db.query<{
    id: string;
    balance: number;
    lifetime_points: number;
    tier_id: string | null;
  }>(
    `select id, balance, lifetime_points, tier_id from loyalty_accounts where company_id = $1 and user_id = $2`,
    [companyId, userId],
  );
  return row;
}

async function ledger(db: Database, companyId: string, userId: string) {
  return db.query<{ kind: string; points: number; balance_after: number; booking_id: string | null }>(
    `select t.kind, t.points, t.balance_after, t.booking_id from loyalty_transactions t
       join loyalty_accounts a on a.id = t.account_id
      where a.company_id = $1 and a.user_id = $2 order by t.created_at, t.id`,
    [companyId, userId],
  );
}

async function vouchersOf(db: Database, userId: string) {
  return db.query<{ code: string; status: string; company_id: string }>(
    `select code, status, company_id from loyalty_redemptions where user_id = $1`,
    [userId],
  );
}

/** A company with a bookable trip (10 000 SYP a seat) and an active program. */
async function programWithTrip(db: Database, options: Parameters<typeof bookableTrip>[1] = {}) {
  const trip = await bookableTrip(db, options);
  await loyaltyProgram(db, trip.companyId, {
    pointsPer100: 10,
    tiers: [
      [0, 100],
      [1000, 150],
    ],
  });
  return trip;
}

/** A traveller holding a fresh voucher of `reward` in the trip's company. */
async function travellerWithVoucher(app: TestApp, trip: BookableTripFixture, reward: RewardOptions = {}) {
  const traveller = await app.signIn();
  const { code: rewardCode } = await giveReward(app.db, trip.companyId, { pointsCost: 100, ...reward });
  await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 100 });
  const voucher = await redeemVoucher(app, traveller.token, trip.companyId, rewardCode);
  return { traveller, voucher, rewardCode };
}

function preview(app: TestApp, traveller: SignedInTraveller, body: Record<string, unknown>) {
  return app.request('/api/loyalty/preview', { method: 'POST', json: body, ...bearer(traveller) });
}

const completeTrip = completeTripForEarning;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function deadlockTimeoutMs(db: Database): Promise<number> {
  const [row] = await db.query<{ ms: string }>(
    `select setting as ms from pg_settings where name = 'deadlock_timeout'`,
  );
  return Number(row!.ms);
}

async function referralCodeOf(app: TestApp, traveller: SignedInTraveller, companyId: string) {
  const answer = await app.request(`/api/loyalty/referral?companyId=${companyId}`, bearer(traveller));
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data.referralCode as string;
}

const referralsOf = async (app: TestApp, companyId: string) =>
  (await app.db.query(`select 1 from loyalty_referrals where company_id = $1`, [companyId])).length;

const postReferral = (app: TestApp, traveller: SignedInTraveller, companyId: string, referralCode: string) =>
  app.request('/api/loyalty/referral', {
    method: 'POST',
    json: { companyId, referralCode },
    ...bearer(traveller),
  });

describe('loyalty accounts: one per traveller and company', () => {
  const app = useTestApp();

  it('needs a traveller session', async () => {
    const answer = await app.request('/api/loyalty/account');
    expect(answer.status).toBe(401);
    expect(answer.body.errorCode).toBe('AUTH_REQUIRED');
  });

  it('lists programs of published companies and opens an account when a company is chosen', async () => {
    const trip = await programWithTrip(app.db);
    const hidden = await createCompany(app.db, { published: false });
    await loyaltyProgram(app.db, hidden.id);
    const traveller = await app.signIn();

    const before = await app.request('/api/loyalty/account', bearer(traveller));
    expect(before.status).toBe(200);
    const listed = before.body.data.programs.find(
      (program: { companyId: string }) => program.companyId === trip.companyId,
    );
    expect(listed).toMatchObject({ hasAccount: false, balance: null, program: { pointsPer100: 10 } });
    expect(
      before.body.data.programs.some((program: { companyId: string }) => program.companyId === hidden.id),
    ).toBe(false);
    expect(await accountOf(app.db, trip.companyId, traveller.userId)).toBeUndefined();

    const opened = await app.request(`/api/loyalty/account?companyId=${trip.companyId}`, bearer(traveller));
    expect(opened.status).toBe(200);
    expect(opened.body.data).toMatchObject({
      companyId: trip.companyId,
      account: {
        balance: 0,
        lifetimePoints: 0,
        tier: { minLifetimePoints: 0 },
        nextTier: { minLifetimePoints: 1000, pointsNeeded: 1000 },
      },
    });
    expect(opened.body.data.account.referralCode).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    expect(opened.headers.get('cache-control')).toBe('private, no-store');

    await app.request(`/api/loyalty/account?companyId=${trip.companyId}`, bearer(traveller));
    const [count] = await app.db.query<{ n: number }>(
      `select count(*)::int as n from loyalty_accounts where user_id = $1`,
      [traveller.userId],
    );
    expect(count!.n).toBe(1);
    const after = await app.request('/api/loyalty/account', bearer(traveller));
    expect(
      after.body.data.programs.find((program: { companyId: string }) => program.companyId === trip.companyId),
    ).toMatchObject({
      hasAccount: true,
      balance: 0,
    });
  });

  it('answers 404 LOYALTY_PROGRAM_NOT_FOUND for an unpublished company or one without a program, opening nothing', async () => {
    const hidden = await createCompany(app.db, { published: false });
    await loyaltyProgram(app.db, hidden.id);
    const bare = await createCompany(app.db);
    const traveller = await app.signIn();
    for (const companyId of [hidden.id, bare.id, randomUUID()]) {
      for (const path of ['account', 'rewards', 'transactions', 'referral']) {
        const answer = await app.request(`/api/loyalty/${path}?companyId=${companyId}`, bearer(traveller));
        expect(answer.status, path).toBe(404);
        expect(answer.body.errorCode).toBe('LOYALTY_PROGRAM_NOT_FOUND');
      }
    }
    const [count] = await app.db.query<{ n: number }>(
      `select count(*)::int as n from loyalty_accounts where user_id = $1`,
      [traveller.userId],
    );
    expect(count!.n).toBe(0);
  });

  it('a cross-site top-level navigation (Lax access cookie, no X-CSRF-Token) enrols nobody, so the company never sees the traveller', async () => {
    const victim = await app.signIn();
    const outcome: Record<string, unknown> = {};
    // /loyalty/transactions and /loyalty/referral open the account as /loyalty/account does.
    for (const path of ['/api/loyalty/account', '/api/loyalty/transactions', '/api/loyalty/referral']) {
      // A company running a program (its operator is the attacker) the traveller never dealt with.
      const company = await createCompany(app.db);
      await loyaltyProgram(app.db, company.id);
      const owner = await staffSession(app.db, app.config, company.id, 'OWNER');
      // What the browser sends when a page elsewhere sets `location = '<api>/api/loyalty/account?companyId=…'`:
      // the SameSite=Lax access cookie goes along on a top-level GET navigation; no CSRF header can.
      const navigation = await app.request(`${path}?companyId=${company.id}`, {
        headers: {
          Cookie: victim.cookie,
          'Sec-Fetch-Site': 'cross-site',
          'Sec-Fetch-Mode': 'navigate',
          'Sec-Fetch-Dest': 'document',
        },
      });
      const account = await accountOf(app.db, company.id, victim.userId);
      const list = await app.request('/dashboard/api/loyalty?limit=100&offset=0', {
        headers: { Cookie: owner.cookie },
      });
      expect(list.status).toBe(200);
      const seenByCompany = (list.body.data.accounts as { userId: string; name: string; phone: string }[])
        .filter(({ userId }) => userId === victim.userId)
        .map(({ name, phone }) => ({ name, phone }));
      outcome[path] = { navigation: navigation.status, rows: account ? 1 : 0, seenByCompany };
    }
    const clean = { rows: 0, seenByCompany: [] };
    expect(outcome).toEqual({
      '/api/loyalty/account': expect.objectContaining(clean),
      '/api/loyalty/transactions': expect.objectContaining(clean),
      '/api/loyalty/referral': expect.objectContaining(clean),
    });
  });

  it('opens the account for a web call that sends X-CSRF-Token, as for a bearer call', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const noHeader = await app.request(`/api/loyalty/account?companyId=${trip.companyId}`, {
      headers: { Cookie: traveller.cookie },
    });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    const opened = await app.request(`/api/loyalty/account?companyId=${trip.companyId}`, {
      headers: traveller.writeHeaders,
    });
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body.data.account.id).toBe((await accountOf(app.db, trip.companyId, traveller.userId))!.id);
  });

  it('a HEAD opens no loyalty account', async () => {
    const company = await createCompany(app.db);
    await loyaltyProgram(app.db, company.id);
    const traveller = await app.signIn();
    const head = await app.request(`/api/loyalty/account?companyId=${company.id}`, {
      method: 'HEAD',
      ...bearer(traveller),
    });
    expect(
      await accountOf(app.db, company.id, traveller.userId),
      `HEAD answered ${head.status}`,
    ).toBeUndefined();

    // Each read that opens the account refuses a HEAD before anything runs; a GET still opens it.
    const heads: Record<string, unknown> = {};
    for (const path of ['account', 'transactions', 'referral']) {
      const answer = await app.request(`/api/loyalty/${path}?companyId=${company.id}`, {
        method: 'HEAD',
        ...bearer(traveller),
      });
      heads[path] = [answer.status, answer.headers.get('allow')];
    }
    expect(heads).toEqual({
      account: [405, 'GET'],
      transactions: [405, 'GET'],
      referral: [405, 'GET, POST'],
    });
    expect(await accountOf(app.db, company.id, traveller.userId)).toBeUndefined();
    const get = await app.request(`/api/loyalty/account?companyId=${company.id}`, bearer(traveller));
    expect(get.status).toBe(200);
    expect(await accountOf(app.db, company.id, traveller.userId)).toBeDefined();
  });

  it('lists only the active redeemable rewards of the chosen company', async () => {
    const trip = await programWithTrip(app.db);
    const other = await programWithTrip(app.db);
    const percent = await giveReward(app.db, trip.companyId, { discountPercent: 10 });
    const free = await giveReward(app.db, trip.companyId, {
      type: 'free_trip',
      freeSeats: 1,
      pointsCost: 900,
    });
    const merchandise = await giveReward(app.db, trip.companyId, {
      type: 'merchandise',
      discountPercent: null,
    });
    const inactive = await giveReward(app.db, trip.companyId, { active: false });
    const foreign = await giveReward(app.db, other.companyId);
    const traveller = await app.signIn();

    const answer = await app.request(`/api/loyalty/rewards?companyId=${trip.companyId}`, bearer(traveller));
    expect(answer.status).toBe(200);
    const codes = answer.body.data.rewards.map((reward: { code: string }) => reward.code);
    expect(codes).toEqual([percent.code, free.code]);
    expect(codes).not.toContain(merchandise.code);
    expect(codes).not.toContain(inactive.code);
    expect(codes).not.toContain(foreign.code);
  });

  it('refuses a rewards call without companyId (400) and a malformed one', async () => {
    const traveller = await app.signIn();
    for (const query of ['', '?companyId=nope', `?companyId=${randomUUID()}&extra=1`]) {
      const answer = await app.request(`/api/loyalty/rewards${query}`, bearer(traveller));
      expect(answer.status).toBe(400);
      expect(answer.body.errorCode).toBe('VALIDATION_FAILED');
    }
  });
});

describe('redeeming points for a voucher', () => {
  const app = useTestApp();

  it('deducts the points, counts the redemption, records the transaction and creates an RWD- voucher', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 300, voucherValidDays: 7 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 500 });

    const answer = await app.request('/api/loyalty/redeem', {
      method: 'POST',
      json: { companyId: trip.companyId, rewardCode: reward.code },
      headers: traveller.writeHeaders,
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ success: true, redemption: { pointsUsed: 300 } });
    expect(answer.body.redemption.code).toMatch(/^RWD-[A-HJ-NP-Z2-9]{8}$/);
    const expiresIn = Date.parse(answer.body.redemption.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(6.9 * 86_400_000);
    expect(expiresIn).toBeLessThan(7.1 * 86_400_000);

    expect((await accountOf(app.db, trip.companyId, traveller.userId))!.balance).toBe(200);
    const [counter] = await app.db.query<{ redemption_count: number }>(
      `select redemption_count from loyalty_rewards where id = $1`,
      [reward.id],
    );
    expect(counter!.redemption_count).toBe(1);
    expect(
      (await ledger(app.db, trip.companyId, traveller.userId)).map((row) => [
        row.kind,
        row.points,
        row.balance_after,
      ]),
    ).toEqual([
      ['ADJUST', 500, 500],
      ['REDEEM', -300, 200],
    ]);

    const page = await app.request(
      `/api/loyalty/transactions?companyId=${trip.companyId}&limit=1`,
      bearer(traveller),
    );
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ balance: 200, total: 2, limit: 1, offset: 0 });
    expect(page.body.data.transactions).toEqual([
      expect.objectContaining({
        kind: 'REDEEM',
        points: -300,
        balanceAfter: 200,
        redemptionCode: answer.body.redemption.code,
      }),
    ]);
    const second = await app.request(
      `/api/loyalty/transactions?companyId=${trip.companyId}&limit=1&offset=1`,
      bearer(traveller),
    );
    expect(second.body.data.transactions[0]).toMatchObject({ kind: 'ADJUST', points: 500 });
    const tooMany = await app.request(
      `/api/loyalty/transactions?companyId=${trip.companyId}&limit=101`,
      bearer(traveller),
    );
    expect(tooMany.status).toBe(400);
  });

  it('refuses with 409 LOYALTY_INSUFFICIENT_POINTS and takes nothing', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 300 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 299 });
    const answer = await app.request('/api/loyalty/redeem', {
      method: 'POST',
      json: { companyId: trip.companyId, rewardCode: reward.code },
      ...bearer(traveller),
    });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({
      errorCode: 'LOYALTY_INSUFFICIENT_POINTS',
      details: { balance: 299, pointsCost: 300 },
    });
    expect((await accountOf(app.db, trip.companyId, traveller.userId))!.balance).toBe(299);
    expect(await vouchersOf(app.db, traveller.userId)).toEqual([]);
  });

  it('refuses 404 LOYALTY_PROGRAM_NOT_FOUND to a redeem in flight when the company disables its programme, taking nothing', async () => {
    const trip = await bookableTrip(app.db, { price: 10_000 });
    const owner = await companyWithProgramme(app, trip.companyId);
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    const traveller = await app.signIn();
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 300 });

    // The redeem has passed its "active programme" check and waits for the traveller's row.
    const userRow = await holdLock(
      app.db,
      `select id from users where id = '${traveller.userId}' for update`,
    );
    const redeem = app.request('/api/loyalty/redeem', {
      method: 'POST',
      json: { companyId: trip.companyId, rewardCode: reward.code },
      ...bearer(traveller),
    });
    await waitersOf(app.db, userRow.pid);
    const disabled = await programmeCall(app, owner, 'PUT', '/loyalty', { ...PROGRAM, active: false });
    expect(disabled.status, disabled.text).toBe(200);
    await userRow.release();

    const answer = await redeem;
    expect([answer.status, answer.body.errorCode], answer.text).toEqual([404, 'LOYALTY_PROGRAM_NOT_FOUND']);
    expect((await accountOf(app.db, trip.companyId, traveller.userId))!.balance).toBe(300);
    expect(await vouchersOf(app.db, traveller.userId)).toEqual([]);
    const [counter] = await app.db.query<{ redemption_count: number }>(
      `select redemption_count from loyalty_rewards where code = $1 and company_id = $2`,
      [reward.code, trip.companyId],
    );
    expect(counter!.redemption_count).toBe(0);
  });

  it('redeems a catalogue code typed in lower case (the catalogue stores codes upper-case)', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    await giveReward(app.db, trip.companyId, { code: 'SUMMER10', pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 100 });

    const answer = await app.request('/api/loyalty/redeem', {
      method: 'POST',
      json: { companyId: trip.companyId, rewardCode: 'summer10' },
      ...bearer(traveller),
    });
    expect(answer.status, answer.text).toBe(201);
  });

  it('refuses an unknown reward (404), a merchandise reward (409 UNSUPPORTED), a misconfigured one and a sold-out one', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 1000 });
    const merchandise = await giveReward(app.db, trip.companyId, {
      type: 'merchandise',
      discountPercent: null,
    });
    const broken = await giveReward(app.db, trip.companyId, { type: 'free_trip', freeSeats: null });
    const soldOut = await giveReward(app.db, trip.companyId, { maxRedemptions: 1 });
    await app.db.query(`update loyalty_rewards set redemption_count = 1 where id = $1`, [soldOut.id]);
    const cases: [string, number, string][] = [
      ['NO-SUCH-REWARD', 404, 'LOYALTY_REWARD_NOT_FOUND'],
      [merchandise.code, 409, 'LOYALTY_REWARD_UNSUPPORTED'],
      [broken.code, 409, 'LOYALTY_REWARD_CONFIGURATION_INVALID'],
      [soldOut.code, 409, 'LOYALTY_REWARD_EXHAUSTED'],
    ];
    for (const [rewardCode, status, errorCode] of cases) {
      const answer = await app.request('/api/loyalty/redeem', {
        method: 'POST',
        json: { companyId: trip.companyId, rewardCode },
        ...bearer(traveller),
      });
      expect(answer.status, rewardCode).toBe(status);
      expect(answer.body.errorCode).toBe(errorCode);
    }
    expect((await accountOf(app.db, trip.companyId, traveller.userId))!.balance).toBe(1000);
    expect(await vouchersOf(app.db, traveller.userId)).toEqual([]);
  });

  it('never lets points of one company pay for another company’s reward', async () => {
    const a = await programWithTrip(app.db);
    const b = await programWithTrip(app.db);
    const traveller = await app.signIn();
    await creditPoints(app.db, { companyId: a.companyId, userId: traveller.userId, points: 1000 });
    const rewardOfB = await giveReward(app.db, b.companyId, { pointsCost: 100 });

    const inB = await app.request('/api/loyalty/redeem', {
      method: 'POST',
      json: { companyId: b.companyId, rewardCode: rewardOfB.code },
      ...bearer(traveller),
    });
    expect(inB.status).toBe(409);
    expect(inB.body.errorCode).toBe('LOYALTY_INSUFFICIENT_POINTS');
    const crossed = await app.request('/api/loyalty/redeem', {
      method: 'POST',
      json: { companyId: a.companyId, rewardCode: rewardOfB.code },
      ...bearer(traveller),
    });
    expect(crossed.status).toBe(404);
    expect(crossed.body.errorCode).toBe('LOYALTY_REWARD_NOT_FOUND');

    expect((await accountOf(app.db, a.companyId, traveller.userId))!.balance).toBe(1000);
    expect((await accountOf(app.db, b.companyId, traveller.userId))!.balance).toBe(0);
    expect(await vouchersOf(app.db, traveller.userId)).toEqual([]);
  });

  it('refuses a web redeem without X-CSRF-Token (403) and bad input (400), writing nothing', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 100 });

    const noCsrf = await app.request('/api/loyalty/redeem', {
      method: 'POST',
      json: { companyId: trip.companyId, rewardCode: reward.code },
      headers: { Cookie: traveller.cookie },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.errorCode).toBe('CSRF_TOKEN_INVALID');

    for (const json of [
      { companyId: trip.companyId },
      { companyId: 'not-a-uuid', rewardCode: reward.code },
      { companyId: trip.companyId, rewardCode: reward.code, userId: randomUUID() },
      { companyId: trip.companyId, rewardCode: '' },
    ]) {
      const answer = await app.request('/api/loyalty/redeem', {
        method: 'POST',
        json,
        headers: traveller.writeHeaders,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.errorCode).toBe('VALIDATION_FAILED');
    }
    expect((await accountOf(app.db, trip.companyId, traveller.userId))!.balance).toBe(100);
    expect(await vouchersOf(app.db, traveller.userId)).toEqual([]);
    const [counter] = await app.db.query<{ redemption_count: number }>(
      `select redemption_count from loyalty_rewards where id = $1`,
      [reward.id],
    );
    expect(counter!.redemption_count).toBe(0);
  });
});

describe('redeeming with an Idempotency-Key (a retry after a lost answer)', () => {
  const app = useTestApp();

  const redeemWith = (traveller: SignedInTraveller, body: Record<string, unknown>, key?: string) =>
    app.request('/api/loyalty/redeem', {
      method: 'POST',
      json: body,
      ...bearer(traveller),
      headers: key === undefined ? {} : { 'Idempotency-Key': key },
    });

  async function facts(companyId: string, userId: string, rewardId: string) {
    const [counter] = await app.db.query<{ redemption_count: number }>(
      `select redemption_count from loyalty_rewards where id = $1`,
      [rewardId],
    );
    return {
      balance: (await accountOf(app.db, companyId, userId))!.balance,
      vouchers: (await vouchersOf(app.db, userId)).map((voucher) => voucher.code).sort(),
      redeems: (await ledger(app.db, companyId, userId)).filter((row) => row.kind === 'REDEEM').length,
      redemptionCount: counter!.redemption_count,
    };
  }

  it('a retry with the same key answers the same voucher and spends the points once; a new key or none redeems again', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 450 });
    const body = { companyId: trip.companyId, rewardCode: reward.code };
    const key = `redeem-${randomUUID()}`;

    const first = await redeemWith(traveller, body, key);
    expect(first.status, first.text).toBe(201);
    const retry = await redeemWith(traveller, { ...body, rewardCode: reward.code.toLowerCase() }, key);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(await facts(trip.companyId, traveller.userId, reward.id)).toEqual({
      balance: 350,
      vouchers: [first.body.redemption.code],
      redeems: 1,
      redemptionCount: 1,
    });

    // Another key is another redeem, and so is every call without one (as before keys existed).
    const other = await redeemWith(traveller, body, `redeem-${randomUUID()}`);
    const plain = [await redeemWith(traveller, body), await redeemWith(traveller, body)];
    for (const answer of [other, ...plain]) expect(answer.status, answer.text).toBe(201);
    expect(new Set([first, other, ...plain].map((answer) => answer.body.redemption.code)).size).toBe(4);
    expect(await facts(trip.companyId, traveller.userId, reward.id)).toMatchObject({
      balance: 50,
      redeems: 4,
      redemptionCount: 4,
    });

    // Keys are kept per traveller: another traveller's call with the same key is their own redeem.
    const neighbour = await app.signIn();
    await creditPoints(app.db, { companyId: trip.companyId, userId: neighbour.userId, points: 100 });
    const theirs = await redeemWith(neighbour, body, key);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body.redemption.code).not.toBe(first.body.redemption.code);
    expect((await accountOf(app.db, trip.companyId, neighbour.userId))!.balance).toBe(0);
  });

  it('the same key with another reward is 409 IDEMPOTENCY_KEY_REUSED and spends nothing', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    const another = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 300 });
    const key = `redeem-${randomUUID()}`;
    const first = await redeemWith(traveller, { companyId: trip.companyId, rewardCode: reward.code }, key);
    expect(first.status, first.text).toBe(201);
    const before = await facts(trip.companyId, traveller.userId, another.id);

    const reused = await redeemWith(traveller, { companyId: trip.companyId, rewardCode: another.code }, key);
    expect([reused.status, reused.body.errorCode], reused.text).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await facts(trip.companyId, traveller.userId, another.id)).toEqual(before);
  });

  it('a retry answers the voucher it made even once the programme is switched off; a new key is 404 and the key with another reward 409, taking nothing', async () => {
    const trip = await bookableTrip(app.db);
    const owner = await companyWithProgramme(app, trip.companyId);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    const another = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 300 });
    const body = { companyId: trip.companyId, rewardCode: reward.code };
    const key = `redeem-${randomUUID()}`;
    const first = await redeemWith(traveller, body, key);
    expect(first.status, first.text).toBe(201);

    // The owner switches the programme off before the traveller's app got its answer.
    const off = await programmeCall(app, owner, 'PUT', '/loyalty', { ...PROGRAM, active: false });
    expect(off.status, off.text).toBe(200);
    const spent = await facts(trip.companyId, traveller.userId, reward.id);
    expect(spent).toEqual({
      balance: 200,
      vouchers: [first.body.redemption.code],
      redeems: 1,
      redemptionCount: 1,
    });

    const retry = await redeemWith(traveller, body, key);
    expect({ status: retry.status, body: retry.body }, retry.text).toEqual({ status: 201, body: first.body });
    // A redeem the programme never answered is refused as before, and so is the key with another reward.
    const fresh = await redeemWith(traveller, body, `redeem-${randomUUID()}`);
    expect([fresh.status, fresh.body.errorCode], fresh.text).toEqual([404, 'LOYALTY_PROGRAM_NOT_FOUND']);
    const reused = await redeemWith(traveller, { ...body, rewardCode: another.code }, key);
    expect([reused.status, reused.body.errorCode], reused.text).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await facts(trip.companyId, traveller.userId, reward.id)).toEqual(spent);
    expect((await facts(trip.companyId, traveller.userId, another.id)).redemptionCount).toBe(0);
  });

  it('a retry answers the voucher it made even once the company is unpublished or suspended, spending nothing more', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 300 });
    const body = { companyId: trip.companyId, rewardCode: reward.code };
    const key = `redeem-${randomUUID()}`;
    const first = await redeemWith(traveller, body, key);
    expect(first.status, first.text).toBe(201);
    const spent = await facts(trip.companyId, traveller.userId, reward.id);

    for (const hidden of [`published = false`, `published = true, status = 'SUSPENDED'`]) {
      await app.db.query(`update companies set ${hidden} where id = $1`, [trip.companyId]);
      const retry = await redeemWith(traveller, body, key);
      expect({ status: retry.status, body: retry.body }, `${hidden}: ${retry.text}`).toEqual({
        status: 201,
        body: first.body,
      });
      const fresh = await redeemWith(traveller, body, `redeem-${randomUUID()}`);
      expect([fresh.status, fresh.body.errorCode], `${hidden}: ${fresh.text}`).toEqual([
        404,
        'LOYALTY_PROGRAM_NOT_FOUND',
      ]);
      expect(await facts(trip.companyId, traveller.userId, reward.id)).toEqual(spent);
    }
  });

  it('a refused redeem keeps nothing under its key: its retry once the points are there redeems', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 60 });
    const body = { companyId: trip.companyId, rewardCode: reward.code };
    const key = `redeem-${randomUUID()}`;

    const refused = await redeemWith(traveller, body, key);
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'LOYALTY_INSUFFICIENT_POINTS']);
    expect(await app.db.query(`select 1 from idempotency_records where key = $1`, [key])).toEqual([]);
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 40 });
    const redeemed = await redeemWith(traveller, body, key);
    expect(redeemed.status, redeemed.text).toBe(201);
    expect(await facts(trip.companyId, traveller.userId, reward.id)).toMatchObject({
      balance: 0,
      redeems: 1,
    });
  });

  it('refuses a malformed Idempotency-Key with 400 VALIDATION_FAILED, writing nothing', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 100 });
    const before = await facts(trip.companyId, traveller.userId, reward.id);

    for (const key of ['short', 'with spaces in it', 'clé-idempotence', 'k'.repeat(129), '']) {
      const answer = await redeemWith(traveller, { companyId: trip.companyId, rewardCode: reward.code }, key);
      expect([answer.status, answer.body.errorCode], JSON.stringify(key)).toEqual([400, 'VALIDATION_FAILED']);
      expect(answer.body.details.issues[0].path).toBe('headers.Idempotency-Key');
    }
    expect(await facts(trip.companyId, traveller.userId, reward.id)).toEqual(before);
  });
});

describe('voucher preview: every LOYALTY_ refusal, nothing consumed', () => {
  const app = useTestApp();

  const expectRefused = async (answer: Awaited<ReturnType<typeof preview>>, errorCode: string) => {
    expect(answer.status, answer.text).toBe(409);
    expect(answer.body.errorCode).toBe(errorCode);
  };

  /** A preview of one trip at 10 000 SYP. */
  const previewOnTrip = (traveller: SignedInTraveller, redemptionCode: string, tripId: string) =>
    preview(app, traveller, { redemptionCode, subtotal: 10_000, tripIds: [tripId] });

  it('previews a percent discount and leaves the voucher unused', async () => {
    const trip = await programWithTrip(app.db);
    const { traveller, voucher } = await travellerWithVoucher(app, trip, {
      discountPercent: 15,
      maxDiscount: 2500,
    });
    const small = await previewOnTrip(traveller, voucher, trip.tripId);
    expect(small.status).toBe(200);
    expect(small.body).toEqual({
      success: true,
      valid: true,
      redemptionCode: voucher,
      discount: 1500,
      finalTotal: 8500,
    });
    const capped = await preview(app, traveller, {
      redemptionCode: voucher,
      subtotal: 40_000,
      tripIds: [trip.tripId],
    });
    expect(capped.body).toMatchObject({ discount: 2500, finalTotal: 37_500 });
    expect(await vouchersOf(app.db, traveller.userId)).toEqual([
      expect.objectContaining({ code: voucher, status: 'ISSUED' }),
    ]);
  });

  it('makes the cheaper direction of a round trip free with a free_trip voucher', async () => {
    const outbound = await programWithTrip(app.db, { price: 12_000 });
    const back = await bookableTrip(app.db, {
      companyId: outbound.companyId,
      price: 9_000,
      from: outbound.to,
      to: outbound.from,
    });
    const { traveller, voucher } = await travellerWithVoucher(app, outbound, {
      type: 'free_trip',
      freeSeats: 1,
    });
    const answer = await preview(app, traveller, {
      redemptionCode: voucher,
      subtotal: 21_000,
      tripIds: [outbound.tripId, back.tripId],
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ discount: 9_000, finalTotal: 12_000 });
  });

  it('LOYALTY_REDEMPTION_NOT_FOUND: a catalogue reward code, another traveller’s voucher, an unknown code', async () => {
    const trip = await programWithTrip(app.db);
    const { voucher, rewardCode } = await travellerWithVoucher(app, trip);
    const stranger = await app.signIn();
    for (const code of [rewardCode, voucher, 'RWD-ABCDEFGH']) {
      await expectRefused(await previewOnTrip(stranger, code, trip.tripId), 'LOYALTY_REDEMPTION_NOT_FOUND');
    }
  });

  it('LOYALTY_REDEMPTION_USED: a voucher already spent on a booking (and the booking got the discount)', async () => {
    const trip = await programWithTrip(app.db);
    const { traveller, voucher } = await travellerWithVoucher(app, trip, { discountPercent: 20 });
    const caller = {
      userId: traveller.userId,
      headers: traveller.writeHeaders,
      channel: 'CUSTOMER_WEB' as const,
    };
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: [trip.seatNumbers[0]!],
      rewardCode: voucher,
    });
    expect(booking.total_price).toBe(8_000);

    await expectRefused(await previewOnTrip(traveller, voucher, trip.tripId), 'LOYALTY_REDEMPTION_USED');
    const [used] = await app.db.query<{ status: string; used_booking_ids: string[]; discount: string }>(
      `select status, used_booking_ids::text[] as used_booking_ids, discount from loyalty_redemptions where code = $1`,
      [voucher],
    );
    expect(used).toEqual({ status: 'USED', used_booking_ids: [booking.id], discount: '2000' });
  });

  it('LOYALTY_REDEMPTION_EXPIRED: a voucher past its expiry', async () => {
    const trip = await programWithTrip(app.db);
    const { traveller, voucher } = await travellerWithVoucher(app, trip);
    await app.db.query(
      `update loyalty_redemptions set expires_at = now() - interval '1 minute' where code = $1`,
      [voucher],
    );
    await expectRefused(await previewOnTrip(traveller, voucher, trip.tripId), 'LOYALTY_REDEMPTION_EXPIRED');
  });

  it('LOYALTY_REWARD_UNSUPPORTED: the company deleted the reward after the voucher was issued', async () => {
    const trip = await programWithTrip(app.db);
    const { traveller, voucher, rewardCode } = await travellerWithVoucher(app, trip);
    await app.db.query(`update loyalty_rewards set archived_at = now() where company_id = $1 and code = $2`, [
      trip.companyId,
      rewardCode,
    ]);
    await expectRefused(await previewOnTrip(traveller, voucher, trip.tripId), 'LOYALTY_REWARD_UNSUPPORTED');
  });

  it('LOYALTY_REWARD_CONFIGURATION_INVALID: the terms a voucher holds are a discount with both a percent and an amount', async () => {
    const trip = await programWithTrip(app.db);
    const { traveller, voucher } = await travellerWithVoucher(app, trip);
    // A voucher keeps its reward's terms as issued (editing the reward never reaches it), so only
    // terms stored inconsistent, as by an import of old vouchers, can be refused this way.
    await app.db.query(
      `update loyalty_redemptions set terms = jsonb_set(terms, '{discount_amount}', '500') where code = $1`,
      [voucher],
    );
    await expectRefused(
      await previewOnTrip(traveller, voucher, trip.tripId),
      'LOYALTY_REWARD_CONFIGURATION_INVALID',
    );
  });

  it('LOYALTY_ROUTE_NOT_ELIGIBLE: a trip on a route the reward does not cover, or of another company', async () => {
    const trip = await programWithTrip(app.db);
    const otherRoute = await createRoute(app.db, trip.companyId, trip.from.cityId, trip.to.cityId);
    const { traveller, voucher } = await travellerWithVoucher(app, trip, { routeIds: [otherRoute.id] });
    await expectRefused(await previewOnTrip(traveller, voucher, trip.tripId), 'LOYALTY_ROUTE_NOT_ELIGIBLE');
    const foreign = await programWithTrip(app.db);
    const unrestricted = await travellerWithVoucher(app, trip);
    await expectRefused(
      await previewOnTrip(unrestricted.traveller, unrestricted.voucher, foreign.tripId),
      'LOYALTY_ROUTE_NOT_ELIGIBLE',
    );
  });

  it('LOYALTY_DAY_NOT_ELIGIBLE: a weekend-only voucher on a Monday departure (allowed on a Saturday)', async () => {
    const monday = await programWithTrip(app.db, { departAt: atDamascus(nextWeekday(1), '08:00') });
    const saturday = await bookableTrip(app.db, {
      companyId: monday.companyId,
      departAt: atDamascus(nextWeekday(6), '08:00'),
    });
    const { traveller, voucher } = await travellerWithVoucher(app, monday, { allowedDays: [5, 6] });
    await expectRefused(await previewOnTrip(traveller, voucher, monday.tripId), 'LOYALTY_DAY_NOT_ELIGIBLE');
    const allowed = await previewOnTrip(traveller, voucher, saturday.tripId);
    expect(allowed.status).toBe(200);
  });

  it('LOYALTY_MINIMUM_NOT_MET: a fixed discount below its minimum subtotal', async () => {
    const trip = await programWithTrip(app.db);
    const { traveller, voucher } = await travellerWithVoucher(app, trip, {
      discountPercent: null,
      discountAmount: 3_000,
      minSubtotal: 20_000,
    });
    const below = await preview(app, traveller, {
      redemptionCode: voucher,
      subtotal: 19_999,
      tripIds: [trip.tripId],
    });
    await expectRefused(below, 'LOYALTY_MINIMUM_NOT_MET');
    expect(below.body.details).toEqual({ minSubtotal: 20_000 });
    const reached = await preview(app, traveller, {
      redemptionCode: voucher,
      subtotal: 20_000,
      tripIds: [trip.tripId],
    });
    expect(reached.body).toMatchObject({ discount: 3_000, finalTotal: 17_000 });
  });

  it('refuses bad input (400), a trip outside the scope (404) and a web call without CSRF (403)', async () => {
    const trip = await programWithTrip(app.db);
    const { traveller, voucher } = await travellerWithVoucher(app, trip);
    for (const json of [
      { redemptionCode: voucher, subtotal: -1, tripIds: [trip.tripId] },
      { redemptionCode: voucher, subtotal: 10_000, tripIds: [] },
      { redemptionCode: voucher, subtotal: 10_000, tripIds: [trip.tripId, trip.tripId] },
      { redemptionCode: voucher, subtotal: 10_000, tripIds: [trip.tripId, randomUUID(), randomUUID()] },
      { subtotal: 10_000, tripIds: [trip.tripId] },
    ]) {
      const answer = await preview(app, traveller, json);
      expect(answer.status, JSON.stringify(json)).toBe(400);
    }
    const missing = await previewOnTrip(traveller, voucher, randomUUID());
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('TRIP_NOT_FOUND');
    const noCsrf = await app.request('/api/loyalty/preview', {
      method: 'POST',
      json: { redemptionCode: voucher, subtotal: 10_000, tripIds: [trip.tripId] },
      headers: { Cookie: traveller.cookie },
    });
    expect(noCsrf.status).toBe(403);
    expect(await vouchersOf(app.db, traveller.userId)).toEqual([
      expect.objectContaining({ status: 'ISSUED' }),
    ]);
  });
});

describe('points earning and referrals', () => {
  const app = useTestApp();

  it('credits floor(paid / 100 × points_per_100 × tier multiplier / 100) once per completed booking', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const friend = await app.signIn();
    const booking = await completedBooking(app.db, trip, traveller.userId, { totalPrice: 12_345 });
    const checkedIn = await completedBooking(app.db, trip, friend.userId, {
      totalPrice: 8_000,
      status: 'CHECKED_IN',
    });
    const cancelled = await completedBooking(app.db, trip, friend.userId, {
      totalPrice: 8_000,
      status: 'CANCELLED',
    });

    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({ bookingsCredited: 0 });
    await completeTrip(app.db, trip.tripId);
    const first = await awardTripPoints(app.db, trip.tripId);
    expect(first).toMatchObject({ bookingsCredited: 2, pointsCredited: 1234 + 800 });
    const again = await awardTripPoints(app.db, trip.tripId);
    expect(again).toMatchObject({ bookingsCredited: 0, pointsCredited: 0 });

    expect(await ledger(app.db, trip.companyId, traveller.userId)).toEqual([
      { kind: 'EARN', points: 1234, balance_after: 1234, booking_id: booking },
    ]);
    expect(await ledger(app.db, trip.companyId, friend.userId)).toEqual([
      { kind: 'EARN', points: 800, balance_after: 800, booking_id: checkedIn },
    ]);
    expect(
      (await ledger(app.db, trip.companyId, friend.userId)).some((row) => row.booking_id === cancelled),
    ).toBe(false);

    // 1234 lifetime points reach the 1000-point tier: the next trip earns 150%.
    const account = await app.request(`/api/loyalty/account?companyId=${trip.companyId}`, bearer(traveller));
    expect(account.body.data.account).toMatchObject({
      balance: 1234,
      lifetimePoints: 1234,
      tier: { multiplierPercent: 150 },
      nextTier: null,
    });
    const nextTrip = await bookableTrip(app.db, { companyId: trip.companyId });
    await completedBooking(app.db, nextTrip, traveller.userId, { totalPrice: 10_000 });
    await completeTrip(app.db, nextTrip.tripId);
    await awardTripPoints(app.db, nextTrip.tripId);
    expect((await accountOf(app.db, trip.companyId, traveller.userId))!.balance).toBe(1234 + 1500);
  });

  it('a rerun of an award cut off between two bookings of one traveller credits the second at the tier of before the trip', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    // Two identical bookings, credited in id order: 10,000 / 100 × 10 × 100% each.
    const bookings = [
      await completedBooking(app.db, trip, traveller.userId, { totalPrice: 10_000 }),
      await completedBooking(app.db, trip, traveller.userId, { totalPrice: 10_000 }),
    ].sort();
    await completeTrip(app.db, trip.tripId);
    // The second booking is held, so the award credits the first and then waits; its connection is
    // cut, as a crash between the two credits would leave it.
    const held = await holdLock(app.db, `select 1 from bookings where id = '${bookings[1]}' for update`);
    const award = awardTripPoints(app.db, trip.tripId);
    award.catch(() => undefined);
    const [waiter] = await waitersOf(app.db, held.pid);
    await app.db.query('select pg_terminate_backend($1)', [waiter]);
    await expect(award).rejects.toThrow();
    await held.release();
    expect(await ledger(app.db, trip.companyId, traveller.userId)).toEqual([
      { kind: 'EARN', points: 1000, balance_after: 1000, booking_id: bookings[0] },
    ]);

    // The 1,000 lifetime points reaching the 150% tier are this trip's own: the rerun still credits 100%.
    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({
      bookingsCredited: 1,
      pointsCredited: 1000,
    });
    expect(await ledger(app.db, trip.companyId, traveller.userId)).toEqual([
      { kind: 'EARN', points: 1000, balance_after: 1000, booking_id: bookings[0] },
      { kind: 'EARN', points: 1000, balance_after: 2000, booking_id: bookings[1] },
    ]);
    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({
      bookingsCredited: 0,
      pointsCredited: 0,
    });
  });

  it('credits nothing to a booking whose owner account is disabled, opening no account for it; a rerun credits it once the account is active again', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const booking = await completedBooking(app.db, trip, traveller.userId, { totalPrice: 10_000 });
    await completeTrip(app.db, trip.tripId);
    await app.db.query(`update users set status = 'DISABLED' where id = $1`, [traveller.userId]);

    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({
      bookingsCredited: 0,
      pointsCredited: 0,
    });
    expect(await accountOf(app.db, trip.companyId, traveller.userId)).toBeUndefined();
    expect(await app.db.query(`select 1 from loyalty_transactions where booking_id = $1`, [booking])).toEqual(
      [],
    );

    await app.db.query(`update users set status = 'ACTIVE' where id = $1`, [traveller.userId]);
    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({
      bookingsCredited: 1,
      pointsCredited: 1000,
    });
    expect(await ledger(app.db, trip.companyId, traveller.userId)).toEqual([
      { kind: 'EARN', points: 1000, balance_after: 1000, booking_id: booking },
    ]);
  });

  it('credits nothing to a completed booking refunded before the award; the traveller’s other booking of the trip earns', async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    const kept = await completedBooking(app.db, trip, traveller.userId, { totalPrice: 10_000 });
    const refunded = await completedBooking(app.db, trip, traveller.userId, { totalPrice: 10_000 });
    await app.db.query(`update bookings set payment_status = 'REFUNDED' where id = $1`, [refunded]);
    await completeTrip(app.db, trip.tripId);

    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({
      bookingsCredited: 1,
      pointsCredited: 1000,
    });
    expect(await ledger(app.db, trip.companyId, traveller.userId)).toEqual([
      { kind: 'EARN', points: 1000, balance_after: 1000, booking_id: kept },
    ]);
  });

  it('credits a booking once whatever account its points went to: a rerun after its owner changed credits nothing more', async () => {
    const trip = await programWithTrip(app.db);
    const first = await app.signIn();
    const next = await app.signIn();
    const booking = await completedBooking(app.db, trip, first.userId, { totalPrice: 10_000 });
    await completeTrip(app.db, trip.tripId);
    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({ bookingsCredited: 1 });
    // The booking now belongs to another account, its points staying where they were credited.
    await app.db.query(`update bookings set owner_user_id = $2 where id = $1`, [booking, next.userId]);

    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({
      bookingsCredited: 0,
      pointsCredited: 0,
    });
    expect(await ledger(app.db, trip.companyId, first.userId)).toEqual([
      { kind: 'EARN', points: 1000, balance_after: 1000, booking_id: booking },
    ]);
    expect(await ledger(app.db, trip.companyId, next.userId)).toEqual([]);
  });

  it('rewards referrer and referee when the referee completes a first trip; refuses self, repeat, foreign and not-new', async () => {
    const trip = await programWithTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { pointsPer100: 10, referralPoints: 250 });
    const other = await programWithTrip(app.db);
    const referrer = await app.signIn();
    const referee = await app.signIn();
    const veteran = await app.signIn();

    const codeAnswer = await app.request(
      `/api/loyalty/referral?companyId=${trip.companyId}`,
      bearer(referrer),
    );
    expect(codeAnswer.status).toBe(200);
    const code = codeAnswer.body.data.referralCode as string;
    const foreignCode = (
      await app.request(`/api/loyalty/referral?companyId=${other.companyId}`, bearer(referrer))
    ).body.data.referralCode as string;
    const refer = (traveller: SignedInTraveller, companyId: string, referralCode: string) =>
      app.request('/api/loyalty/referral', {
        method: 'POST',
        json: { companyId, referralCode },
        headers: traveller.writeHeaders,
      });

    const self = await refer(referrer, trip.companyId, code);
    expect([self.status, self.body.errorCode]).toEqual([409, 'LOYALTY_REFERRAL_SELF']);
    const foreign = await refer(referee, trip.companyId, foreignCode);
    expect([foreign.status, foreign.body.errorCode]).toEqual([404, 'LOYALTY_REFERRAL_NOT_FOUND']);
    const noCsrf = await app.request('/api/loyalty/referral', {
      method: 'POST',
      json: { companyId: trip.companyId, referralCode: code },
      headers: { Cookie: referee.cookie },
    });
    expect(noCsrf.status).toBe(403);

    const recorded = await refer(referee, trip.companyId, code.toLowerCase());
    expect(recorded.status).toBe(201);
    expect(recorded.body.data.referral.status).toBe('PENDING');
    const repeat = await refer(referee, trip.companyId, code);
    expect([repeat.status, repeat.body.errorCode]).toEqual([409, 'LOYALTY_REFERRAL_ALREADY_USED']);

    const earlier = await bookableTrip(app.db, { companyId: trip.companyId });
    await completedBooking(app.db, earlier, veteran.userId);
    await completeTrip(app.db, earlier.tripId);
    const notNew = await refer(veteran, trip.companyId, code);
    expect([notNew.status, notNew.body.errorCode]).toEqual([409, 'LOYALTY_REFERRAL_NOT_NEW']);

    await completedBooking(app.db, trip, referee.userId, { totalPrice: 10_000 });
    await completeTrip(app.db, trip.tripId);
    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({ referralsRewarded: 1 });
    await awardTripPoints(app.db, trip.tripId);

    expect(
      (await ledger(app.db, trip.companyId, referee.userId)).map((row) => [row.kind, row.points]),
    ).toEqual([
      ['EARN', 1000],
      ['REFERRAL_BONUS', 250],
    ]);
    expect(
      (await ledger(app.db, trip.companyId, referrer.userId)).map((row) => [row.kind, row.points]),
    ).toEqual([['REFERRAL_BONUS', 250]]);
    const stats = await app.request(`/api/loyalty/referral?companyId=${trip.companyId}`, bearer(referrer));
    expect(stats.body.data.stats).toEqual({ referred: 1, rewarded: 1, pending: 0, pointsEarned: 250 });
    const refereeView = await app.request(
      `/api/loyalty/referral?companyId=${trip.companyId}`,
      bearer(referee),
    );
    expect(refereeView.body.data.referredBy).toMatchObject({ status: 'REWARDED' });
  });
  /**
   * Two travellers who each hold a voucher of the reward, with their accounts in the company, in
   * account id order: the order a reward's withdrawal locks its holders.
   */
  async function voucherHoldersInAccountOrder(companyId: string, rewardCode: string) {
    const holders = [];
    for (const traveller of [await app.signIn(), await app.signIn()]) {
      await creditPoints(app.db, { companyId, userId: traveller.userId, points: 100 });
      await redeemVoucher(app, traveller.token, companyId, rewardCode);
      holders.push({ traveller, account: (await accountOf(app.db, companyId, traveller.userId))! });
    }
    const [first, second] = holders;
    return first!.account.id < second!.account.id
      ? ([first!, second!] as const)
      : ([second!, first!] as const);
  }

  it('a reward withdrawn while a completed trip rewards a referral: both finish, neither fails on a deadlock', async () => {
    const trip = await programWithTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { pointsPer100: 10, referralPoints: 250 });
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    // The withdrawal locks the voucher holders' accounts in id order; the credit locks the referee,
    // then the referrer: with the referrer's account sorting first, the two lock in opposite orders.
    const [referrer, referee] = await voucherHoldersInAccountOrder(trip.companyId, reward.code);
    const code = (
      await app.request(`/api/loyalty/referral?companyId=${trip.companyId}`, bearer(referrer.traveller))
    ).body.data.referralCode;
    const referred = await app.request('/api/loyalty/referral', {
      method: 'POST',
      json: { companyId: trip.companyId, referralCode: code },
      headers: referee.traveller.writeHeaders,
    });
    expect(referred.status, referred.text).toBe(201);
    await completedBooking(app.db, trip, referee.traveller.userId, { totalPrice: 10_000 });
    await completeTrip(app.db, trip.tripId);
    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');

    // The credit holds the referee and stops at the referral; the withdrawal then holds the referrer
    // and waits for the referee; let go, the credit asks for the referrer.
    const referrals = await holdLock(app.db, 'lock table loyalty_referrals in share mode');
    const award = awardTripPoints(app.db, trip.tripId);
    await waitersOf(app.db, referrals.pid);
    const withdrawal = app.request(`/dashboard/api/loyalty/rewards/${reward.id}`, {
      method: 'DELETE',
      headers: owner.writeHeaders,
    });
    await waitersOf(app.db, referrals.pid, 2);
    await referrals.release();

    const [awarded, withdrawn] = await Promise.all([award, withdrawal]);
    expect(awarded).toMatchObject({ bookingsCredited: 1, referralsRewarded: 1 });
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.data).toMatchObject({ removed: false, vouchersCancelled: 2, pointsReturned: 200 });
    expect((await accountOf(app.db, trip.companyId, referrer.traveller.userId))!.balance).toBe(100 + 250);
    expect((await accountOf(app.db, trip.companyId, referee.traveller.userId))!.balance).toBe(
      100 + 1000 + 250,
    );
  });

  it('a traveller cannot refer back the one who referred them: 409 LOYALTY_REFERRAL_MUTUAL, nothing written', async () => {
    const trip = await programWithTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { referralPoints: 100 });
    const a = await app.signIn();
    const b = await app.signIn();
    const c = await app.signIn();
    const codeA = await referralCodeOf(app, a, trip.companyId);
    const codeB = await referralCodeOf(app, b, trip.companyId);

    expect((await postReferral(app, b, trip.companyId, codeA)).status).toBe(201);
    const back = await postReferral(app, a, trip.companyId, codeB);
    expect([back.status, back.body.errorCode]).toEqual([409, 'LOYALTY_REFERRAL_MUTUAL']);
    expect(await referralsOf(app, trip.companyId)).toBe(1);
    // A chain is not a loop: C may still be referred by B.
    expect((await postReferral(app, c, trip.companyId, codeB)).status).toBe(201);
  });

  it('two new travellers entering each other’s referral code at once: one referral, the other 409 MUTUAL, no 500', async () => {
    const trip = await programWithTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { referralPoints: 100 });
    const a = await app.signIn();
    const b = await app.signIn();
    const codeA = await referralCodeOf(app, a, trip.companyId);
    const codeB = await referralCodeOf(app, b, trip.companyId);

    // Both requests lock their own account, then queue at the referral insert.
    const referrals = await holdLock(app.db, 'lock table loyalty_referrals in share mode');
    const aAnswer = postReferral(app, a, trip.companyId, codeB);
    const bAnswer = postReferral(app, b, trip.companyId, codeA);
    await waitersOf(app.db, referrals.pid, 2);
    await referrals.release();

    const answers = await Promise.all([aAnswer, bAnswer]);
    expect(answers.map((answer) => [answer.status, answer.body.errorCode]).sort()).toEqual([
      [201, undefined],
      [409, 'LOYALTY_REFERRAL_MUTUAL'],
    ]);
    expect(await referralsOf(app, trip.companyId)).toBe(1);
  });

  it('a referral between two holders of a reward the company withdraws at that moment: both finish, no 500', async () => {
    const trip = await programWithTrip(app.db);
    await loyaltyProgram(app.db, trip.companyId, { referralPoints: 100 });
    const reward = await giveReward(app.db, trip.companyId, { pointsCost: 100 });
    // The withdrawal locks holders in account id order: the referrer (lower id) first.
    const [referrer, referee] = await voucherHoldersInAccountOrder(trip.companyId, reward.code);
    const code = await referralCodeOf(app, referrer.traveller, trip.companyId);
    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');

    // The referral holds the referee's account and waits at its insert.
    const referrals = await holdLock(app.db, 'lock table loyalty_referrals in share mode');
    const referral = postReferral(app, referee.traveller, trip.companyId, code);
    await waitersOf(app.db, referrals.pid, 1);
    // The withdrawal locks the referrer's account, then waits for the referee's.
    const withdrawal = app.request(`/dashboard/api/loyalty/rewards/${reward.id}`, {
      method: 'DELETE',
      headers: owner.writeHeaders,
    });
    await waitersOf(app.db, referrals.pid, 2);
    // Past the withdrawal's own deadlock check, then let the referral reach the referrer's row.
    await sleep(2 * (await deadlockTimeoutMs(app.db)) + 200);
    await referrals.release();

    const [referred, withdrawn] = await Promise.all([referral, withdrawal]);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(referred.status, referred.text).toBe(201);
  });
  /** A paid booking of `traveller` on the trip, the trip completed, its owner's shift open for a refund. */
  async function paidCompletedBooking(trip: BookableTripFixture, traveller: SignedInTraveller) {
    const booking = await createBooking(
      app,
      { userId: traveller.userId, headers: traveller.writeHeaders, channel: 'CUSTOMER_WEB' },
      { tripId: trip.tripId, seatNumbers: [trip.seatNumbers[0]!] },
    );
    const { paymentId } = await collectCash(app.db, booking.id);
    await app.db.query(`update bookings set status = 'COMPLETED' where id = $1`, [booking.id]);
    await completeTrip(app.db, trip.tripId);
    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    await openShift(app, owner, 50_000);
    return { bookingId: booking.id, paymentId, owner };
  }

  it("takes back a refunded booking's earned points, never below a balance of 0, and the tier with them", async () => {
    const trip = await programWithTrip(app.db, { price: 10_000 });
    const traveller = await app.signIn();
    const { bookingId, paymentId, owner } = await paidCompletedBooking(trip, traveller);
    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({ pointsCredited: 1000 });
    // 1 000 lifetime points reach the 150% tier; 300 of the points are spent on a voucher.
    const { code: rewardCode } = await giveReward(app.db, trip.companyId, { pointsCost: 300 });
    await redeemVoucher(app, traveller.token, trip.companyId, rewardCode);

    const refunded = await paymentAction(app, owner, paymentId, 'refund');
    expect(refunded.status, refunded.text).toBe(200);
    const account = await app.request(`/api/loyalty/account?companyId=${trip.companyId}`, bearer(traveller));
    expect(account.body.data.account).toMatchObject({
      balance: 0,
      lifetimePoints: 0,
      tier: { multiplierPercent: 100 },
    });
    const [reversal] = await app.db.query<{
      kind: string;
      points: number;
      balance_after: number;
      note: string;
    }>(
      `select t.kind, t.points, t.balance_after, t.note from loyalty_transactions t
        where t.booking_id = $1 and t.kind <> 'EARN'`,
      [bookingId],
    );
    expect(reversal).toMatchObject({ kind: 'EARN_REVERSAL', points: -700, balance_after: 0 });
    expect(reversal!.note).toContain('300 of them already spent');
    const history = await app.request(
      `/api/loyalty/transactions?companyId=${trip.companyId}`,
      bearer(traveller),
    );
    expect(history.status, history.text).toBe(200);
  });

  it('a refund racing the award of its trip: the points end taken back, whichever goes first', async () => {
    const trip = await programWithTrip(app.db, { price: 10_000 });
    const traveller = await app.signIn();
    const { paymentId, owner } = await paidCompletedBooking(trip, traveller);
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 5 });
    const { id: accountId } = (await accountOf(app.db, trip.companyId, traveller.userId))!;

    // The award has read the trip's bookings (none refunded) and waits for the traveller's account.
    const held = await holdLock(
      app.db,
      `select id from loyalty_accounts where id = '${accountId}' for update`,
    );
    const award = awardTripPoints(app.db, trip.tripId);
    await waitersOf(app.db, held.pid);
    const refund = paymentAction(app, owner, paymentId, 'refund');
    // The refund either finishes (nothing earned yet to take back) or waits behind the award.
    await Promise.race([refund, waitersOf(app.db, held.pid, 2).catch(() => [])]);
    await held.release();
    const [awarded, refunded] = await Promise.all([award, refund]);
    expect(refunded.status, refunded.text).toBe(200);
    expect(awarded.pointsCredited).toBeLessThanOrEqual(1000);
    expect(await accountOf(app.db, trip.companyId, traveller.userId)).toMatchObject({
      balance: 5,
      lifetime_points: 5,
    });
  });

  it("stops a trip's earned points at the account's limit instead of failing the award", async () => {
    const trip = await programWithTrip(app.db);
    const traveller = await app.signIn();
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 1 });
    await app.db.query(
      `update loyalty_accounts set balance = 2147483640, lifetime_points = 2147483640
        where company_id = $1 and user_id = $2`,
      [trip.companyId, traveller.userId],
    );
    await completedBooking(app.db, trip, traveller.userId, { totalPrice: 10_000 });
    await completeTrip(app.db, trip.tripId);
    expect(await awardTripPoints(app.db, trip.tripId)).toMatchObject({
      bookingsCredited: 1,
      pointsCredited: 7,
    });
    expect(await accountOf(app.db, trip.companyId, traveller.userId)).toMatchObject({
      balance: 2_147_483_647,
      lifetime_points: 2_147_483_647,
    });
  });
});
