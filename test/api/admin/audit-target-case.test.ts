import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { signedInAdmin } from './helpers.js';

/**
 * The audit log's target filter: a record's id is a uuid, which names the same record in any case
 * (the log stores its canonical lower-case text), so an id pasted in capitals finds the rows too.
 */
describe('GET /audit-log?target=: a uuid in any case', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  const actions = (answer: { body: { data: { items: Array<{ action: string; targetId: string }> } } }) =>
    answer.body.data.items.map((item) => [item.action, item.targetId]);

  it('finds the rows of a uuid given in upper or mixed case, as given in lower case', async () => {
    const { admin, browser } = await signedInAdmin(app);
    const opened = await browser.send('POST', '/incidents', {
      title: 'Upper-case lookup',
      severity: 'MINOR',
    });
    expect(opened.status, opened.text).toBe(201);
    const id: string = opened.body.data.id;
    const expected = [['incidents.create', id]];

    const lower = await browser.get(`/audit-log?target=${id}`);
    expect(lower.status, lower.text).toBe(200);
    expect(actions(lower)).toEqual(expected);
    const mixed = id.replace(/[a-f]/g, (letter, at: number) => (at % 2 ? letter.toUpperCase() : letter));
    for (const target of [id.toUpperCase(), mixed]) {
      const answer = await browser.get(`/audit-log?target=${target}&targetKind=incident`);
      expect(answer.status, answer.text).toBe(200);
      expect(actions(answer)).toEqual(expected);
      expect(answer.body.data.total).toBe(1);
    }

    // The administrator's own sign-in targets their account: found by the id in capitals too.
    const own = await browser.get(`/audit-log?target=${admin.id.toUpperCase()}&action=auth.login`);
    expect(actions(own)).toEqual([['auth.login', admin.id]]);
  });

  it('matches a key that is no uuid exactly as written, as the API names it (feature-flag keys are case-sensitive)', async () => {
    const { browser } = await signedInAdmin(app);
    const key = `test.flag_${crypto.randomUUID().slice(0, 8)}`;
    await app.db.query(
      `insert into audit_log (actor_kind, action, target_kind, target_id) values ('SYSTEM', 'feature_flags.update', 'feature_flag', $1)`,
      [key],
    );
    const exact = await browser.get(`/audit-log?target=${key}`);
    expect(exact.status, exact.text).toBe(200);
    expect(actions(exact)).toEqual([['feature_flags.update', key]]);
    const upper = await browser.get(`/audit-log?target=${key.toUpperCase()}`);
    expect(upper.status, upper.text).toBe(200);
    expect(upper.body.data.total).toBe(0);
  });
});
