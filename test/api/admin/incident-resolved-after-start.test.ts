import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { auditRows, signedInAdmin } from './helpers.js';

/**
 * An incident may start up to a minute after our clock's now (the allowance for the administrator's
 * clock). Resolved within that minute it is resolved when it started, never before: an incident's
 * resolvedAt is not earlier than its startedAt.
 */
describe('incidents: resolved no earlier than started', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  it('an incident starting a little after now and resolved at once is resolved at its start, the audit row saying so', async () => {
    const { browser } = await signedInAdmin(app, { role: 'SUPPORT' });
    const startedAt = new Date(Date.now() + 45_000).toISOString();
    const opened = await browser.send('POST', '/incidents', {
      title: 'Clock ahead',
      severity: 'MINOR',
      startedAt,
    });
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.data.startedAt).toBe(startedAt);
    const id: string = opened.body.data.id;

    const resolved = await browser.send('POST', `/incidents/${id}/resolve`, { resolution: 'Fixed at once' });
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.body.data).toMatchObject({ status: 'RESOLVED', startedAt, resolvedAt: startedAt });

    const [stored] = await app.db.query<{ resolved_not_before_start: boolean }>(
      `select resolved_at >= started_at as resolved_not_before_start from incidents where id = $1`,
      [id],
    );
    expect(stored).toEqual({ resolved_not_before_start: true });
    const audits = await auditRows(app.db, id);
    expect(audits.map((row) => row.action)).toEqual(['incidents.create', 'incidents.resolve']);
    expect(audits[1]!.details.after).toMatchObject({ status: 'RESOLVED', resolution: 'Fixed at once' });
  });

  it('an incident that started earlier is resolved now', async () => {
    const { browser } = await signedInAdmin(app, { role: 'SUPPORT' });
    const startedAt = new Date(Date.now() - 3_600_000).toISOString();
    const opened = await browser.send('POST', '/incidents', {
      title: 'Clock behind',
      severity: 'MINOR',
      startedAt,
    });
    expect(opened.status, opened.text).toBe(201);
    const before = Date.now();
    const resolved = await browser.send('POST', `/incidents/${opened.body.data.id}/resolve`, {
      resolution: 'Fixed later',
    });
    expect(resolved.status, resolved.text).toBe(200);
    const resolvedAt = Date.parse(resolved.body.data.resolvedAt);
    // Our clock and the database's are the same machine's; a second either side for rounding.
    expect(resolvedAt).toBeGreaterThan(before - 1_000);
    expect(resolvedAt).toBeLessThan(Date.now() + 1_000);
  });
});
