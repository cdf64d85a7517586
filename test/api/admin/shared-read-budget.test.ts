import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { expectError, signedInAdmin } from './helpers.js';

/**
 * ADMIN_READ_RATE_LIMIT_PER_MINUTE is one budget of heavy reads per administrator: platform
 * analytics and the audit log draw on the same count, so reading one route up to the limit
 * leaves none for the other.
 */
describe('administration heavy reads: one budget per administrator for analytics and the audit log', () => {
  const app = useTestApp({ ADMIN_READ_RATE_LIMIT_PER_MINUTE: 2, ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  /** The reads of analytics and of the audit log the audit log records for `adminId`. */
  const recordedReads = async (adminId: string) =>
    app.db.query<{ action: string; count: number }>(
      `select action, count(*)::int as count from audit_log
        where actor_id = $1 and action in ('analytics.read', 'audit_log.read') group by action order by action`,
      [adminId],
    );

  for (const [spent, other, spentAction] of [
    ['/analytics', '/audit-log', 'analytics.read'],
    ['/audit-log', '/analytics', 'audit_log.read'],
  ] as const) {
    it(`the budget spent on GET ${spent} refuses GET ${other} with 429 RATE_LIMITED, nothing read or recorded; another administrator still reads`, async () => {
      const first = await signedInAdmin(app);
      for (let request = 0; request < 2; request++) {
        const answer = await first.browser.get(spent);
        expect(answer.status, answer.text).toBe(200);
      }

      const refused = await first.browser.get(other);
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.body.data).toBeUndefined();
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Only the two answered reads are recorded; the refused one wrote nothing.
      expect(await recordedReads(first.admin.id)).toEqual([{ action: spentAction, count: 2 }]);

      const second = await signedInAdmin(app);
      for (const path of [spent, other]) {
        const answer = await second.browser.get(path);
        expect(answer.status, answer.text).toBe(200);
      }
    });
  }
});
