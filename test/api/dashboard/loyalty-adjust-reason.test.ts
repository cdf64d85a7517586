import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '../../../db/writes/loyalty/index.js';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { creditPoints } from '../../support/loyalty.js';
import { UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';
import {
  companyWithProgramme,
  programmeCall,
  programmeRows,
  type StaffSessionFixture,
} from '../../support/loyalty-admin.js';

/**
 * The reason of a manual loyalty adjustment is prose the company's staff read in the ledger and the
 * audit log: it may break lines and hold tabs, but no other control character and no bidirectional
 * override, which would make the text read as another (as an administrator's reasons).
 */

describe('POST /dashboard/api/loyalty/accounts/{id}/adjust: the reason', () => {
  const app = useTestApp();
  let companyId: string;
  let owner: StaffSessionFixture;
  let accountId: string;

  beforeAll(async () => {
    companyId = (await createCompany(app.db)).id;
    owner = await companyWithProgramme(app, companyId);
    const traveller = await app.signIn();
    accountId = await ensureAccount(app.db.pool, companyId, traveller.userId);
    await creditPoints(app.db, { companyId, userId: traveller.userId, points: 100 });
  });

  const adjust = (reason: string) =>
    programmeCall(app, owner, 'POST', `/loyalty/accounts/${accountId}/adjust`, { points: 10, reason });
  const adjustmentsAudited = () =>
    app.db.query(`select id from audit_log where action = 'loyalty.account.adjust' and target_id = $1`, [
      accountId,
    ]);

  it('with a control or bidirectional-override character is 400 VALIDATION_FAILED and changes nothing', async () => {
    const before = { rows: await programmeRows(app.db, companyId), audit: await adjustmentsAudited() };
    for (const [what, reason] of Object.entries(UNPRINTABLE_TEXTS)) {
      const refused = await adjust(reason);
      expect([refused.status, refused.body.errorCode], what).toEqual([400, 'VALIDATION_FAILED']);
      expect(JSON.stringify(refused.body.details), what).toContain('reason');
    }
    expect({ rows: await programmeRows(app.db, companyId), audit: await adjustmentsAudited() }).toEqual(
      before,
    );
  });

  it('keeps line breaks (LF and CRLF) and tabs, as written', async () => {
    const reason = 'Goodwill:\n\t- bus broke down\r\n\t- two hours late';
    const adjusted = await adjust(reason);
    expect(adjusted.status, adjusted.text).toBe(200);
    expect(adjusted.body.data.transaction).toMatchObject({ kind: 'ADJUST', points: 10, reason });
    const ledger = await app.db.query(
      `select reason from loyalty_transactions where account_id = $1 and kind = 'ADJUST' and reason is not null`,
      [accountId],
    );
    expect(ledger).toEqual([{ reason }]);
  });
});
