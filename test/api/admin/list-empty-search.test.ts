import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { signedInAdmin, type AdminBrowser } from './helpers.js';

/**
 * An empty or blank `search=` is no filter on the administration's searchable lists (companies, the
 * waitlist, support tickets), as on the dashboard's (GET /dashboard/api/loyalty, the payments
 * ledger): the same page and total as without it, and the read recorded with no search.
 */
const EMPTY_SEARCHES = ['search=', 'search=%20%20'];

describe('administration lists: an empty search is no filter', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  /**
   * Reads `list.path?filters` without a search, with each empty one, and without again: each empty
   * search answers the page the reads around it answer and is recorded with the filter they are
   * (tried again should another test file's write land between them).
   */
  async function expectSameAsWithout(
    { admin, browser }: { admin: { id: string }; browser: AdminBrowser },
    list: { path: string; action: string },
    filters: string,
  ) {
    const read = async (query: string) => {
      const answer = await browser.get(`${list.path}?${[filters, query].filter(Boolean).join('&')}`);
      expect(answer.status, `${list.path} ${query}: ${answer.text}`).toBe(200);
      const [recorded] = await app.db.query<{ details: { filter: unknown } }>(
        `select details from audit_log where actor_id = $1 and action = $2 order by id desc limit 1`,
        [admin.id, list.action],
      );
      return { data: answer.body.data, filter: recorded!.details.filter };
    };
    for (const search of EMPTY_SEARCHES) {
      for (let attempt = 1; ; attempt += 1) {
        const [before, searched, after] = [await read(''), await read(search), await read('')];
        if (JSON.stringify(before) !== JSON.stringify(after) && attempt < 5) continue;
        expect(searched, `${list.path}?${search}`).toEqual(before);
        break;
      }
    }
  }

  it('GET /companies', async () => {
    const signedIn = await signedInAdmin(app);
    const { browser } = signedIn;
    // A standing few companies have, whose counts no other test moves: the page stays still.
    const standing = { scope: 'INTERNAL', status: 'SUSPENDED', verified: false } as const;
    await createCompany(app.db, standing);
    const filters = 'scope=INTERNAL&status=SUSPENDED&verified=false&limit=100';
    await expectSameAsWithout(signedIn, { path: '/companies', action: 'companies.list' }, filters);
    // A search still filters, and an over-long one is still refused.
    const none = await browser.get(`/companies?search=${randomUUID()}`);
    expect(none.body.data.total).toBe(0);
    expect((await browser.get(`/companies?search=${'x'.repeat(101)}`)).body.errorCode).toBe(
      'VALIDATION_FAILED',
    );
  });

  it('GET /waitlist', async () => {
    const signedIn = await signedInAdmin(app);
    const { browser } = signedIn;
    // Sign-ups of a day long past, which no other test writes: the period keeps the page still.
    for (const name of ['first', 'second']) {
      await app.db.query(
        `insert into waitlist_entries (email, created_at) values ($1, '2001-02-03T10:00:00Z')`,
        [`${name}-${randomUUID().slice(0, 8)}@empty-search.example`],
      );
    }
    const period = 'from=2001-02-03T00:00:00Z&to=2001-02-04T00:00:00Z';
    expect((await browser.get(`/waitlist?${period}`)).body.data.total).toBeGreaterThanOrEqual(2);
    await expectSameAsWithout(signedIn, { path: '/waitlist', action: 'waitlist.list' }, period);
    expect((await browser.get(`/waitlist?${period}&search=nobody-here`)).body.data.total).toBe(0);
  });

  it('GET /tickets', async () => {
    const signedIn = await signedInAdmin(app);
    const { browser } = signedIn;
    const company = await createCompany(app.db);
    for (const subject of ['Refund question', 'Lost luggage']) {
      const opened = await browser.send('POST', '/tickets', {
        subject,
        message: 'Hello',
        companyId: company.id,
      });
      expect(opened.status, opened.text).toBe(201);
    }
    const scoped = `companyId=${company.id}`;
    expect((await browser.get(`/tickets?${scoped}`)).body.data.total).toBe(2);
    await expectSameAsWithout(signedIn, { path: '/tickets', action: 'tickets.list' }, scoped);
    expect((await browser.get(`/tickets?${scoped}&search=luggage`)).body.data.total).toBe(1);
  });
});
