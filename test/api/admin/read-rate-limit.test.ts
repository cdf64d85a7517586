import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { expectError, signedInAdmin } from './helpers.js';

/**
 * The administration's heavy reads (platform analytics, the audit log) are limited per
 * administrator: ADMIN_READ_RATE_LIMIT_PER_MINUTE requests a minute of the two routes together
 * (shared-read-budget.test.ts spends the budget on one route and reads the other).
 */
describe('administration reads: per-administrator rate limit', () => {
  const app = useTestApp({ ADMIN_READ_RATE_LIMIT_PER_MINUTE: 2, ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  /** How many reads of `action` the audit log records for `adminId`. */
  const recordedReads = async (adminId: string, action: string) => {
    const [row] = await app.db.query<{ count: number }>(
      `select count(*)::int as count from audit_log where actor_id = $1 and action = $2`,
      [adminId, action],
    );
    return row!.count;
  };

  for (const [path, action] of [
    ['/analytics', 'analytics.read'],
    ['/audit-log', 'audit_log.read'],
  ] as const) {
    it(`GET ${path}: over the limit 429 RATE_LIMITED with Retry-After, nothing read or recorded; another administrator is not affected`, async () => {
      const first = await signedInAdmin(app);
      for (let request = 0; request < 2; request++) {
        const answer = await first.browser.get(path);
        expect(answer.status, answer.text).toBe(200);
      }

      const limited = await first.browser.get(path);
      expectError(limited, 429, 'RATE_LIMITED');
      expect(limited.body.data).toBeUndefined();
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // The refused read wrote no audit row: only the two answered ones are recorded.
      expect(await recordedReads(first.admin.id, action)).toBe(2);

      // Counted per administrator, not per address: another one from the same IP still reads.
      const second = await signedInAdmin(app);
      const answer = await second.browser.get(path);
      expect(answer.status, answer.text).toBe(200);
      expect(await recordedReads(second.admin.id, action)).toBe(1);
    });
  }
});
