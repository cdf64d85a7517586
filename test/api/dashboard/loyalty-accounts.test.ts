import { randomInt, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '../../../db/writes/loyalty/index.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { creditPoints } from '../../support/loyalty.js';
import {
  companyWithProgramme,
  programmeCall,
  programmeRows,
  PROGRAM,
  type StaffSessionFixture,
} from '../../support/loyalty-admin.js';

describe("the company's loyalty accounts: balances, manual adjustments and who may do what", () => {
  const app = useTestApp();
  let companyId: string;
  let owner: StaffSessionFixture;

  beforeAll(async () => {
    companyId = (await createCompany(app.db)).id;
    owner = await companyWithProgramme(app, companyId);
  });

  async function accountWith(points: number, phone?: string) {
    const traveller = await app.signIn(undefined, phone ? { phone } : {});
    const accountId = await ensureAccount(app.db.pool, companyId, traveller.userId);
    if (points > 0) await creditPoints(app.db, { companyId, userId: traveller.userId, points });
    return { traveller, accountId };
  }

  const adjust = (staff: Pick<StaffSessionFixture, 'writeHeaders'>, accountId: string, json: unknown) =>
    programmeCall(app, staff, 'POST', `/loyalty/accounts/${accountId}/adjust`, json);

  const balanceOf = async (accountId: string) =>
    (
      await app.db.query<{ balance: number }>(`select balance from loyalty_accounts where id = $1`, [
        accountId,
      ])
    )[0]!.balance;

  it('adds and takes points as one ledger transaction naming the company user and the reason', async () => {
    const { accountId } = await accountWith(100);
    const added = await adjust(owner, accountId, { points: 50, reason: 'Bus broke down on the way' });
    expect(added.status, added.text).toBe(200);
    expect(added.body.data).toMatchObject({
      account: { id: accountId, balance: 150, lifetimePoints: 150 },
      transaction: {
        kind: 'ADJUST',
        points: 50,
        balanceAfter: 150,
        reason: 'Bus broke down on the way',
        actorStaffUserId: owner.staffUserId,
      },
    });
    const taken = await adjust(owner, accountId, { points: -150, reason: 'Points credited twice' });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.data.account).toMatchObject({ balance: 0, lifetimePoints: 150 });
    const ledger = await app.db.query(
      `select kind, points, balance_after, actor_staff_user_id, reason from loyalty_transactions
        where account_id = $1 order by created_at`,
      [accountId],
    );
    expect(ledger.slice(1)).toEqual([
      {
        kind: 'ADJUST',
        points: 50,
        balance_after: 150,
        actor_staff_user_id: owner.staffUserId,
        reason: 'Bus broke down on the way',
      },
      {
        kind: 'ADJUST',
        points: -150,
        balance_after: 0,
        actor_staff_user_id: owner.staffUserId,
        reason: 'Points credited twice',
      },
    ]);
    const audit = await app.db.query(
      `select actor_id, details from audit_log where action = 'loyalty.account.adjust' and target_id = $1 order by created_at`,
      [accountId],
    );
    expect(audit.map((row: any) => row.details.points)).toEqual([50, -150]);
  });

  it('never lets a balance go negative: 409, nothing written', async () => {
    const { accountId } = await accountWith(30);
    const before = await programmeRows(app.db, companyId);
    const refused = await adjust(owner, accountId, { points: -31, reason: 'Too much' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      errorCode: 'LOYALTY_INSUFFICIENT_POINTS',
      details: { balance: 30 },
    });
    expect(await programmeRows(app.db, companyId)).toEqual(before);
  });

  it('never takes an account past 2,147,483,647 points: 409 LOYALTY_BALANCE_LIMIT, nothing written', async () => {
    const { accountId } = await accountWith(0);
    // Two thousand adjustments of a million points later (set here in one step):
    await app.db.query(
      `update loyalty_accounts set balance = 2147483600, lifetime_points = 2147483600 where id = $1`,
      [accountId],
    );
    const before = await programmeRows(app.db, companyId);
    const refused = await adjust(owner, accountId, { points: 1_000_000, reason: 'Goodwill' });
    expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'LOYALTY_BALANCE_LIMIT']);
    expect(refused.body.details).toEqual({
      balance: 2147483600,
      lifetimePoints: 2147483600,
      limit: 2147483647,
    });
    expect(await programmeRows(app.db, companyId)).toEqual(before);
    const toTheLimit = await adjust(owner, accountId, { points: 47, reason: 'Goodwill' });
    expect(toTheLimit.status, toTheLimit.text).toBe(200);
    expect(await balanceOf(accountId)).toBe(2_147_483_647);
  });

  it('refuses two concurrent adjustments that together would go negative: one wins, one is refused', async () => {
    const { accountId } = await accountWith(100);
    const answers = await Promise.all([
      adjust(owner, accountId, { points: -60, reason: 'First correction' }),
      adjust(owner, accountId, { points: -60, reason: 'Second correction' }),
    ]);
    expect(answers.map((response) => response.status).sort()).toEqual([200, 409]);
    expect(await balanceOf(accountId)).toBe(40);

    const many = await accountWith(100);
    const ten = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        adjust(owner, many.accountId, { points: -30, reason: `Race ${index}` }),
      ),
    );
    expect(ten.filter((response) => response.status === 200)).toHaveLength(3);
    expect(ten.filter((response) => response.status === 409)).toHaveLength(7);
    expect(await balanceOf(many.accountId)).toBe(10);
    const entries = await app.db.query(
      `select balance_after from loyalty_transactions where account_id = $1 and kind = 'ADJUST' and points < 0 order by created_at`,
      [many.accountId],
    );
    expect(entries.map((row: any) => row.balance_after)).toEqual([70, 40, 10]);
  });

  it('refuses bad input and accounts of another company, changing nothing', async () => {
    const { accountId } = await accountWith(100);
    const other = await createCompany(app.db);
    await companyWithProgramme(app, other.id);
    const traveller = await app.signIn();
    const foreign = await ensureAccount(app.db.pool, other.id, traveller.userId);
    const before = await programmeRows(app.db, companyId);
    const cases: [string, unknown, number, string][] = [
      [accountId, { points: 0, reason: 'Nothing' }, 400, 'VALIDATION_FAILED'],
      [accountId, { points: 1.5, reason: 'Half' }, 400, 'VALIDATION_FAILED'],
      [accountId, { points: 10 }, 400, 'VALIDATION_FAILED'],
      [accountId, { points: 10, reason: ' ' }, 400, 'VALIDATION_FAILED'],
      [accountId, { points: 2_000_000, reason: 'Huge' }, 400, 'VALIDATION_FAILED'],
      [accountId, { points: 10, reason: 'Sneaky', companyId: other.id }, 400, 'SESSION_FIELD_REFUSED'],
      [accountId, { points: 10, reason: 'Sneaky', actorId: owner.staffUserId }, 400, 'SESSION_FIELD_REFUSED'],
      ['not-a-uuid', { points: 10, reason: 'Bad id' }, 400, 'VALIDATION_FAILED'],
      [foreign, { points: 10, reason: 'Not ours' }, 404, 'LOYALTY_ACCOUNT_NOT_FOUND'],
    ];
    for (const [id, body, status, errorCode] of cases) {
      const response = await adjust(owner, id, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.errorCode, JSON.stringify(body)).toBe(errorCode);
    }
    expect(await programmeRows(app.db, companyId)).toEqual(before);
    expect(await balanceOf(foreign)).toBe(0);
  });

  it('lists accounts with balances, highest first, searchable by name, phone or referral code, paged', async () => {
    const phone = `+96399${String(Date.now()).slice(-8)}`;
    const rich = await accountWith(900, phone);
    await accountWith(500);
    const first = await programmeCall(app, owner, 'GET', '/loyalty?limit=1');
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.accounts).toHaveLength(1);
    expect(first.body.pagination.total).toBeGreaterThanOrEqual(2);
    const [top] = first.body.data.accounts;
    const balances = (await programmeCall(app, owner, 'GET', '/loyalty?limit=100')).body.data.accounts.map(
      (account: any) => account.balance,
    );
    expect(balances).toEqual([...balances].sort((a, b) => b - a));
    expect(top.balance).toBe(balances[0]);

    const byPhone = await programmeCall(
      app,
      owner,
      'GET',
      `/loyalty?search=${encodeURIComponent(phone.slice(-8))}`,
    );
    expect(byPhone.body.data.accounts).toEqual([
      expect.objectContaining({ id: rich.accountId, phone, balance: 900, lifetimePoints: 900 }),
    ]);
    expect(byPhone.body.pagination.total).toBe(1);
    const code = byPhone.body.data.accounts[0].referralCode as string;
    const byCode = await programmeCall(app, owner, 'GET', `/loyalty?search=${code.toLowerCase()}`);
    expect(byCode.body.data.accounts.map((account: any) => account.id)).toEqual([rich.accountId]);
    const wildcard = await programmeCall(app, owner, 'GET', '/loyalty?search=%25');
    expect(wildcard.body.data.accounts).toEqual([]);
    const beyond = await programmeCall(app, owner, 'GET', '/loyalty?offset=1000');
    expect(beyond.body.data.accounts).toEqual([]);
    expect(beyond.body.pagination.total).toBe(first.body.pagination.total);
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'companyId=x']) {
      const bad = await programmeCall(app, owner, 'GET', `/loyalty?${query}`);
      expect(bad.status, query).toBe(400);
    }
  });

  it("finds a traveller's account by their name typed another way: احمد for أحمد, ه for ة, ي for ى, harakat, tatweel", async () => {
    const tag = randomUUID().slice(0, 6);
    const his = await accountWith(120);
    const other = await accountWith(80);
    const nameOf = (accountId: string, name: string) =>
      app.db.query(
        `update users set name = $2 where id = (select user_id from loyalty_accounts where id = $1)`,
        [accountId, name],
      );
    await nameOf(his.accountId, `أحمد الحمزة ${tag} مصطفى`);
    await nameOf(other.accountId, `Ahmad Mustafa ${tag}`);
    const found = async (search: string) => {
      const answer = await programmeCall(app, owner, 'GET', `/loyalty?search=${encodeURIComponent(search)}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.pagination.total, search).toBe(answer.body.data.accounts.length);
      return answer.body.data.accounts.map((account: { id: string }) => account.id);
    };
    for (const typed of [`أحمد الحمزة ${tag}`, `احمد الحمزه ${tag}`, `${tag} مصطفي`, `أَحـمَد الحمزة ${tag}`]) {
      expect(await found(typed), typed).toEqual([his.accountId]);
    }
    expect(await found(`AHMAD mustafa ${tag}`)).toEqual([other.accountId]);
    expect(await found(`Ahmad_Mustafa ${tag}`)).toEqual([]);
  });

  it("finds a traveller's account by their phone typed in the local form, spaced or with 00963, as the platform reads it", async () => {
    const national = `93${String(randomInt(0, 10_000_000)).padStart(7, '0')}`; // a Syrian mobile, 9 digits
    const phone = `+963${national}`;
    const mine = await accountWith(300, phone);
    const spaced = `0${national.slice(0, 3)} ${national.slice(3, 6)} ${national.slice(6)}`;
    for (const typed of [phone, `0${national}`, spaced, `00963 ${national}`, `+963 0${national}`]) {
      const found = await programmeCall(app, owner, 'GET', `/loyalty?search=${encodeURIComponent(typed)}`);
      expect(found.status, found.text).toBe(200);
      expect(found.body.data.accounts, typed).toEqual([
        expect.objectContaining({ id: mine.accountId, phone, balance: 300 }),
      ]);
      expect(found.body.pagination.total, typed).toBe(1);
    }
    // A number no account has, in the same form, finds nothing; another company's owner finds nothing.
    const last = Number(national.slice(-1));
    const otherNumber = `0${national.slice(0, -1)}${(last + 1) % 10}`;
    const nobody = await programmeCall(app, owner, 'GET', `/loyalty?search=${otherNumber}`);
    expect(nobody.body.pagination.total).toBe(0);
    const elsewhere = await companyWithProgramme(app, (await createCompany(app.db)).id);
    const foreign = await programmeCall(app, elsewhere, 'GET', `/loyalty?search=0${national}`);
    expect(foreign.status, foreign.text).toBe(200);
    expect(foreign.body.data.accounts).toEqual([]);
  });

  it('lets OWNER, ADMIN and ACCOUNTANT read; only OWNER and ADMIN write, with CSRF, for an active verified company', async () => {
    const { accountId } = await accountWith(100);
    for (const role of ['ADMIN', 'ACCOUNTANT', 'DISPATCHER', 'STAFF'] as const) {
      const member = await staffSession(app.db, app.config, companyId, role);
      const read = await programmeCall(app, member, 'GET', '/loyalty');
      expect(read.status, role).toBe(['ADMIN', 'ACCOUNTANT'].includes(role) ? 200 : 403);
      const before = await programmeRows(app.db, companyId);
      const writes = [
        await programmeCall(app, member, 'PUT', '/loyalty', { ...PROGRAM, pointsPer100: 7 }),
        await adjust(member, accountId, { points: 5, reason: `By ${role}` }),
        await programmeCall(app, member, 'POST', '/loyalty/tiers', {
          nameAr: 'ت',
          nameEn: `T ${role}`,
          minLifetimePoints: 77,
          multiplierPercent: 100,
        }),
      ];
      if (role === 'ADMIN') {
        expect(writes.map((response) => response.status)).toEqual([200, 200, 201]);
      } else {
        for (const response of writes) {
          expect(response.status, role).toBe(403);
          expect(response.body.errorCode).toBe('ROLE_NOT_ALLOWED');
        }
        expect(await programmeRows(app.db, companyId)).toEqual(before);
      }
    }
    const before = await programmeRows(app.db, companyId);
    const noCsrf = await app.request(`/dashboard/api/loyalty/accounts/${accountId}/adjust`, {
      method: 'POST',
      headers: { Cookie: owner.cookie },
      json: { points: 5, reason: 'No token' },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.errorCode).toBe('CSRF_TOKEN_INVALID');
    expect((await app.request('/dashboard/api/loyalty')).status).toBe(401);
    expect(await programmeRows(app.db, companyId)).toEqual(before);

    for (const [options, errorCode] of [
      [{ verified: false }, 'COMPANY_NOT_VERIFIED'],
      [{ status: 'SUSPENDED' as const }, 'COMPANY_SUSPENDED'],
    ] as const) {
      const company = await createCompany(app.db, options);
      const companyOwner = await staffSession(app.db, app.config, company.id, 'OWNER');
      const refused = await programmeCall(app, companyOwner, 'PUT', '/loyalty', PROGRAM);
      expect(refused.status).toBe(403);
      expect(refused.body.errorCode).toBe(errorCode);
      expect((await programmeRows(app.db, company.id)).program).toEqual([]);
      expect((await programmeCall(app, companyOwner, 'GET', '/loyalty')).status).toBe(200);
    }
  });

  it('refuses another role or an unverified company before reading the input: 403 whatever is sent, nothing written', async () => {
    const { accountId } = await accountWith(100);
    const invalidWrites = (staff: Pick<StaffSessionFixture, 'writeHeaders'>) =>
      Promise.all([
        programmeCall(app, staff, 'PUT', '/loyalty', {}),
        programmeCall(app, staff, 'POST', '/loyalty/tiers', { minLifetimePoints: -1 }),
        programmeCall(app, staff, 'PUT', '/loyalty/tiers/not-a-uuid', {}),
        programmeCall(app, staff, 'POST', '/loyalty/rewards', { code: 'x' }),
        programmeCall(app, staff, 'PUT', `/loyalty/rewards/${randomUUID()}`, { type: 'mug' }),
        programmeCall(app, staff, 'DELETE', '/loyalty/rewards/not-a-uuid'),
        adjust(staff, accountId, { points: 0 }),
        adjust(staff, 'not-a-uuid', {}),
      ]).then((answers) => answers.map((answer) => `${answer.status} ${answer.body?.errorCode}`));
    const before = await programmeRows(app.db, companyId);
    for (const role of ['ACCOUNTANT', 'DISPATCHER', 'STAFF'] as const) {
      const member = await staffSession(app.db, app.config, companyId, role);
      expect(await invalidWrites(member), role).toEqual(Array(8).fill('403 ROLE_NOT_ALLOWED'));
    }
    expect(await programmeRows(app.db, companyId)).toEqual(before);

    const unverified = await createCompany(app.db, { verified: false });
    const unverifiedOwner = await staffSession(app.db, app.config, unverified.id, 'OWNER');
    expect(await invalidWrites(unverifiedOwner)).toEqual(Array(8).fill('403 COMPANY_NOT_VERIFIED'));
    expect(await programmeRows(app.db, unverified.id)).toEqual({
      program: [],
      tiers: [],
      rewards: [],
      accounts: [],
      ledger: [],
      vouchers: [],
    });
  });
});
