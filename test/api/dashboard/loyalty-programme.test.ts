import { beforeAll, describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { bookableTrip, type BookableTripFixture } from '../../support/bookings.js';
import { ensureAccount } from '../../../db/writes/loyalty/index.js';
import { createCompany, createRoute } from '../../support/factories.js';
import { useTestApp, type SignedInTraveller, type TestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { demotedWhileWriting, suspendedWhileWriting } from '../../support/suspension.js';
import { creditPoints, redeemVoucher } from '../../support/loyalty.js';
import {
  companyWithProgramme,
  programmeCall,
  programmeRows,
  PROGRAM,
  type StaffSessionFixture,
} from '../../support/loyalty-admin.js';

const BASE_TIER = { nameAr: 'أساسي', nameEn: 'Base', minLifetimePoints: 0, multiplierPercent: 100 };
const SILVER_TIER = { nameAr: 'فضي', nameEn: 'Silver', minLifetimePoints: 2000, multiplierPercent: 125 };

/** POST /loyalty/tiers as `owner`; answers the new tier's id. */
async function createTier(app: TestApp, owner: StaffSessionFixture, tier: typeof BASE_TIER): Promise<string> {
  const created = await programmeCall(app, owner, 'POST', '/loyalty/tiers', tier);
  expect(created.status, created.text).toBe(201);
  return created.body.data.id as string;
}

const discount = (overrides: Record<string, unknown> = {}) => ({
  code: `SAVE${Math.floor(Math.random() * 1e6)}`,
  nameAr: 'خصم',
  nameEn: 'Discount',
  type: 'discount',
  discountPercent: 10,
  pointsCost: 100,
  ...overrides,
});

describe('the company loyalty programme: terms, tiers and rewards', () => {
  const app = useTestApp();
  let trip: BookableTripFixture;
  let owner: StaffSessionFixture;

  beforeAll(async () => {
    trip = await bookableTrip(app.db, { price: 10_000 });
    owner = await companyWithProgramme(app, trip.companyId);
  });

  it('sets the programme up, shows it with its tiers, rewards and accounts, and audits the change', async () => {
    const fresh = await createCompany(app.db);
    const freshOwner = await staffSession(app.db, app.config, fresh.id, 'OWNER');
    const empty = await programmeCall(app, freshOwner, 'GET', '/loyalty');
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toMatchObject({
      data: { program: null, tiers: [], rewards: [], accounts: [] },
      pagination: { limit: 20, offset: 0, total: 0 },
    });
    const rewardFirst = await programmeCall(app, freshOwner, 'POST', '/loyalty/rewards', discount());
    expect(rewardFirst.status).toBe(409);
    expect(rewardFirst.body.errorCode).toBe('LOYALTY_PROGRAM_NOT_FOUND');

    const saved = await programmeCall(app, freshOwner, 'PUT', '/loyalty', PROGRAM);
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.data).toMatchObject(PROGRAM);
    const read = await programmeCall(app, freshOwner, 'GET', '/loyalty');
    expect(read.body.data.program).toMatchObject(PROGRAM);
    const audit = await app.db.query(
      `select actor_id, details from audit_log where action = 'loyalty.program.update' and target_id = $1`,
      [fresh.id],
    );
    expect(audit).toEqual([
      { actor_id: freshOwner.staffUserId, details: expect.objectContaining({ terms: PROGRAM }) },
    ]);
  });

  it('adds and changes tiers, moving every account to the tier its lifetime points reach', async () => {
    const traveller = await app.signIn();
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 1500 });
    const baseId = await createTier(app, owner, BASE_TIER);
    const silverId = await createTier(app, owner, SILVER_TIER);
    const tierOf = async () =>
      (
        await app.db.query<{ tier_id: string }>(
          `select tier_id from loyalty_accounts where company_id = $1 and user_id = $2`,
          [trip.companyId, traveller.userId],
        )
      )[0]!.tier_id;
    expect(await tierOf()).toBe(baseId);

    const lowered = await programmeCall(app, owner, 'PUT', `/loyalty/tiers/${silverId}`, {
      nameAr: 'فضي',
      nameEn: 'Silver',
      minLifetimePoints: 1000,
      multiplierPercent: 130,
    });
    expect(lowered.status, lowered.text).toBe(200);
    expect(lowered.body.data).toMatchObject({ minLifetimePoints: 1000, multiplierPercent: 130 });
    expect(await tierOf()).toBe(silverId);

    const before = await programmeRows(app.db, trip.companyId);
    const taken = await programmeCall(app, owner, 'POST', '/loyalty/tiers', {
      nameAr: 'مكرر',
      nameEn: 'Twin',
      minLifetimePoints: 1000,
      multiplierPercent: 110,
    });
    expect(taken.status).toBe(409);
    expect(taken.body.errorCode).toBe('LOYALTY_TIER_THRESHOLD_TAKEN');
    // Travellers read tier and programme names: no control or bidirectional-override characters.
    const unprintable = [
      await programmeCall(app, owner, 'POST', '/loyalty/tiers', {
        nameAr: 'ذهبي',
        nameEn: 'Gold\u0007',
        minLifetimePoints: 5000,
        multiplierPercent: 150,
      }),
      await programmeCall(app, owner, 'PUT', `/loyalty/tiers/${silverId}`, {
        nameAr: 'فضي',
        nameEn: 'Silver \u202E2',
        minLifetimePoints: 1000,
        multiplierPercent: 130,
      }),
      await programmeCall(app, owner, 'PUT', '/loyalty', { ...PROGRAM, nameEn: 'Stars \u2066' }),
    ];
    expect(unprintable.map((answer) => [answer.status, answer.body.errorCode])).toEqual(
      Array(3).fill([400, 'VALIDATION_FAILED']),
    );
    expect(await programmeRows(app.db, trip.companyId)).toEqual(before);
  });

  it("accepts rewards on the company's own running routes only, sane for their type, with unique codes", async () => {
    const created = await programmeCall(
      app,
      owner,
      'POST',
      '/loyalty/rewards',
      discount({ code: 'route20', routeIds: [trip.routeId], allowedDays: [5, 6] }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      code: 'ROUTE20',
      routeIds: [trip.routeId],
      allowedDays: [5, 6],
      voucherValidDays: 30,
      active: true,
      redemptionCount: 0,
      openVouchers: 0,
    });

    const other = await bookableTrip(app.db);
    const inactive = await createRoute(app.db, trip.companyId, trip.from.cityId, trip.to.cityId);
    await app.db.query(`update routes set active = false where id = $1`, [inactive.id]);
    const before = await programmeRows(app.db, trip.companyId);
    const refused: [Record<string, unknown>, number, string][] = [
      [discount({ routeIds: [other.routeId] }), 422, 'LOYALTY_ROUTE_NOT_OWNED'],
      [discount({ routeIds: [trip.routeId, inactive.id] }), 422, 'LOYALTY_ROUTE_NOT_OWNED'],
      [discount({ routeIds: ['00000000-0000-4000-8000-000000000000'] }), 422, 'LOYALTY_ROUTE_NOT_OWNED'],
      [discount({ discountAmount: 500 }), 400, 'LOYALTY_REWARD_CONFIGURATION_INVALID'],
      [discount({ type: 'free_trip', discountPercent: null }), 400, 'LOYALTY_REWARD_CONFIGURATION_INVALID'],
      [discount({ type: 'merchandise' }), 400, 'LOYALTY_REWARD_CONFIGURATION_INVALID'],
      [discount({ code: 'ROUTE20' }), 409, 'LOYALTY_REWARD_CODE_TAKEN'],
      [discount({ code: 'RWD-ABCDEFGH' }), 400, 'VALIDATION_FAILED'],
      [discount({ type: 'cashback' }), 400, 'VALIDATION_FAILED'],
      [discount({ pointsCost: 0 }), 400, 'VALIDATION_FAILED'],
      [discount({ allowedDays: [8] }), 400, 'VALIDATION_FAILED'],
      [discount({ routeIds: ['route-1'] }), 400, 'VALIDATION_FAILED'],
      // Travellers read the name: a bidirectional override ("Save \u202E%05" shows as "Save 50%") or a control character.
      [discount({ nameEn: 'Save \u202E%05' }), 400, 'VALIDATION_FAILED'],
      [discount({ nameAr: 'خصم\u0007\u001b[2J' }), 400, 'VALIDATION_FAILED'],
      [discount({ companyId: other.companyId }), 400, 'SESSION_FIELD_REFUSED'],
    ];
    for (const [body, status, errorCode] of refused) {
      const response = await programmeCall(app, owner, 'POST', '/loyalty/rewards', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.errorCode, JSON.stringify(body)).toBe(errorCode);
    }
    expect(await programmeRows(app.db, trip.companyId)).toEqual(before);
    expect((await programmeRows(app.db, other.companyId)).rewards).toEqual([]);

    const mug = await programmeCall(app, owner, 'POST', '/loyalty/rewards', {
      ...discount({ type: 'merchandise', discountPercent: null }),
      nameEn: 'Mug',
    });
    expect(mug.status, mug.text).toBe(201);
  });

  async function travellerWithVoucher(
    rewardCode: string,
  ): Promise<{ traveller: SignedInTraveller; voucher: string }> {
    const traveller = await app.signIn();
    await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 300 });
    return { traveller, voucher: await redeemVoucher(app, traveller.token, trip.companyId, rewardCode) };
  }

  const previewOnTrip = (traveller: SignedInTraveller, voucher: string) =>
    app.request('/api/loyalty/preview', {
      method: 'POST',
      token: traveller.token,
      json: { redemptionCode: voucher, subtotal: 10_000, tripIds: [trip.tripId] },
    });

  it('keeps the terms of vouchers already issued when the reward is edited; new vouchers get the new terms', async () => {
    const reward = await programmeCall(
      app,
      owner,
      'POST',
      '/loyalty/rewards',
      discount({ discountPercent: 10 }),
    );
    const { traveller, voucher } = await travellerWithVoucher(reward.body.data.code);

    const edited = await programmeCall(
      app,
      owner,
      'PUT',
      `/loyalty/rewards/${reward.body.data.id}`,
      discount({ code: reward.body.data.code, discountPercent: 50, minSubtotal: 1_000_000, pointsCost: 150 }),
    );
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toMatchObject({
      discountPercent: 50,
      minSubtotal: 1_000_000,
      redemptionCount: 1,
      openVouchers: 1,
    });

    const old = await previewOnTrip(traveller, voucher);
    expect(old.status, old.text).toBe(200);
    expect(old.body).toMatchObject({ valid: true, discount: 1_000, finalTotal: 9_000 });

    const second = await travellerWithVoucher(reward.body.data.code);
    const newer = await previewOnTrip(second.traveller, second.voucher);
    expect(newer.status).toBe(409);
    expect(newer.body.errorCode).toBe('LOYALTY_MINIMUM_NOT_MET');

    const tooLow = await programmeCall(
      app,
      owner,
      'PUT',
      `/loyalty/rewards/${reward.body.data.id}`,
      discount({ code: reward.body.data.code, maxRedemptions: 1 }),
    );
    expect(tooLow.status).toBe(409);
    expect(tooLow.body).toMatchObject({
      errorCode: 'LOYALTY_REWARD_LIMIT_BELOW_REDEEMED',
      details: { maxRedemptions: 1, redeemed: 2 },
    });
  });

  it('deletes a reward never redeemed; archives one with vouchers and returns their points', async () => {
    const unused = await programmeCall(app, owner, 'POST', '/loyalty/rewards', discount());
    const removed = await programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${unused.body.data.id}`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data).toEqual({
      rewardId: unused.body.data.id,
      removed: true,
      vouchersCancelled: 0,
      pointsReturned: 0,
    });
    expect(await app.db.query(`select id from loyalty_rewards where id = $1`, [unused.body.data.id])).toEqual(
      [],
    );

    const reward = await programmeCall(app, owner, 'POST', '/loyalty/rewards', discount({ pointsCost: 120 }));
    const { traveller, voucher } = await travellerWithVoucher(reward.body.data.code);
    const account = async () =>
      (
        await app.db.query<{ id: string; balance: number; lifetime_points: number }>(
          `select id, balance, lifetime_points from loyalty_accounts where company_id = $1 and user_id = $2`,
          [trip.companyId, traveller.userId],
        )
      )[0]!;
    expect(await account()).toMatchObject({ balance: 180, lifetime_points: 300 });

    const withdrawn = await programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${reward.body.data.id}`);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.data).toMatchObject({ removed: false, vouchersCancelled: 1, pointsReturned: 120 });
    expect(await account()).toMatchObject({ balance: 300, lifetime_points: 300 });
    const [refund] = await app.db.query(
      `select kind, points, balance_after, actor_staff_user_id, reason from loyalty_transactions
        where account_id = $1 order by created_at desc limit 1`,
      [(await account()).id],
    );
    expect(refund).toMatchObject({
      kind: 'VOUCHER_REFUND',
      points: 120,
      balance_after: 300,
      actor_staff_user_id: owner.staffUserId,
      reason: expect.stringContaining(reward.body.data.code),
    });
    expect((await previewOnTrip(traveller, voucher)).body.errorCode).toBe('LOYALTY_REDEMPTION_NOT_FOUND');
    const listed = await programmeCall(app, owner, 'GET', '/loyalty');
    expect(listed.body.data.rewards.map((item: any) => item.id)).not.toContain(reward.body.data.id);
    const redeem = await app.request('/api/loyalty/redeem', {
      method: 'POST',
      token: traveller.token,
      json: { companyId: trip.companyId, rewardCode: reward.body.data.code },
    });
    expect(redeem.status).toBe(404);

    const again = await programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${reward.body.data.id}`);
    expect(again.body.data).toMatchObject({ removed: false, vouchersCancelled: 0, pointsReturned: 0 });
    expect(await account()).toMatchObject({ balance: 300 });
    const edit = await programmeCall(
      app,
      owner,
      'PUT',
      `/loyalty/rewards/${reward.body.data.id}`,
      discount(),
    );
    expect(edit.status).toBe(404);
  });

  it("returns every holder's voucher points when one holder sits at the points limit, capping only what cannot fit", async () => {
    const reward = await programmeCall(app, owner, 'POST', '/loyalty/rewards', discount({ pointsCost: 120 }));
    const holders = [];
    for (let index = 0; index < 3; index += 1)
      holders.push(await travellerWithVoucher(reward.body.data.code));
    const [veteran, newcomer, brimful] = holders.map((holder) => holder.traveller);
    const limit = 2_147_483_647;
    const accountOf = async (traveller: SignedInTraveller) =>
      (
        await app.db.query<{ id: string; balance: number; lifetime_points: number }>(
          `select id, balance, lifetime_points from loyalty_accounts where company_id = $1 and user_id = $2`,
          [trip.companyId, traveller.userId],
        )
      )[0]!;
    // The veteran's lifetime total is at the limit (a voucher refund adds none); the brimful
    // traveller's balance is 50 points short of it.
    await app.db.query(`update loyalty_accounts set lifetime_points = $2 where id = $1`, [
      (await accountOf(veteran!)).id,
      limit,
    ]);
    await app.db.query(`update loyalty_accounts set balance = $2, lifetime_points = $3 where id = $1`, [
      (await accountOf(brimful!)).id,
      limit - 50,
      limit,
    ]);

    const withdrawn = await programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${reward.body.data.id}`);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.data).toMatchObject({ removed: false, vouchersCancelled: 3, pointsReturned: 290 });
    const after = await Promise.all([veteran!, newcomer!, brimful!].map(accountOf));
    expect(after.map(({ balance, lifetime_points }) => ({ balance, lifetime_points }))).toEqual([
      { balance: 300, lifetime_points: limit },
      { balance: 300, lifetime_points: 300 },
      { balance: limit, lifetime_points: limit },
    ]);
    const [capped] = await app.db.query<{ kind: string; points: number; reason: string }>(
      `select kind, points, reason from loyalty_transactions where account_id = $1 order by created_at desc limit 1`,
      [after[2]!.id],
    );
    expect(capped).toMatchObject({ kind: 'VOUCHER_REFUND', points: 50 });
    expect(capped!.reason).toContain('70 of 120 points not returned');
  });

  describe('catalogue changes meeting each other or a redeem', () => {
    it('two first PUT /loyalty at once both land, one after the other', async () => {
      const fresh = await createCompany(app.db);
      const freshOwner = await staffSession(app.db, app.config, fresh.id, 'OWNER');
      // Neither finds a programme to lock before both write: the test holds the table meanwhile.
      const table = await holdLock(app.db, 'lock table loyalty_programs in share mode');
      const saves = Promise.all([
        programmeCall(app, freshOwner, 'PUT', '/loyalty', PROGRAM),
        programmeCall(app, freshOwner, 'PUT', '/loyalty', { ...PROGRAM, pointsPer100: 7 }),
      ]);
      await waitersOf(app.db, table.pid, 2);
      await table.release();
      const answers = await saves;
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const [program] = await app.db.query<{ points_per_100: number }>(
        `select points_per_100 from loyalty_programs where company_id = $1`,
        [fresh.id],
      );
      expect([PROGRAM.pointsPer100, 7]).toContain(program!.points_per_100);
    });

    it('a limit lowered while a redeem is in flight is judged by the count the redeem leaves', async () => {
      const reward = await programmeCall(
        app,
        owner,
        'POST',
        '/loyalty/rewards',
        discount({ maxRedemptions: 10 }),
      );
      const code = reward.body.data.code as string;
      await travellerWithVoucher(code);
      const second = await app.signIn();
      await creditPoints(app.db, { companyId: trip.companyId, userId: second.userId, points: 300 });
      // The redeem waits for the reward's row, then the edit behind it.
      const row = await holdLock(
        app.db,
        `select id from loyalty_rewards where id = '${reward.body.data.id}' for update`,
      );
      const redeem = redeemVoucher(app, second.token, trip.companyId, code);
      await waitersOf(app.db, row.pid);
      const edit = programmeCall(
        app,
        owner,
        'PUT',
        `/loyalty/rewards/${reward.body.data.id}`,
        discount({ code, maxRedemptions: 1 }),
      );
      await waitersOf(app.db, row.pid, 2);
      await row.release();

      expect(await redeem).toEqual(expect.any(String));
      const edited = await edit;
      expect([edited.status, edited.body.errorCode], edited.text).toEqual([
        409,
        'LOYALTY_REWARD_LIMIT_BELOW_REDEEMED',
      ]);
      expect(edited.body.details).toEqual({ maxRedemptions: 1, redeemed: 2 });
    });

    it('a reward withdrawn while its first voucher is being redeemed is archived, the voucher cancelled and its points returned', async () => {
      const reward = await programmeCall(
        app,
        owner,
        'POST',
        '/loyalty/rewards',
        discount({ pointsCost: 120 }),
      );
      const traveller = await app.signIn();
      await creditPoints(app.db, { companyId: trip.companyId, userId: traveller.userId, points: 300 });
      // The redeem stops at its ledger entry, holding the reward; the withdrawal waits for the reward.
      const ledger = await holdLock(app.db, 'lock table loyalty_transactions in share mode');
      const redeem = redeemVoucher(app, traveller.token, trip.companyId, reward.body.data.code);
      await waitersOf(app.db, ledger.pid);
      const withdrawal = programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${reward.body.data.id}`);
      await waitersOf(app.db, ledger.pid, 2);
      await ledger.release();

      expect(await redeem).toEqual(expect.any(String));
      const withdrawn = await withdrawal;
      expect(withdrawn.status, withdrawn.text).toBe(200);
      expect(withdrawn.body.data).toMatchObject({
        removed: false,
        vouchersCancelled: 1,
        pointsReturned: 120,
      });
      const [account] = await app.db.query<{ balance: number }>(
        `select balance from loyalty_accounts where company_id = $1 and user_id = $2`,
        [trip.companyId, traveller.userId],
      );
      expect(account!.balance).toBe(300);
    });
  });

  it("answers 404 for another company's reward or tier and changes nothing of either", async () => {
    const other = await bookableTrip(app.db);
    const otherOwner = await companyWithProgramme(app, other.companyId);
    const theirs = await programmeCall(app, otherOwner, 'POST', '/loyalty/rewards', discount());
    const theirTier = await programmeCall(app, otherOwner, 'POST', '/loyalty/tiers', {
      nameAr: 'أ',
      nameEn: 'A',
      minLifetimePoints: 0,
      multiplierPercent: 100,
    });
    const before = await programmeRows(app.db, other.companyId);
    const attempts = [
      await programmeCall(app, owner, 'PUT', `/loyalty/rewards/${theirs.body.data.id}`, discount()),
      await programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${theirs.body.data.id}`),
      await programmeCall(app, owner, 'PUT', `/loyalty/tiers/${theirTier.body.data.id}`, {
        nameAr: 'ب',
        nameEn: 'B',
        minLifetimePoints: 5,
        multiplierPercent: 100,
      }),
    ];
    expect(attempts.map((response) => [response.status, response.body.errorCode])).toEqual([
      [404, 'LOYALTY_REWARD_NOT_FOUND'],
      [404, 'LOYALTY_REWARD_NOT_FOUND'],
      [404, 'LOYALTY_TIER_NOT_FOUND'],
    ]);
    expect(await programmeRows(app.db, other.companyId)).toEqual(before);
  });

  it('refuses an ADMIN demoted to STAFF while the change waits for the company 403 ROLE_NOT_ALLOWED, changing nothing', async () => {
    const own = await bookableTrip(app.db);
    await companyWithProgramme(app, own.companyId);
    const admin = await staffSession(app.db, app.config, own.companyId, 'ADMIN');
    const before = await programmeRows(app.db, own.companyId);
    const refused = await demotedWhileWriting(app.db, own.companyId, admin.membershipId, 'STAFF', () =>
      programmeCall(app, admin, 'PUT', '/loyalty', { ...PROGRAM, pointsPer100: 9 }),
    );
    expect([refused.status, refused.body?.errorCode, refused.body?.details], refused.text).toEqual([
      403,
      'ROLE_NOT_ALLOWED',
      { role: 'STAFF', allowedRoles: ['OWNER', 'ADMIN'] },
    ]);
    expect(await programmeRows(app.db, own.companyId)).toEqual(before);
  });

  it('refuses a change that reaches the company after its suspension committed meanwhile (403 COMPANY_SUSPENDED), changing nothing', async () => {
    const own = await bookableTrip(app.db);
    const ownOwner = await companyWithProgramme(app, own.companyId);
    const before = await programmeRows(app.db, own.companyId);
    const writes: [string, () => ReturnType<typeof programmeCall>][] = [
      ['terms', () => programmeCall(app, ownOwner, 'PUT', '/loyalty', { ...PROGRAM, pointsPer100: 7 })],
      ['tier', () => programmeCall(app, ownOwner, 'POST', '/loyalty/tiers', BASE_TIER)],
      ['reward', () => programmeCall(app, ownOwner, 'POST', '/loyalty/rewards', discount())],
    ];
    for (const [name, write] of writes) {
      const refused = await suspendedWhileWriting(app.db, own.companyId, write);
      expect([name, refused.status, refused.body?.errorCode], refused.text).toEqual([
        name,
        403,
        'COMPANY_SUSPENDED',
      ]);
      expect(await programmeRows(app.db, own.companyId), name).toEqual(before);
      await app.db.query(`update companies set status = 'ACTIVE' where id = $1`, [own.companyId]);
    }
  });
});

/**
 * A tier's threshold moved while a manual adjustment lifts an account into that tier: the tier change
 * updates the tier row (a key column) and then moves the accounts, the adjustment holds the account
 * and its tier foreign-key check waits for the tier row. Both run again on a deadlock, so they take
 * turns (before: one of them answered 500, whichever PostgreSQL ended).
 */
describe('a tier threshold change meeting an account adjustment', () => {
  const app = useTestApp();
  let companyId: string;
  let owner: StaffSessionFixture;

  beforeAll(async () => {
    companyId = (await createCompany(app.db)).id;
    owner = await companyWithProgramme(app, companyId);
  });

  it('tier change first: both answer 200, the account holds both changes', async () => {
    await createTier(app, owner, BASE_TIER);
    const silverId = await createTier(app, owner, SILVER_TIER);

    const traveller = await app.signIn();
    const accountId = await ensureAccount(app.db.pool, companyId, traveller.userId);
    await creditPoints(app.db, { companyId, userId: traveller.userId, points: 1500 });

    // Hold the tier row so both requests are provably in flight at the same time.
    const held = await holdLock(app.db, `select id from loyalty_tiers where id = '${silverId}' for update`);
    const put = programmeCall(app, owner, 'PUT', `/loyalty/tiers/${silverId}`, {
      nameAr: 'فضي',
      nameEn: 'Silver',
      minLifetimePoints: 1000,
      multiplierPercent: 125,
    });
    await waitersOf(app.db, held.pid, 1);
    const adjust = programmeCall(app, owner, 'POST', `/loyalty/accounts/${accountId}/adjust`, {
      points: 600,
      reason: 'Goodwill for a late bus',
    });
    await waitersOf(app.db, held.pid, 2);
    await held.release();
    const [changed, adjusted] = await Promise.all([put, adjust]);

    expect(
      { tier: [changed.status, changed.body.errorCode], adjust: [adjusted.status, adjusted.body.errorCode] },
      `${changed.text} | ${adjusted.text}`,
    ).toEqual({ tier: [200, undefined], adjust: [200, undefined] });
    const [account] = await app.db.query<{ balance: number; lifetime_points: number }>(
      `select balance, lifetime_points from loyalty_accounts where id = $1`,
      [accountId],
    );
    expect(account).toEqual({ balance: 2100, lifetime_points: 2100 });
  });

  it('adjustment first: both answer 200', async () => {
    const gold = await programmeCall(app, owner, 'POST', '/loyalty/tiers', {
      nameAr: 'ذهبي',
      nameEn: 'Gold',
      minLifetimePoints: 10_000,
      multiplierPercent: 150,
    });
    expect(gold.status, gold.text).toBe(201);
    const goldId = gold.body.data.id as string;
    const traveller = await app.signIn();
    const accountId = await ensureAccount(app.db.pool, companyId, traveller.userId);
    await creditPoints(app.db, { companyId, userId: traveller.userId, points: 8000 });

    // The adjustment waits for the account first, then the tier change queues behind it.
    const held = await holdLock(
      app.db,
      `select id from loyalty_accounts where id = '${accountId}' for no key update`,
    );
    const adjust = programmeCall(app, owner, 'POST', `/loyalty/accounts/${accountId}/adjust`, {
      points: 2500,
      reason: 'Goodwill for a late bus',
    });
    await waitersOf(app.db, held.pid, 1);
    const put = programmeCall(app, owner, 'PUT', `/loyalty/tiers/${goldId}`, {
      nameAr: 'ذهبي',
      nameEn: 'Gold',
      minLifetimePoints: 7000,
      multiplierPercent: 150,
    });
    await waitersOf(app.db, held.pid, 2);
    await held.release();
    const [adjusted, changed] = await Promise.all([adjust, put]);
    expect(
      { tier: [changed.status, changed.body.errorCode], adjust: [adjusted.status, adjusted.body.errorCode] },
      `${changed.text} | ${adjusted.text}`,
    ).toEqual({ tier: [200, undefined], adjust: [200, undefined] });
  });
});
