import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '../../../db/writes/loyalty/index.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { creditPoints } from '../../support/loyalty.js';
import {
  companyWithProgramme,
  programmeRows,
  type StaffSessionFixture,
} from '../../support/loyalty-admin.js';

/**
 * A manual loyalty adjustment whose answer was lost, sent again (the member pressing again, the
 * HTTP library retrying): with the same Idempotency-Key it credits once and answers the first
 * adjustment again; the key used for another adjustment is refused with nothing written.
 */
describe('POST /dashboard/api/loyalty/accounts/{id}/adjust with an Idempotency-Key', () => {
  const app = useTestApp();

  interface Member {
    companyId: string;
    owner: StaffSessionFixture;
    accountId: string;
    otherAccountId: string;
  }

  /** A company with a programme, its owner, and two travellers' accounts of 100 points each. */
  async function member(): Promise<Member> {
    const companyId = (await createCompany(app.db)).id;
    const owner = await companyWithProgramme(app, companyId);
    const [accountId, otherAccountId] = await Promise.all(
      [0, 1].map(async () => {
        const traveller = await app.signIn();
        await creditPoints(app.db, { companyId, userId: traveller.userId, points: 100 });
        return ensureAccount(app.db.pool, companyId, traveller.userId);
      }),
    );
    return { companyId, owner, accountId: accountId!, otherAccountId: otherAccountId! };
  }

  const adjust = (who: Member, body: Record<string, unknown>, key?: string, accountId = who.accountId) =>
    app.request(`/dashboard/api/loyalty/accounts/${accountId}/adjust`, {
      method: 'POST',
      headers: { ...who.owner.writeHeaders, ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
      json: body,
    });

  /** The company's programme rows (balances, ledger...) and its adjustments' audit rows. */
  const snapshot = async (who: Member) => ({
    rows: await programmeRows(app.db, who.companyId),
    audit: await app.db.query(
      `select id from audit_log where action = 'loyalty.account.adjust'
          and target_id in (select id::text from loyalty_accounts where company_id = $1) order by id`,
      [who.companyId],
    ),
  });

  const balanceOf = async (accountId: string) =>
    (
      await app.db.query<{ balance: number }>(`select balance from loyalty_accounts where id = $1`, [
        accountId,
      ])
    )[0]!.balance;

  const GOODWILL = { points: 500, reason: 'Goodwill: bus broke down' };

  let company: Member;
  beforeAll(async () => {
    company = await member();
  });

  it('a retry with the same key answers the first adjustment and credits once; another key adjusts again', async () => {
    const key = `adjust-${randomUUID()}`;
    const first = await adjust(company, GOODWILL, key);
    expect(first.status, first.text).toBe(200);
    const afterFirst = await snapshot(company);

    const again = await adjust(company, GOODWILL, key);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(first.body.data.account.balance).toBe(600);
    expect(await snapshot(company)).toEqual(afterFirst);
    expect(await balanceOf(company.accountId)).toBe(600);

    // A new key is a new adjustment.
    const next = await adjust(company, GOODWILL, `adjust-${randomUUID()}`);
    expect([next.status, next.body.data?.account.balance]).toEqual([200, 1100]);
  });

  it('two calls with the same key at once credit once and both answer that adjustment', async () => {
    const who = await member();
    const key = `adjust-${randomUUID()}`;
    const answers = await Promise.all([adjust(who, GOODWILL, key), adjust(who, GOODWILL, key)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers[1].body).toEqual(answers[0].body);
    expect(await balanceOf(who.accountId)).toBe(600);
    const entries = await app.db.query(
      `select id from loyalty_transactions where account_id = $1 and kind = 'ADJUST' and reason = $2`,
      [who.accountId, GOODWILL.reason],
    );
    expect(entries).toHaveLength(1);
  });

  it('the same key with another body or account is 409 IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
    const key = `adjust-${randomUUID()}`;
    expect((await adjust(company, GOODWILL, key)).status).toBe(200);
    const before = await snapshot(company);

    const otherPoints = await adjust(company, { ...GOODWILL, points: 400 }, key);
    const otherReason = await adjust(company, { ...GOODWILL, reason: 'Goodwill: late by two hours' }, key);
    const otherAccount = await adjust(company, GOODWILL, key, company.otherAccountId);
    for (const refused of [otherPoints, otherReason, otherAccount]) {
      expect([refused.status, refused.body.errorCode], refused.text).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    }
    expect(await snapshot(company)).toEqual(before);
  });

  it('a refused adjustment keeps nothing under its key: the same key then adjusts', async () => {
    const key = `adjust-${randomUUID()}`;
    const before = await snapshot(company);
    const refused = await adjust(company, { points: -1_000_000, reason: 'Correction' }, key);
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'LOYALTY_INSUFFICIENT_POINTS']);
    expect(await snapshot(company)).toEqual(before);

    const balance = await balanceOf(company.otherAccountId);
    const corrected = await adjust(company, { points: 5, reason: 'Correction' }, key, company.otherAccountId);
    expect([corrected.status, corrected.body.data?.account.balance]).toEqual([200, balance + 5]);
  });

  it('keys are kept per company: another company’s same key adjusts its own account', async () => {
    const key = `adjust-${randomUUID()}`;
    const other = await member();
    expect((await adjust(company, GOODWILL, key)).status).toBe(200);
    const theirs = await adjust(other, GOODWILL, key);
    expect([theirs.status, theirs.body.data?.account.id]).toEqual([200, other.accountId]);
    expect(await balanceOf(other.accountId)).toBe(600);
  });

  it('a malformed key is 400 VALIDATION_FAILED and writes nothing', async () => {
    const before = await snapshot(company);
    for (const key of ['short', 'with spaces in it', 'clé-idempotence', 'k'.repeat(129), '']) {
      const refused = await adjust(company, GOODWILL, key);
      expect([refused.status, refused.body.errorCode], JSON.stringify(key)).toEqual([
        400,
        'VALIDATION_FAILED',
      ]);
      expect(refused.body.details.issues[0].path).toBe('headers.Idempotency-Key');
    }
    expect(await snapshot(company)).toEqual(before);
  });

  it('without the header every call adjusts, as before', async () => {
    const who = await member();
    await adjust(who, GOODWILL);
    await adjust(who, GOODWILL);
    expect(await balanceOf(who.accountId)).toBe(1100);
  });
});
