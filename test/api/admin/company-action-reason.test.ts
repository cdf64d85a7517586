import { describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';
import { companySnapshot, expectError, signedInAdmin } from './helpers.js';

/**
 * The reason of a company action (warn, suspend, unsuspend, verify, unverify) is prose the company's
 * OWNER and other administrators read: it may break lines and hold tabs, but no other control
 * character and no bidirectional override, which would make the text read as another.
 */

/** Each action with a company it may be taken on. */
const ACTIONS = [
  ['warn', {}],
  ['suspend', {}],
  ['unsuspend', { status: 'SUSPENDED' }],
  ['verify', { verified: false }],
  ['unverify', {}],
] as const;

describe('administration: the reason of a company action', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  for (const [action, standing] of ACTIONS) {
    it(`${action}: a reason with a control or bidirectional-override character is 400 VALIDATION_FAILED and changes nothing`, async () => {
      const company = await createCompany(app.db, standing);
      const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
      const before = await companySnapshot(app.db, company.id);
      for (const [what, reason] of Object.entries(UNPRINTABLE_TEXTS)) {
        const refused = await browser.send('POST', `/companies/${company.id}/${action}`, { reason });
        expectError(refused, 400, 'VALIDATION_FAILED');
        expect(JSON.stringify(refused.body.details), what).toContain('reason');
      }
      expect(await companySnapshot(app.db, company.id)).toEqual(before);
    });
  }

  it('keeps line breaks (LF and CRLF) and tabs in a reason, as written', async () => {
    const reason = 'Late departures:\n\t- Damascus 08:00\r\n\t- Aleppo 14:30';
    const company = await createCompany(app.db);
    const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
    const warned = await browser.send('POST', `/companies/${company.id}/warn`, { reason });
    expect(warned.status, warned.text).toBe(200);
    const history = await app.db.query(`select reason from company_admin_actions where company_id = $1`, [
      company.id,
    ]);
    expect(history).toEqual([{ reason }]);
  });
});
