import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { signedInAdmin } from './helpers.js';

/**
 * The audit log is read newest first, by the row's real time and then its increasing row number:
 * not by the printed forms of either, which lose the time's microseconds and sort "10" before "9".
 */
describe('GET /audit-log: newest first, by time and row number', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  it('orders rows of one millisecond by their real time, then by row number as a number', async () => {
    const { browser } = await signedInAdmin(app);
    const key = `test.order_${crypto.randomUUID().slice(0, 8)}`;
    const insert = (createdAt: string, id?: bigint) =>
      app.db.query<{ id: string }>(
        `insert into audit_log (id, actor_kind, action, target_kind, target_id, created_at)
         overriding system value
         values (coalesce($3::bigint, nextval(pg_get_serial_sequence('audit_log', 'id'))), 'SYSTEM',
                 'feature_flags.update', 'feature_flag', $1, $2::timestamptz)
         returning id::text`,
        [key, createdAt, id?.toString() ?? null],
      );
    // Within one millisecond: the first row written is the later one in time.
    const [later] = await insert('2026-03-01T10:00:00.000900Z');
    const [earlier] = await insert('2026-03-01T10:00:00.000100Z');
    // Two rows of one instant whose row numbers have 16 and 17 digits (far above the sequence's):
    // as numbers the longer is the larger, as text "9…" sorts after "1…".
    const spread = BigInt(Math.floor(Math.random() * 1e12));
    const [shorter] = await insert('2026-02-01T10:00:00Z', 9_000_000_000_000_000n + spread);
    const [longer] = await insert('2026-02-01T10:00:00Z', 10_000_000_000_000_000n + spread);

    const answer = await browser.get(`/audit-log?target=${key}&limit=100`);
    expect(answer.status, answer.text).toBe(200);
    const listed = answer.body.data.items.map((item: { id: string }) => item.id);
    expect(listed).toEqual([later!.id, earlier!.id, longer!.id, shorter!.id]);
  });
});
