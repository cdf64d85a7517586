import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS } from '../../../domain/permissions.js';
import { answeredOrWaiting, holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { usePrivateDatabase } from '../../support/private-database.js';
import { AdminBrowser, auditRows, createAdmin, expectError, signedInAdmin } from './helpers.js';

describe('administrators and permissions', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  const newAdminBody = (change: Record<string, unknown> = {}) => ({
    email: `new-${randomUUID().slice(0, 8)}@test.example`,
    name: 'New Admin',
    password: 'a long enough password',
    role: 'SUPPORT',
    ...change,
  });
  const adminCount = async (email: string) =>
    (
      await app.db.query<{ n: number }>(
        'select count(*)::int as n from admins where lower(email) = lower($1)',
        [email],
      )
    )[0]!.n;

  describe('GET /permissions', () => {
    it("lists every permission and role, and the caller's own", async () => {
      const { browser } = await signedInAdmin(app, { role: 'ANALYST', grantedPermissions: ['audit.view'] });
      const response = await browser.get('/permissions');
      expect(response.status).toBe(200);
      expect(response.body.data.permissions.map((permission: { name: string }) => permission.name)).toEqual([
        ...ADMIN_PERMISSIONS,
      ]);
      expect(response.body.data.roles).toEqual([
        { name: 'SUPER_ADMIN', description: expect.any(String), permissions: [...ADMIN_PERMISSIONS] },
        {
          name: 'ADMIN',
          description: expect.any(String),
          permissions: ADMIN_PERMISSIONS.filter((name) => name !== 'admins.manage'),
        },
        {
          name: 'SUPPORT',
          description: expect.any(String),
          permissions: [
            'companies.view',
            'tickets.view',
            'tickets.manage',
            'platform.view',
            'incidents.manage',
          ],
        },
        {
          name: 'ANALYST',
          description: expect.any(String),
          permissions: ['companies.view', 'analytics.view', 'platform.view', 'waitlist.view'],
        },
      ]);
      expect(response.body.data.mine).toEqual({
        role: 'ANALYST',
        grantedPermissions: ['audit.view'],
        permissions: ['companies.view', 'analytics.view', 'audit.view', 'platform.view', 'waitlist.view'],
      });
    });
  });

  describe('GET /admins', () => {
    it('lists administrators with their effective permissions, a page at a time, and records the read', async () => {
      const { admin, browser } = await signedInAdmin(app, { role: 'ADMIN' });
      const analyst = await createAdmin(app.db, { role: 'ANALYST', grantedPermissions: ['tickets.view'] });
      const response = await browser.get('/admins?role=ANALYST&limit=100');
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ limit: 100, offset: 0, total: expect.any(Number) });
      expect(response.body.data.items.every((item: { role: string }) => item.role === 'ANALYST')).toBe(true);
      expect(response.body.data.items).toContainEqual({
        id: analyst.id,
        email: analyst.email,
        name: 'Test Admin',
        role: 'ANALYST',
        grantedPermissions: ['tickets.view'],
        permissions: ['companies.view', 'tickets.view', 'analytics.view', 'platform.view', 'waitlist.view'],
        status: 'ACTIVE',
        totpRequired: false,
        totpEnabled: false,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(response.body)).not.toMatch(/password|totp_secret|recovery/i);

      const page = await browser.get('/admins?limit=1&offset=1');
      expect(page.body.data.items).toHaveLength(1);
      expect(page.body.data.total).toBeGreaterThan(1);

      const reads = await app.db.query<{
        action: string;
        target_kind: string;
        details: any;
        created_at: Date;
      }>(
        `select action, target_kind, details, created_at from audit_log where actor_id = $1 and action = 'admins.list' order by id`,
        [admin.id],
      );
      expect(reads.map((read) => read.details)).toEqual([
        {
          filter: { role: 'ANALYST', status: null },
          limit: 100,
          offset: 0,
          returned: response.body.data.items.length,
        },
        { filter: { role: null, status: null }, limit: 1, offset: 1, returned: 1 },
      ]);
    });

    it('refuses query fields it does not know', async () => {
      const { browser } = await signedInAdmin(app);
      expectError(await browser.get('/admins?sort=email'), 400, 'VALIDATION_FAILED');
      expectError(await browser.get('/admins?limit=500'), 400, 'VALIDATION_FAILED');
    });
  });

  describe('the SUPPORT role', () => {
    it('is refused administrators, the audit log and changes with 403 PERMISSION_DENIED naming the permission', async () => {
      const { admin, browser } = await signedInAdmin(app, { role: 'SUPPORT' });
      const other = await createAdmin(app.db, { role: 'SUPPORT' });
      const cases: [Promise<any>, string][] = [
        [browser.get('/admins'), 'admins.view'],
        [browser.get('/audit-log'), 'audit.view'],
        [
          browser.send('POST', '/admins', newAdminBody({ email: `support-made-${admin.id}@test.example` })),
          'admins.manage',
        ],
        [browser.send('PATCH', `/admins/${other.id}`, { name: 'Renamed' }), 'admins.manage'],
        // Refused before its input is read: a malformed body or list query gets the same 403, not a 400.
        [browser.send('PATCH', `/admins/${other.id}`, { name: '', role: 'KING', extra: 1 }), 'admins.manage'],
        [browser.get('/admins?limit=abc&status=nope'), 'admins.view'],
      ];
      for (const [request, permission] of cases) {
        const response = await request;
        expectError(response, 403, 'PERMISSION_DENIED');
        expect(response.body.details).toEqual({ permission });
      }
      expect(await adminCount(`support-made-${admin.id}@test.example`)).toBe(0);
      const [unchanged] = await app.db.query<{ name: string }>('select name from admins where id = $1', [
        other.id,
      ]);
      expect(unchanged!.name).toBe('Test Admin');
      expect(
        await app.db.query(`select 1 from audit_log where actor_id = $1 and action <> 'auth.login'`, [
          admin.id,
        ]),
      ).toEqual([]);
      expect((await browser.get('/permissions')).status).toBe(200);
    });

    it('lets an ADMIN read administrators but not create one', async () => {
      const { browser } = await signedInAdmin(app, { role: 'ADMIN' });
      expect((await browser.get('/admins')).status).toBe(200);
      const body = newAdminBody();
      const refused = await browser.send('POST', '/admins', body);
      expectError(refused, 403, 'PERMISSION_DENIED');
      expect(refused.body.details).toEqual({ permission: 'admins.manage' });
      expect(await adminCount(body.email)).toBe(0);
    });
  });

  describe('POST /admins', () => {
    it('creates an administrator who signs in with the chosen password and must set up TOTP first', async () => {
      const { admin, browser } = await signedInAdmin(app);
      const body = newAdminBody({
        role: 'ANALYST',
        grantedPermissions: ['tickets.view', 'audit.view', 'tickets.view'],
      });
      const created = await browser.send('POST', '/admins', body);
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({
        email: body.email,
        name: 'New Admin',
        role: 'ANALYST',
        grantedPermissions: ['tickets.view', 'audit.view'],
        permissions: [
          'companies.view',
          'tickets.view',
          'analytics.view',
          'audit.view',
          'platform.view',
          'waitlist.view',
        ],
        status: 'ACTIVE',
        totpRequired: true,
        totpEnabled: false,
      });
      const newcomer = new AdminBrowser(app);
      const login = await newcomer.signIn({ email: body.email, password: body.password });
      expect(login.status).toBe(200);
      expect(login.body.data).toMatchObject({ secondFactorRequired: true, enrolmentRequired: true });

      const [entry] = (await auditRows(app.db, created.body.data.id)).filter(
        (row) => row.action === 'admins.create',
      );
      expect(entry).toMatchObject({
        actor_kind: 'ADMIN',
        actor_id: admin.id,
        target_kind: 'admin',
        details: {
          email: body.email,
          role: 'ANALYST',
          grantedPermissions: ['tickets.view', 'audit.view'],
          totpRequired: true,
        },
      });
      expect(JSON.stringify(entry!.details)).not.toContain(body.password);
      const [stored] = await app.db.query<{ password_hash: string }>(
        'select password_hash from admins where id = $1',
        [created.body.data.id],
      );
      expect(stored!.password_hash).toMatch(/^\$argon2id\$/);
    });

    it('refuses an e-mail address that has an account, whatever its case, and writes nothing', async () => {
      const { browser } = await signedInAdmin(app);
      const existing = await createAdmin(app.db);
      const response = await browser.send(
        'POST',
        '/admins',
        newAdminBody({ email: existing.email.toUpperCase() }),
      );
      expectError(response, 409, 'ADMIN_EMAIL_TAKEN');
      expect(await adminCount(existing.email)).toBe(1);
      expect(
        await app.db.query(
          `select 1 from audit_log where action = 'admins.create' and details->>'email' ilike $1`,
          [existing.email],
        ),
      ).toEqual([]);
    });

    it('refuses invalid bodies before writing anything', async () => {
      const { browser } = await signedInAdmin(app);
      for (const change of [
        { password: 'too short' },
        { role: 'ROOT' },
        { grantedPermissions: ['bookings.refund'] },
        { email: 'not an e-mail' },
        { isSuperUser: true },
      ]) {
        const body = newAdminBody(change);
        expectError(await browser.send('POST', '/admins', body), 400, 'VALIDATION_FAILED');
        expect(await adminCount(String(body.email))).toBe(0);
      }
    });

    it('never lets an administrator hand out a permission they do not hold', async () => {
      const { browser } = await signedInAdmin(app, {
        role: 'SUPPORT',
        grantedPermissions: ['admins.view', 'admins.manage'],
      });
      const analyst = newAdminBody({ role: 'ANALYST' });
      const refused = await browser.send('POST', '/admins', analyst);
      expectError(refused, 403, 'PERMISSION_DENIED');
      expect(refused.body.details).toEqual({ permission: 'analytics.view' });
      expect(await adminCount(analyst.email)).toBe(0);
      const support = newAdminBody({ role: 'SUPPORT' });
      expect((await browser.send('POST', '/admins', support)).status).toBe(201);
    });
  });

  describe('PATCH /admins/{id}', () => {
    it('changes role, permissions and second-factor policy, applies them at the next request and records before and after', async () => {
      const { admin: actor, browser } = await signedInAdmin(app);
      const { admin: target, browser: targetBrowser } = await signedInAdmin(app, { role: 'ADMIN' });
      expect((await targetBrowser.get('/audit-log')).status).toBe(200);

      const response = await browser.send('PATCH', `/admins/${target.id}`, {
        role: 'SUPPORT',
        grantedPermissions: ['analytics.view'],
        totpRequired: true,
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        id: target.id,
        role: 'SUPPORT',
        grantedPermissions: ['analytics.view'],
        permissions: [
          'companies.view',
          'tickets.view',
          'tickets.manage',
          'analytics.view',
          'platform.view',
          'incidents.manage',
        ],
        totpRequired: true,
      });
      const [entry] = (await auditRows(app.db, target.id)).filter((row) => row.action === 'admins.update');
      expect(entry).toMatchObject({
        actor_id: actor.id,
        details: {
          changes: {
            role: { from: 'ADMIN', to: 'SUPPORT' },
            grantedPermissions: { from: [], to: ['analytics.view'] },
            totpRequired: { from: false, to: true },
          },
        },
      });
      // The target's session now owes a second factor (set up first), then has only SUPPORT's permissions.
      const blocked = await targetBrowser.get('/audit-log');
      expectError(blocked, 403, 'SECOND_FACTOR_REQUIRED');
      await app.db.query('update admins set totp_required = false where id = $1', [target.id]);
      const denied = await targetBrowser.get('/audit-log');
      expectError(denied, 403, 'PERMISSION_DENIED');
      expect(denied.body.details).toEqual({ permission: 'audit.view' });
    });

    it('disabling ends every session of the account at once', async () => {
      const { browser } = await signedInAdmin(app);
      const { admin: target, browser: targetBrowser } = await signedInAdmin(app, { role: 'SUPPORT' });
      expect((await browser.send('PATCH', `/admins/${target.id}`, { status: 'DISABLED' })).status).toBe(200);
      expectError(await targetBrowser.get('/permissions'), 401, 'INVALID_CREDENTIAL');
      expect(
        await app.db.query('select 1 from admin_sessions where admin_id = $1 and revoked_at is null', [
          target.id,
        ]),
      ).toEqual([]);
      expectError(await new AdminBrowser(app).signIn(target), 401, 'INVALID_CREDENTIALS');
    });

    it('a change that changes nothing writes nothing but the read of the account it answers', async () => {
      const { admin, browser } = await signedInAdmin(app);
      const target = await createAdmin(app.db, { role: 'SUPPORT', grantedPermissions: ['analytics.view'] });
      const stored = () =>
        app.db.query<{ updated_at: Date | string }>('select * from admins where id = $1', [target.id]);
      const before = await stored();
      const same = await browser.send('PATCH', `/admins/${target.id}`, {
        name: 'Test Admin',
        role: 'SUPPORT',
        grantedPermissions: ['analytics.view', 'analytics.view'],
        status: 'ACTIVE',
        totpRequired: false,
      });
      expect(same.status, same.text).toBe(200);
      expect(same.body.data).toMatchObject({
        id: target.id,
        name: 'Test Admin',
        role: 'SUPPORT',
        grantedPermissions: ['analytics.view'],
        status: 'ACTIVE',
        updatedAt: new Date(before[0]!.updated_at).toISOString(),
      });
      expect(await stored()).toEqual(before);
      // The answer showed the account to a holder of admins.view: recorded as a read, no admins.update.
      expect(await auditRows(app.db, target.id)).toEqual([
        expect.objectContaining({
          actor_id: admin.id,
          action: 'admins.read',
          target_kind: 'admin',
          details: {},
        }),
      ]);
    });

    it('admins.manage without admins.view: a change answers the id, the status and the fields sent, and records no read', async () => {
      const { admin, browser } = await signedInAdmin(app, {
        role: 'SUPPORT',
        grantedPermissions: ['admins.manage'],
      });
      const target = await createAdmin(app.db, { role: 'SUPPORT' });
      expectError(await browser.get('/admins'), 403, 'PERMISSION_DENIED');

      const noOp = await browser.send('PATCH', `/admins/${target.id}`, { status: 'ACTIVE' });
      expect(noOp.status, noOp.text).toBe(200);
      expect(noOp.body.data).toEqual({ id: target.id, status: 'ACTIVE' });
      expect(await auditRows(app.db, target.id)).toEqual([]);

      const renamed = await browser.send('PATCH', `/admins/${target.id}`, { name: 'Renamed Support' });
      expect(renamed.status, renamed.text).toBe(200);
      expect(renamed.body.data).toEqual({ id: target.id, status: 'ACTIVE', name: 'Renamed Support' });
      expect((await auditRows(app.db, target.id)).map((row) => row.action)).toEqual(['admins.update']);

      const body = newAdminBody({ role: 'SUPPORT' });
      const created = await browser.send('POST', '/admins', body);
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toEqual({
        id: expect.any(String),
        status: 'ACTIVE',
        email: body.email,
        name: 'New Admin',
        role: 'SUPPORT',
        grantedPermissions: [],
        totpRequired: true,
      });
      expect((await auditRows(app.db, created.body.data.id)).map((row) => row.action)).toEqual([
        'admins.create',
      ]);
      expect(
        await app.db.query(`select 1 from audit_log where actor_id = $1 and action = 'admins.read'`, [
          admin.id,
        ]),
      ).toEqual([]);
    });

    it('disabling an administrator or taking tickets.manage away unassigns their open tickets, each change recorded', async () => {
      const { admin: boss, browser } = await signedInAdmin(app);
      const [leaving, demoted, promoted] = [
        await createAdmin(app.db, { role: 'SUPPORT' }),
        await createAdmin(app.db, { role: 'SUPPORT' }),
        await createAdmin(app.db, { role: 'SUPPORT' }),
      ];
      const ticketFor = async (assigneeId: string) => {
        const opened = await browser.send('POST', '/tickets', { subject: 'Refund', message: 'Hello' });
        expect(opened.status, opened.text).toBe(201);
        const id: string = opened.body.data.ticket.id;
        expect((await browser.send('POST', `/tickets/${id}/assign`, { assigneeId })).status).toBe(200);
        return id;
      };
      const [openOfLeaving, closedOfLeaving] = [await ticketFor(leaving.id), await ticketFor(leaving.id)];
      const closed = await browser.send('POST', `/tickets/${closedOfLeaving}/close`, { resolution: 'Done' });
      expect(closed.status, closed.text).toBe(200);
      const [ofDemoted, ofPromoted] = [await ticketFor(demoted.id), await ticketFor(promoted.id)];
      const assignee = async (ticketId: string) =>
        (await browser.get(`/tickets/${ticketId}`)).body.data.ticket.assignee?.id ?? null;

      expect((await browser.send('PATCH', `/admins/${leaving.id}`, { status: 'DISABLED' })).status).toBe(200);
      expect((await browser.send('PATCH', `/admins/${demoted.id}`, { role: 'ANALYST' })).status).toBe(200);
      expect((await browser.send('PATCH', `/admins/${promoted.id}`, { role: 'ADMIN' })).status).toBe(200);
      expect({
        openOfLeaving: await assignee(openOfLeaving),
        closedOfLeaving: await assignee(closedOfLeaving),
        ofDemoted: await assignee(ofDemoted),
        ofPromoted: await assignee(ofPromoted),
      }).toEqual({
        openOfLeaving: null,
        closedOfLeaving: leaving.id,
        ofDemoted: null,
        ofPromoted: promoted.id,
      });

      const unassigned = async (ticketId: string) =>
        (await auditRows(app.db, ticketId)).filter((row) => row.action === 'tickets.assign').at(-1);
      expect(await unassigned(openOfLeaving)).toMatchObject({
        actor_id: boss.id,
        details: { before: leaving.id, after: null, reason: 'ASSIGNEE_DISABLED' },
      });
      expect(await unassigned(ofDemoted)).toMatchObject({
        actor_id: boss.id,
        details: { before: demoted.id, after: null, reason: 'ASSIGNEE_LOST_PERMISSION' },
      });
      const [update] = (await auditRows(app.db, leaving.id)).filter((row) => row.action === 'admins.update');
      expect(update!.details).toMatchObject({ ticketsUnassigned: [openOfLeaving] });
      // Given back, the account gets no ticket back by itself.
      expect((await browser.send('PATCH', `/admins/${demoted.id}`, { role: 'SUPPORT' })).status).toBe(200);
      expect(await assignee(ofDemoted)).toBeNull();
    });

    it('refuses changing an account that holds a permission the caller lacks', async () => {
      const { browser } = await signedInAdmin(app, {
        role: 'SUPPORT',
        grantedPermissions: ['admins.view', 'admins.manage'],
      });
      const superAdmin = await createAdmin(app.db, { role: 'SUPER_ADMIN' });
      const response = await browser.send('PATCH', `/admins/${superAdmin.id}`, { status: 'DISABLED' });
      expectError(response, 403, 'PERMISSION_DENIED');
      expect(response.body.details).toEqual({ permission: 'companies.manage' });
      const [row] = await app.db.query<{ status: string }>('select status from admins where id = $1', [
        superAdmin.id,
      ]);
      expect(row!.status).toBe('ACTIVE');
    });

    it("refuses removing one's own admins.manage, disabling oneself or lifting one's own TOTP requirement", async () => {
      const { admin, browser } = await signedInAdmin(app, { totp: true, totpRequired: true });
      for (const [change, field] of [
        [{ role: 'ADMIN' }, 'permissions'],
        [{ status: 'DISABLED' }, 'status'],
        [{ totpRequired: false }, 'totpRequired'],
      ] as const) {
        const response = await browser.send('PATCH', `/admins/${admin.id}`, change);
        expectError(response, 409, 'OWN_ACCOUNT_CHANGE_REFUSED');
        expect(response.body.details).toEqual({ field });
      }
      const [row] = await app.db.query<{ role: string; status: string; totp_required: boolean }>(
        'select role, status, totp_required from admins where id = $1',
        [admin.id],
      );
      expect(row).toEqual({ role: 'SUPER_ADMIN', status: 'ACTIVE', totp_required: true });
      expect((await auditRows(app.db, admin.id)).map((entry) => entry.action)).not.toContain('admins.update');
      // Renaming oneself is fine.
      expect((await browser.send('PATCH', `/admins/${admin.id}`, { name: 'Still Me' })).status).toBe(200);
    });

    it('lets only one of two SUPER_ADMINs disabling each other at once succeed: one stays ACTIVE', async () => {
      const a = await signedInAdmin(app);
      const b = await signedInAdmin(app);
      // B's row is busy a moment (any other write of B's account would do the same): A's change waits in flight.
      const held = await holdLock(app.db, `select 1 from admins where id = '${b.admin.id}' for update`);
      const aDisablesB = a.browser.send('PATCH', `/admins/${b.admin.id}`, { status: 'DISABLED' });
      await waitersOf(app.db, held.pid, 1);
      // Meanwhile B, still signed in and active, disables A: answered at once, or queued behind A's change.
      const bDisablesA = b.browser.send('PATCH', `/admins/${a.admin.id}`, { status: 'DISABLED' });
      await answeredOrWaiting(bDisablesA, app.db, held.pid, 2);
      await held.release();
      const [first, second] = await Promise.all([aDisablesB, bDisablesA]);
      const statuses = await app.db.query<{ id: string; status: string }>(
        'select id, status from admins where id = any($1::uuid[])',
        [[a.admin.id, b.admin.id]],
      );
      // In any serial order the second request comes from a disabled account and is refused (401):
      // one of the two stays ACTIVE. Both answering 200 leaves neither.
      expect({ aDisablesB: first.status, bDisablesA: second.status }).not.toEqual({
        aDisablesB: 200,
        bDisablesA: 200,
      });
      expect(statuses.filter((row) => row.status === 'ACTIVE').length).toBe(1);
      expect([first.status, second.status].sort()).toEqual([200, 401]);
    });

    it('refuses a write without the CSRF token and changes nothing', async () => {
      const { browser } = await signedInAdmin(app);
      const target = await createAdmin(app.db, { role: 'SUPPORT' });
      expectError(
        await browser.send('PATCH', `/admins/${target.id}`, { role: 'ANALYST' }, { csrf: null }),
        403,
        'CSRF_TOKEN_INVALID',
      );
      const [row] = await app.db.query<{ role: string }>('select role from admins where id = $1', [
        target.id,
      ]);
      expect(row!.role).toBe('SUPPORT');
      expect(await auditRows(app.db, target.id)).toEqual([]);
    });

    it('answers 404 for an unknown id and 400 for a malformed id or an empty change', async () => {
      const { browser } = await signedInAdmin(app);
      expectError(
        await browser.send('PATCH', `/admins/${randomUUID()}`, { name: 'x' }),
        404,
        'ADMIN_NOT_FOUND',
      );
      expectError(await browser.send('PATCH', '/admins/not-a-uuid', { name: 'x' }), 400, 'VALIDATION_FAILED');
      const target = await createAdmin(app.db);
      expectError(await browser.send('PATCH', `/admins/${target.id}`, {}), 400, 'VALIDATION_FAILED');
      expectError(
        await browser.send('PATCH', `/admins/${target.id}`, { password: 'new password 123' }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });
});

describe('the last administrator who could give a permission back', () => {
  // Who else holds what is platform-wide state: its own database, so the other files'
  // administrators neither hide nor stand in for the last one.
  const database = usePrivateDatabase('last_admin');
  const app = useTestApp({ DATABASE_URL: database.url, ADMIN_LOGIN_MAX_PER_IP: 10_000 });

  /** Disables every account there is: what the test creates next is the whole active team. */
  const onlyNewAccounts = () => app.db.query(`update admins set status = 'DISABLED'`);
  const accessOf = async (adminId: string) =>
    (
      await app.db.query<{ role: string; permissions: string[] }>(
        'select role, permissions from admins where id = $1',
        [adminId],
      )
    )[0];
  const demotion = { role: 'SUPPORT', grantedPermissions: ['admins.manage'] };

  it("refuses dropping a permission of one's own that no other active administrator could give back", async () => {
    await onlyNewAccounts();
    const { admin, browser } = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    // A disabled account gives nothing, and an ADMIN holds the permissions but not admins.manage.
    await createAdmin(app.db, { role: 'SUPER_ADMIN', status: 'DISABLED' });
    await createAdmin(app.db, { role: 'ADMIN' });
    const demoted = await browser.send('PATCH', `/admins/${admin.id}`, demotion);
    expectError(demoted, 409, 'LAST_PERMISSION_GRANTOR');
    expect(demoted.body.details).toEqual({ permission: 'companies.manage' });
    expect(await accessOf(admin.id)).toEqual({ role: 'SUPER_ADMIN', permissions: [] });
    expect((await auditRows(app.db, admin.id)).map((entry) => entry.action)).not.toContain('admins.update');

    // With another active SUPER_ADMIN, who can give the permissions back, the change goes through.
    const other = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    expect((await browser.send('PATCH', `/admins/${admin.id}`, demotion)).status).toBe(200);
    expect(await accessOf(admin.id)).toEqual({ role: 'SUPPORT', permissions: ['admins.manage'] });
    expectError(
      await browser.send('PATCH', `/admins/${admin.id}`, { role: 'SUPER_ADMIN' }),
      403,
      'PERMISSION_DENIED',
    );
    expect((await other.browser.send('PATCH', `/admins/${admin.id}`, { role: 'SUPER_ADMIN' })).status).toBe(
      200,
    );
  });

  it('lets only one of the last two full administrators demoting themselves at once succeed', async () => {
    await onlyNewAccounts();
    const a = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    const b = await signedInAdmin(app, { role: 'SUPER_ADMIN' });
    // Both rows are busy a moment: both changes are in flight together, then go on at once.
    const held = await holdLock(
      app.db,
      `select 1 from admins where id in ('${a.admin.id}', '${b.admin.id}') for update`,
    );
    const aDemotesA = a.browser.send('PATCH', `/admins/${a.admin.id}`, demotion);
    const bDemotesB = b.browser.send('PATCH', `/admins/${b.admin.id}`, demotion);
    await waitersOf(app.db, held.pid, 2);
    await held.release();
    const answers = await Promise.all([aDemotesA, bDemotesB]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const roles = await app.db.query<{ role: string }>(
      'select role from admins where id = any($1::uuid[]) order by role',
      [[a.admin.id, b.admin.id]],
    );
    expect(roles.map((row) => row.role)).toEqual(['SUPER_ADMIN', 'SUPPORT']);
  });
});
