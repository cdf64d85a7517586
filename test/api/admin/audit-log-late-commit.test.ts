import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { signedInAdmin } from './helpers.js';

/**
 * README "Audit log": a row is dated and numbered at its insert, a few milliseconds before its
 * transaction commits, so one committed while a reader pages with `before` may sort among rows the
 * reader has passed; reading again with `from` a few seconds before the pass began finds it.
 */
describe('audit log: a row committed while a reader pages', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  const insertRow = `insert into audit_log (actor_kind, actor_id, action, target_kind, target_id, details)
                     values ('SYSTEM', null, $1, 'late-commit', $2, '{}')`;
  const writeRow = (target: string, action: string) => app.db.query(insertRow, [action, target]);

  const actions = (page: { body: { data: { items: { action: string }[] } } }) =>
    page.body.data.items.map((item) => item.action);

  it('is found by the re-read from a few seconds before the pass, with every other row once', async () => {
    const { browser } = await signedInAdmin(app);
    const target = randomUUID();
    const list = `/audit-log?targetKind=late-commit&target=${target}`;
    await writeRow(target, 'probe.W');
    await writeRow(target, 'probe.X');
    const late = await app.db.pool.connect();
    try {
      // R is inserted (dated, numbered) now by a change that commits only after the pass's first page.
      await late.query('begin');
      await late.query(insertRow, ['probe.R', target]);
      await writeRow(target, 'probe.Y');

      const [clock] = await app.db.query<{ passBegan: string }>(
        `select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "passBegan"`,
      );
      const first = await browser.get(`${list}&limit=2`);
      expect(first.status, first.text).toBe(200);
      expect(actions(first)).toEqual(['probe.Y', 'probe.X']);
      await late.query('commit');

      const seen = actions(first);
      for (let before = first.body.data.nextBefore; before;) {
        const page = await browser.get(`${list}&limit=2&before=${before}`);
        expect(page.status, page.text).toBe(200);
        seen.push(...actions(page));
        before = page.body.data.nextBefore;
      }
      // The pass itself never repeats a row; R sorts between Y and X, both already read.
      expect(seen).toEqual(['probe.Y', 'probe.X', 'probe.W']);

      const from = new Date(Date.parse(clock!.passBegan) - 5_000).toISOString();
      const again = await browser.get(`${list}&from=${encodeURIComponent(from)}`);
      expect(again.status, again.text).toBe(200);
      expect(new Set([...seen, ...actions(again)])).toEqual(
        new Set(['probe.Y', 'probe.R', 'probe.X', 'probe.W']),
      );
    } finally {
      await late.query('rollback').catch(() => undefined);
      late.release();
    }
  });
});
