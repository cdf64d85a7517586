import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_ROLES,
  ROLE_PERMISSIONS,
  type AdminPermission,
  type AdminRole,
} from '../../../domain/permissions.js';
import { useTestApp } from '../../support/harness.js';
import { signedInAdmin, type AdminBrowser } from './helpers.js';

/**
 * Every administration endpoint × every administrator role: a role without the endpoint's
 * permission gets 403 PERMISSION_DENIED naming it (and no audit row); a role with it gets past the
 * check. Inputs are valid, so the only refusal left is the permission (ids that exist nowhere give
 * 404 after it; writes that succeed change nothing another test relies on).
 */
interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH';
  path: () => string;
  body?: () => unknown;
  /** null: any signed-in administrator. */
  permission: AdminPermission | null;
}

const id = () => randomUUID();
const inDays = (days: number, hours = 0) =>
  new Date(Date.now() + (days * 24 + hours) * 3_600_000).toISOString();
const reason = () => ({ reason: 'Checked by the role matrix' });

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: () => '/permissions', permission: null },
  { method: 'GET', path: () => '/security/2fa', permission: null },
  { method: 'GET', path: () => '/admins', permission: 'admins.view' },
  {
    method: 'POST',
    path: () => '/admins',
    body: () => ({
      email: `matrix-${id().slice(0, 8)}@test.example`,
      name: 'Matrix',
      password: 'a long enough password',
      role: 'ANALYST',
    }),
    permission: 'admins.manage',
  },
  {
    method: 'PATCH',
    path: () => `/admins/${id()}`,
    body: () => ({ name: 'Nobody' }),
    permission: 'admins.manage',
  },
  { method: 'GET', path: () => '/audit-log', permission: 'audit.view' },
  { method: 'GET', path: () => '/companies', permission: 'companies.view' },
  { method: 'GET', path: () => `/companies/${id()}`, permission: 'companies.view' },
  ...['warn', 'suspend', 'unsuspend', 'verify', 'unverify'].map((action): Endpoint => ({
    method: 'POST',
    path: () => `/companies/${id()}/${action}`,
    body: reason,
    permission: 'companies.manage',
  })),
  { method: 'GET', path: () => '/feature-flags', permission: 'platform.view' },
  {
    method: 'PATCH',
    path: () => '/feature-flags/support.traveller_tickets',
    body: () => ({ enabled: true, reason: 'Keep the default' }),
    permission: 'flags.manage',
  },
  { method: 'GET', path: () => '/incidents', permission: 'platform.view' },
  {
    method: 'POST',
    path: () => '/incidents',
    body: () => ({ title: 'Matrix incident', severity: 'MINOR' }),
    permission: 'incidents.manage',
  },
  {
    method: 'PATCH',
    path: () => `/incidents/${id()}`,
    body: () => ({ title: 'Nobody' }),
    permission: 'incidents.manage',
  },
  {
    method: 'POST',
    path: () => `/incidents/${id()}/resolve`,
    body: () => ({ resolution: 'Nothing' }),
    permission: 'incidents.manage',
  },
  { method: 'GET', path: () => '/maintenance', permission: 'platform.view' },
  {
    method: 'POST',
    path: () => '/maintenance',
    body: () => ({ message: 'Matrix window', startsAt: inDays(3000), endsAt: inDays(3000, 1) }),
    permission: 'maintenance.manage',
  },
  {
    method: 'PATCH',
    path: () => `/maintenance/${id()}`,
    body: () => ({ message: 'Nobody' }),
    permission: 'maintenance.manage',
  },
  {
    method: 'POST',
    path: () => `/maintenance/${id()}/cancel`,
    body: reason,
    permission: 'maintenance.manage',
  },
  { method: 'GET', path: () => '/waitlist', permission: 'waitlist.view' },
  { method: 'GET', path: () => '/analytics', permission: 'analytics.view' },
  { method: 'GET', path: () => '/tickets', permission: 'tickets.view' },
  { method: 'GET', path: () => `/tickets/${id()}`, permission: 'tickets.view' },
  {
    method: 'POST',
    path: () => '/tickets',
    body: () => ({ subject: 'Matrix ticket', message: 'Hello' }),
    permission: 'tickets.manage',
  },
  {
    method: 'POST',
    path: () => `/tickets/${id()}/replies`,
    body: () => ({ message: 'Hello' }),
    permission: 'tickets.manage',
  },
  {
    method: 'POST',
    path: () => `/tickets/${id()}/assign`,
    body: () => ({ assigneeId: null }),
    permission: 'tickets.manage',
  },
  {
    method: 'POST',
    path: () => `/tickets/${id()}/close`,
    body: () => ({ resolution: 'Done' }),
    permission: 'tickets.manage',
  },
];

describe('administration: every endpoint × every role', () => {
  const app = useTestApp({ ADMIN_LOGIN_MAX_PER_IP: 10_000 });
  const browsers = {} as Record<AdminRole, { adminId: string; browser: AdminBrowser }>;

  beforeAll(async () => {
    for (const role of ADMIN_ROLES) {
      const signedIn = await signedInAdmin(app, { role });
      browsers[role] = { adminId: signedIn.admin.id, browser: signedIn.browser };
    }
  });

  it('covers every administration route the app declares', async () => {
    const declared = (await app.request('/api/openapi.json')).body.paths as Record<
      string,
      Record<string, unknown>
    >;
    const adminRoutes = Object.entries(declared)
      .filter(([path]) => path.startsWith('/admin/api/'))
      .flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.slice('/admin/api'.length)}`),
      );
    const selfService = /^(POST|PATCH|DELETE|GET) \/(auth|security)\//;
    const covered = ENDPOINTS.map(
      (endpoint) =>
        `${endpoint.method} ${endpoint
          .path()
          .replace(/[0-9a-f-]{36}/g, '{id}')
          .replace('/support.traveller_tickets', '/{key}')}`,
    );
    expect(
      adminRoutes.filter((route) => !selfService.test(route) && route !== 'GET /security/2fa').sort(),
    ).toEqual(covered.filter((route) => route !== 'GET /security/2fa').sort());
  });

  for (const role of ADMIN_ROLES) {
    it(`${role}: allowed exactly where the role holds the permission`, async () => {
      const { adminId, browser } = browsers[role];
      for (const endpoint of ENDPOINTS) {
        const path = endpoint.path();
        const response =
          endpoint.method === 'GET'
            ? await browser.get(path)
            : await browser.send(endpoint.method, path, endpoint.body?.());
        const label = `${role} ${endpoint.method} ${path}`;
        const allowed = endpoint.permission === null || ROLE_PERMISSIONS[role].includes(endpoint.permission);
        if (allowed) {
          expect([200, 201, 404], `${label}: ${response.text}`).toContain(response.status);
        } else {
          expect({ label, status: response.status, body: response.body?.details }).toEqual({
            label,
            status: 403,
            body: { permission: endpoint.permission },
          });
          expect(response.body.errorCode).toBe('PERMISSION_DENIED');
        }
      }
      // Every list read is recorded, once for each read the role was allowed (and none refused).
      const recordedReads: [string, AdminPermission][] = [
        ['companies.list', 'companies.view'],
        ['waitlist.list', 'waitlist.view'],
        ['tickets.list', 'tickets.view'],
        ['analytics.read', 'analytics.view'],
        ['audit_log.read', 'audit.view'],
        ['admins.list', 'admins.view'],
        ['feature_flags.list', 'platform.view'],
        ['incidents.list', 'platform.view'],
        ['maintenance.list', 'platform.view'],
      ];
      const recorded = await app.db.query<{ action: string }>(
        `select action from audit_log where actor_id = $1 and action = any($2::text[])`,
        [adminId, recordedReads.map(([action]) => action)],
      );
      expect(recorded.map((row) => row.action).sort()).toEqual(
        recordedReads
          .filter(([, permission]) => ROLE_PERMISSIONS[role].includes(permission))
          .map(([action]) => action)
          .sort(),
      );
    });
  }
});
