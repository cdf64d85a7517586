import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '../../../db/writes/loyalty/index.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { everyPage } from '../../support/pages.js';
import {
  companyWithProgramme,
  programmeCall,
  type StaffSessionFixture,
} from '../../support/loyalty-admin.js';

/**
 * The programme's accounts (GET /loyalty) a page at a time: highest balance first, accounts of
 * one balance by id, so a page ending among them neither repeats nor skips one; a search narrows
 * them by the traveller's name, with pagination.total the matching accounts on every page, a page
 * past the end too; each account carries its own traveller.
 */
describe('GET /dashboard/api/loyalty: the accounts a page at a time', () => {
  const app = useTestApp();
  let owner: StaffSessionFixture;
  const tag = crypto.randomUUID().slice(0, 6);
  /** Every account of the programme: id, balance, traveller's name. */
  const accounts: { id: string; balance: number; name: string }[] = [];

  interface Listed {
    id: string;
    userId: string;
    name: string | null;
    balance: number;
  }

  /** The order the list promises: highest balance first, then id. */
  const inListOrder = (rows: typeof accounts) =>
    [...rows].sort((a, b) => (a.balance === b.balance ? (a.id < b.id ? -1 : 1) : b.balance - a.balance));

  const list = async (query: string) => {
    const response = await programmeCall(app, owner, 'GET', `/loyalty?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body as {
      data: { accounts: Listed[] };
      pagination: { limit: number; offset: number; total: number };
    };
  };

  /** Every page of `query` with `limit`, offset by offset until one comes back short. */
  const allPages = (query: string, limit: number) =>
    everyPage(
      (paging) => list(`${query}${paging}`),
      (page) => page.data.accounts,
      limit,
    );

  beforeAll(async () => {
    const companyId = (await createCompany(app.db)).id;
    owner = await companyWithProgramme(app, companyId);
    // Seven accounts at three balances (3, 2, 2): a page of 2 or 3 ends inside a group.
    const balances = [500, 500, 500, 200, 200, 0, 0];
    for (const [index, balance] of balances.entries()) {
      const traveller = await app.signIn();
      const name = index % 2 === 0 ? `Rami ${tag} ${index}` : `Lina ${tag} ${index}`;
      await app.db.query('update users set name = $2 where id = $1', [traveller.userId, name]);
      const id = await ensureAccount(app.db.pool, companyId, traveller.userId);
      await app.db.query('update loyalty_accounts set balance = $2, lifetime_points = $2 where id = $1', [
        id,
        balance,
      ]);
      accounts.push({ id, balance, name });
    }
    // Another company's account is never listed.
    const other = (await createCompany(app.db)).id;
    await companyWithProgramme(app, other);
    await ensureAccount(app.db.pool, other, (await app.signIn()).userId);
  });

  it('pages through accounts of one balance without repeating or skipping one, each with its traveller', async () => {
    const expected = inListOrder(accounts);
    for (const limit of [3, 2, 7]) {
      const pages = await allPages('', limit);
      expect(
        pages.flatMap((page) => page.data.accounts.map((account) => account.id)),
        `limit ${limit}`,
      ).toEqual(expected.map((account) => account.id));
      for (const [index, page] of pages.entries()) {
        expect(page.pagination).toEqual({ limit, offset: index * limit, total: 7 });
      }
      expect(
        pages.flatMap((page) => page.data.accounts.map((account) => [account.name, account.balance])),
      ).toEqual(expected.map((account) => [account.name, account.balance]));
    }
    const pastTheEnd = await list('limit=5&offset=10');
    expect(pastTheEnd.data.accounts).toEqual([]);
    expect(pastTheEnd.pagination.total).toBe(7);
  });

  it('narrows by the traveller name with the total of the matches on every page', async () => {
    const matching = inListOrder(accounts.filter((account) => account.name.startsWith('Rami')));
    const pages = await allPages(`search=rami%20${tag}&`, 2);
    expect(pages.flatMap((page) => page.data.accounts.map((account) => account.id))).toEqual(
      matching.map((account) => account.id),
    );
    for (const page of pages) expect(page.pagination.total).toBe(4);
    const pastTheEnd = await list(`search=rami%20${tag}&limit=2&offset=8`);
    expect([pastTheEnd.data.accounts, pastTheEnd.pagination.total]).toEqual([[], 4]);
  });
});
