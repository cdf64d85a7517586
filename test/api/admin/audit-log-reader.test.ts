import { describe, expect, it } from 'vitest';
import { createCompany } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { expectError, signedInAdmin, type AdminBrowser } from './helpers.js';

interface Entry {
  id: string;
  action: string;
  details: Record<string, unknown> | null;
}

/**
 * What an auditor reads in the audit log: a row's details only with the view permission of what
 * it is about (SPEC: "Reads and edits depend on the current administrator's permissions"), and
 * pages that follow each other exactly although every read of the log adds a row to it.
 */
describe('GET /audit-log: the details a reader may see', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  /** A SUPER_ADMIN's day: an account created, a ticket opened, a company warned. */
  async function bossDay() {
    const { admin: boss, browser } = await signedInAdmin(app);
    const company = await createCompany(app.db);
    const email = `audited-${crypto.randomUUID().slice(0, 8)}@test.example`;
    const created = await browser.send('POST', '/admins', {
      email,
      name: 'Audited Admin',
      password: 'a long enough password',
      role: 'ADMIN',
      totpRequired: false,
    });
    expect(created.status, created.text).toBe(201);
    const subject = `Lost bag ${crypto.randomUUID().slice(0, 8)}`;
    const ticket = await browser.send('POST', '/tickets', {
      subject,
      message: 'Left on the bus',
      companyId: company.id,
    });
    expect(ticket.status, ticket.text).toBe(201);
    const warned = await browser.send('POST', `/companies/${company.id}/warn`, {
      reason: 'Late departures reported',
    });
    expect(warned.status, warned.text).toBe(200);
    return {
      boss,
      email,
      subject,
      accountId: created.body.data.id,
      ticketId: ticket.body.data.ticket.id,
      company,
    };
  }

  const trailOf = async (reader: AdminBrowser, actorId: string) => {
    const log = await reader.get(`/audit-log?actor=${actorId}&limit=100`);
    expect(log.status, log.text).toBe(200);
    const items = log.body.data.items as Entry[];
    return { text: log.text, row: (action: string) => items.find((item) => item.action === action)! };
  };

  it('an auditor without admins.view and tickets.view sees those rows, but not their details', async () => {
    const day = await bossDay();
    const { browser: auditor } = await signedInAdmin(app, {
      role: 'ANALYST',
      grantedPermissions: ['audit.view'],
    });
    expectError(await auditor.get('/admins'), 403, 'PERMISSION_DENIED');
    expectError(await auditor.get('/tickets'), 403, 'PERMISSION_DENIED');

    const trail = await trailOf(auditor, day.boss.id);
    // The row stays: who acted, what, on which record, when and from where.
    expect(trail.row('admins.create')).toEqual({
      id: expect.stringMatching(/^\d+$/),
      actorKind: 'ADMIN',
      actorId: day.boss.id,
      action: 'admins.create',
      targetKind: 'admin',
      targetId: day.accountId,
      details: null,
      ip: expect.any(String),
      requestId: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(trail.row('tickets.create')).toMatchObject({ targetId: day.ticketId, details: null });
    expect(trail.row('auth.login')).toMatchObject({ details: null });
    expect(trail.text).not.toContain(day.email);
    expect(trail.text).not.toContain(day.subject);
    // companies.view, which ANALYST holds, shows a company's rows in full.
    expect(trail.row('companies.warn')).toMatchObject({
      targetId: day.company.id,
      details: expect.objectContaining({ reason: 'Late departures reported' }),
    });
  });

  it('a SUPPORT with audit.view sees the tickets in full and the administrators without details', async () => {
    const day = await bossDay();
    const { browser: support } = await signedInAdmin(app, {
      role: 'SUPPORT',
      grantedPermissions: ['audit.view'],
    });
    const trail = await trailOf(support, day.boss.id);
    expect(trail.row('admins.create').details).toBeNull();
    expect(trail.row('tickets.create').details).toMatchObject({ subject: day.subject });
    expect(trail.text).not.toContain(day.email);
  });

  it('an administrator holding every view permission sees every row in full', async () => {
    const day = await bossDay();
    const { browser: auditor } = await signedInAdmin(app, { role: 'ADMIN' });
    const trail = await trailOf(auditor, day.boss.id);
    expect(trail.row('admins.create').details).toEqual({
      email: day.email,
      role: 'ADMIN',
      grantedPermissions: [],
      totpRequired: false,
    });
    expect(trail.row('tickets.create').details).toMatchObject({ subject: day.subject });
    expect(trail.row('companies.warn').details).toMatchObject({ reason: 'Late departures reported' });
  });
});

describe('GET /audit-log: paging with before', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  const ids = (items: { id: string }[]) => items.map((item) => item.id);

  it('follows nextBefore page by page: every row once, in order, while each read adds a row', async () => {
    const { admin, browser } = await signedInAdmin(app);
    for (let i = 0; i < 4; i += 1) expect((await browser.get('/admins')).status).toBe(200);
    const { rows: trail } = await app.db.pool.query<{ id: string }>(
      `select id::text as id from audit_log where actor_id = $1 order by created_at desc, id desc`,
      [admin.id],
    );
    expect(trail).toHaveLength(5);

    const seen: string[] = [];
    const pages: { total: number; nextBefore: string | null }[] = [];
    let query = `actor=${admin.id}&limit=2`;
    for (;;) {
      const page = await browser.get(`/audit-log?${query}`);
      expect(page.status, page.text).toBe(200);
      seen.push(...ids(page.body.data.items));
      pages.push({ total: page.body.data.total, nextBefore: page.body.data.nextBefore });
      if (!page.body.data.nextBefore) break;
      query = `actor=${admin.id}&limit=2&before=${page.body.data.nextBefore}`;
    }
    expect(seen).toEqual(ids(trail));
    // The total counts the rows from the cursor on: what is left to page through.
    expect(pages).toEqual([
      { total: 5, nextBefore: trail[1]!.id },
      { total: 3, nextBefore: trail[3]!.id },
      { total: 1, nextBefore: null },
    ]);

    // Each read was recorded with its cursor.
    const reads = await browser.get(`/audit-log?actor=${admin.id}&action=audit_log.read&limit=3`);
    expect(reads.body.data.items.map((item: Entry) => item.details)).toEqual([
      { filter: { actor: admin.id, before: trail[3]!.id }, limit: 2, offset: 0, returned: 1 },
      { filter: { actor: admin.id, before: trail[1]!.id }, limit: 2, offset: 0, returned: 2 },
      { filter: { actor: admin.id }, limit: 2, offset: 0, returned: 2 },
    ]);
  });

  it('a page that ends the list exactly has no next page', async () => {
    const { admin, browser } = await signedInAdmin(app);
    expect((await browser.get('/admins')).status).toBe(200);
    const page = await browser.get(`/audit-log?actor=${admin.id}&limit=2`);
    expect(page.body.data).toMatchObject({ total: 2, nextBefore: null });
  });

  it('refuses a cursor that names no row of the log, or is not a row number, recording no read', async () => {
    const { admin, browser } = await signedInAdmin(app);
    const reads = () => app.db.query(`select id from audit_log where actor_id = $1`, [admin.id]);
    const before = await reads();
    for (const cursor of ['0', 'abc', '-3', '1.5', '99999999999999999999', '9223372036854775807']) {
      expectError(await browser.get(`/audit-log?before=${cursor}`), 400, 'VALIDATION_FAILED');
    }
    expect(await reads()).toEqual(before);
  });
});
