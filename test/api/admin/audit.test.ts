import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { expectError, signedInAdmin } from './helpers.js';

describe('GET /audit-log', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  it('shows who changed what, to which record and when', async () => {
    const { admin, browser } = await signedInAdmin(app);
    const created = await browser.send('POST', '/admins', {
      email: `audited-${admin.id.slice(0, 8)}@test.example`,
      name: 'Audited',
      password: 'a long enough password',
      role: 'SUPPORT',
    });
    expect(created.status).toBe(201);
    const newId = created.body.data.id;

    const response = await browser.get(`/audit-log?target=${newId}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      items: [
        // The answer showed the new account to a holder of admins.view: that read is recorded too.
        expect.objectContaining({
          actorId: admin.id,
          action: 'admins.read',
          targetKind: 'admin',
          details: {},
        }),
        {
          id: expect.stringMatching(/^\d+$/),
          actorKind: 'ADMIN',
          actorId: admin.id,
          action: 'admins.create',
          targetKind: 'admin',
          targetId: newId,
          details: {
            email: `audited-${admin.id.slice(0, 8)}@test.example`,
            role: 'SUPPORT',
            grantedPermissions: [],
            totpRequired: true,
          },
          ip: expect.any(String),
          requestId: created.headers.get('X-Request-Id'),
          createdAt: expect.stringMatching(ISO),
        },
      ],
      total: 2,
      limit: 20,
      offset: 0,
      nextBefore: null,
    });
    const createdAt = Date.parse(response.body.data.items[1].createdAt);
    expect(Math.abs(createdAt - Date.now())).toBeLessThan(60_000);
  });

  it('filters by actor, action and time, pages newest first, and records each read of itself', async () => {
    const { admin, browser } = await signedInAdmin(app);
    expect((await browser.get('/admins')).status).toBe(200);
    expect((await browser.get('/admins?limit=1')).status).toBe(200);

    const all = await browser.get(`/audit-log?actor=${admin.id}`);
    expect(all.status).toBe(200);
    expect(all.body.data.items.map((item: { action: string }) => item.action)).toEqual([
      'admins.list',
      'admins.list',
      'auth.login',
    ]);
    expect(all.body.data.total).toBe(3);

    // The read above is now in the log too.
    const lists = await browser.get(`/audit-log?actor=${admin.id}&action=admins.list&limit=1&offset=1`);
    expect(lists.body.data).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(lists.body.data.items).toHaveLength(1);
    expect(lists.body.data.items[0].details).toMatchObject({ limit: 20, offset: 0 });

    const reads = await browser.get(`/audit-log?actor=${admin.id}&action=audit_log.read`);
    expect(reads.body.data.items.map((item: { details: unknown }) => item.details)).toEqual([
      { filter: { actor: admin.id, action: 'admins.list' }, limit: 1, offset: 1, returned: 1 },
      { filter: { actor: admin.id }, limit: 20, offset: 0, returned: 3 },
    ]);
    expect(reads.body.data.items[0]).toMatchObject({
      actorKind: 'ADMIN',
      targetKind: 'audit_log',
      targetId: null,
    });

    const login = all.body.data.items[2];
    const window = await browser.get(
      `/audit-log?actor=${admin.id}&from=${encodeURIComponent(login.createdAt)}&to=${encodeURIComponent(login.createdAt)}`,
    );
    expect(window.body.data.total).toBe(0);
    const fromLogin = await browser.get(
      `/audit-log?actor=${admin.id}&action=auth.login&from=${encodeURIComponent(login.createdAt)}`,
    );
    expect(fromLogin.body.data.items.map((item: { id: string }) => item.id)).toEqual([login.id]);
    const later = await browser.get(`/audit-log?actor=${admin.id}&from=2999-01-01T00:00:00Z`);
    expect(later.body.data).toMatchObject({ items: [], total: 0 });
  });

  it('refuses malformed filters', async () => {
    const { browser } = await signedInAdmin(app);
    for (const query of [
      'actor=42',
      'from=yesterday',
      'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      'limit=0',
      'who=me',
      // Year 0 reads as a date in JavaScript but not in PostgreSQL (it answered 500).
      'from=0000-01-01T00:00:00Z',
    ]) {
      expectError(await browser.get(`/audit-log?${query}`), 400, 'VALIDATION_FAILED');
    }
    for (const path of ['/waitlist', '/tickets']) {
      expectError(await browser.get(`${path}?to=0000-01-01T00:00:00Z`), 400, 'VALIDATION_FAILED');
    }
  });

  it('refuses from later than to on every administration list with a period, as the audit log does, recording no read', async () => {
    const { admin, browser } = await signedInAdmin(app);
    const reads = () => app.db.query(`select id from audit_log where actor_id = $1 order by id`, [admin.id]);
    const before = await reads();
    for (const path of ['/audit-log', '/tickets', '/waitlist']) {
      const response = await browser.get(`${path}?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(response.body.details.issues, path).toContainEqual(
        expect.objectContaining({ path: 'query.from', message: 'from must not be after to' }),
      );
      const same = await browser.get(`${path}?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
      expect(same.status, path).toBe(200);
    }
    expect((await reads()).length).toBe(before.length + 3);
  });

  it('needs audit.view: SUPPORT and ANALYST are refused, a granted audit.view is enough', async () => {
    for (const role of ['SUPPORT', 'ANALYST'] as const) {
      const { browser } = await signedInAdmin(app, { role });
      const response = await browser.get('/audit-log');
      expectError(response, 403, 'PERMISSION_DENIED');
      expect(response.body.details).toEqual({ permission: 'audit.view' });
    }
    const { browser } = await signedInAdmin(app, { role: 'ANALYST', grantedPermissions: ['audit.view'] });
    expect((await browser.get('/audit-log')).status).toBe(200);
  });
});
