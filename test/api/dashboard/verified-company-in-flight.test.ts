import { beforeAll, describe, expect, it } from 'vitest';
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
import { unverifiedWhileWriting } from '../../support/suspension.js';

const REWARD = {
  code: 'SAVE10',
  nameAr: 'خصم',
  nameEn: 'Discount',
  type: 'discount',
  discountPercent: 10,
  pointsCost: 100,
};

/**
 * SPEC: booking confirmation settings and loyalty programme writes are for "OWNER or ADMIN of a
 * verified company". The guard reads `verified` when the request arrives; an administrator's
 * UNVERIFY committing while the write waits for the company row must still refuse it, as the
 * guard would have: 403 COMPANY_NOT_VERIFIED, nothing saved and nothing audited.
 */
describe('a write that needs a verified company, unverified while it waits for the company', () => {
  const app = useTestApp();

  const auditOf = (staffUserId: string) =>
    app.db.query('select action, target_id from audit_log where actor_id = $1 order by created_at, id', [
      staffUserId,
    ]);

  it('PUT /settings/booking-confirmation is refused 403 COMPANY_NOT_VERIFIED and saves nothing', async () => {
    const companyId = (await createCompany(app.db)).id;
    const owner = await staffSession(app.db, app.config, companyId, 'OWNER');
    const refused = await unverifiedWhileWriting(app.db, companyId, () =>
      app.request('/dashboard/api/settings/booking-confirmation', {
        method: 'PUT',
        headers: owner.writeHeaders,
        json: { mode: 'MANUAL_CONFIRM', decisionWindowMinutes: 30, channels: ['CUSTOMER_WEB'] },
      }),
    );
    expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_NOT_VERIFIED']);
    expect(
      await app.db.query('select mode from company_booking_settings where company_id = $1', [companyId]),
    ).toEqual([]);
    expect(await auditOf(owner.staffUserId)).toEqual([]);
  });

  describe('the loyalty programme', () => {
    let companyId: string;
    let owner: StaffSessionFixture;
    let rewardId: string;
    let accountId: string;

    beforeAll(async () => {
      companyId = (await createCompany(app.db)).id;
      owner = await companyWithProgramme(app, companyId);
      const reward = await programmeCall(app, owner, 'POST', '/loyalty/rewards', REWARD);
      expect(reward.status, reward.text).toBe(201);
      rewardId = reward.body.data.id as string;
      const traveller = await app.signIn();
      await creditPoints(app.db, { companyId, userId: traveller.userId, points: 500 });
      const { id } = (
        await app.db.query<{ id: string }>('select id from loyalty_accounts where company_id = $1', [
          companyId,
        ])
      )[0]!;
      accountId = id;
    });

    const tier = { nameAr: 'أساسي', nameEn: 'Base', minLifetimePoints: 0, multiplierPercent: 100 };
    const writes: [string, () => ReturnType<typeof programmeCall>][] = [
      ['PUT /loyalty', () => programmeCall(app, owner, 'PUT', '/loyalty', { ...PROGRAM, pointsPer100: 7 })],
      ['POST /loyalty/tiers', () => programmeCall(app, owner, 'POST', '/loyalty/tiers', tier)],
      [
        'PUT /loyalty/rewards/{id}',
        () =>
          programmeCall(app, owner, 'PUT', `/loyalty/rewards/${rewardId}`, {
            ...REWARD,
            discountPercent: 20,
          }),
      ],
      [
        'DELETE /loyalty/rewards/{id}',
        () => programmeCall(app, owner, 'DELETE', `/loyalty/rewards/${rewardId}`),
      ],
      [
        'POST /loyalty/accounts/{id}/adjust',
        () =>
          programmeCall(app, owner, 'POST', `/loyalty/accounts/${accountId}/adjust`, {
            points: -200,
            reason: 'goodwill correction',
          }),
      ],
    ];

    it.each(writes)('%s is refused 403 COMPANY_NOT_VERIFIED, changing nothing', async (_name, write) => {
      // Verified again first: the guard must let the write in, so only the transaction can refuse it.
      await app.db.query('update companies set verified = true where id = $1', [companyId]);
      const before = await programmeRows(app.db, companyId);
      const auditBefore = await auditOf(owner.staffUserId);
      const refused = await unverifiedWhileWriting(app.db, companyId, write);
      expect([refused.status, refused.body?.errorCode], refused.text).toEqual([403, 'COMPANY_NOT_VERIFIED']);
      expect(await programmeRows(app.db, companyId)).toEqual(before);
      expect(await auditOf(owner.staffUserId)).toEqual(auditBefore);
    });
  });
});
