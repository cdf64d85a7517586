import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '../../../db/writes/loyalty/index.js';
import { createCompany } from '../../support/factories.js';
import { collectedPayment, financeWorld, pendingPayment, type FinanceWorld } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { creditPoints } from '../../support/loyalty.js';
import {
  companyWithProgramme,
  programmeCall,
  type StaffSessionFixture,
} from '../../support/loyalty-admin.js';

/**
 * An empty `search=` is no filter on the dashboard's searchable lists: the payment ledger answers as
 * the loyalty accounts list does, the same page and total as without it.
 */
describe('an empty search on the dashboard lists', () => {
  const app = useTestApp();

  describe('GET /payments (the ledger)', () => {
    let world: FinanceWorld;
    const ledger = (query: string) =>
      app.request(`/dashboard/api/payments${query}`, { headers: { Cookie: world.staff.ACCOUNTANT.cookie } });

    beforeAll(async () => {
      world = await financeWorld(app);
      await pendingPayment(app, world);
      await collectedPayment(app, world, 'driver');
    });

    it('answers an empty or blank search as no search: every line, the same statistics', async () => {
      const all = await ledger('');
      expect(all.status, all.text).toBe(200);
      expect(all.body.pagination.total).toBe(2);
      for (const query of ['?search=', '?search=%20%20']) {
        const searched = await ledger(query);
        expect(searched.status, `${query} ${searched.text}`).toBe(200);
        expect(searched.body.data).toEqual(all.body.data);
        expect(searched.body.pagination).toEqual(all.body.pagination);
        expect(searched.body.statistics).toEqual(all.body.statistics);
      }
      // A search still filters, and an over-long one is still refused.
      const none = await ledger('?search=nobody-here');
      expect(none.body.pagination.total).toBe(0);
      const tooLong = await ledger(`?search=${'x'.repeat(101)}`);
      expect([tooLong.status, tooLong.body.errorCode]).toEqual([400, 'VALIDATION_FAILED']);
    });
  });

  describe('GET /loyalty (the accounts list)', () => {
    let owner: StaffSessionFixture;

    beforeAll(async () => {
      const companyId = (await createCompany(app.db)).id;
      owner = await companyWithProgramme(app, companyId);
      for (const points of [300, 100]) {
        const traveller = await app.signIn();
        await ensureAccount(app.db.pool, companyId, traveller.userId);
        await creditPoints(app.db, { companyId, userId: traveller.userId, points });
      }
    });

    it('answers an empty search as no search', async () => {
      const all = await programmeCall(app, owner, 'GET', '/loyalty');
      expect(all.body.pagination.total).toBe(2);
      const searched = await programmeCall(app, owner, 'GET', '/loyalty?search=');
      expect(searched.status, searched.text).toBe(200);
      expect(searched.body.data).toEqual(all.body.data);
      expect(searched.body.pagination).toEqual(all.body.pagination);
    });
  });
});
