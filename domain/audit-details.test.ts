import { describe, expect, it } from 'vitest';
import { auditDetailsPermissions, auditDetailsShown } from './audit-details.js';
import { effectivePermissions, ROLE_PERMISSIONS } from './permissions.js';

describe('the details of an audit row', () => {
  it.each([
    ['admins.create', 'admins.view'],
    ['admins.update', 'admins.view'],
    ['auth.login', 'admins.view'],
    ['security.2fa_removed', 'admins.view'],
    ['tickets.close', 'tickets.view'],
    ['companies.suspend', 'companies.view'],
    ['company.api_key.create', 'companies.view'],
    ['payments.refund', 'companies.view'],
    ['loyalty.account.adjust', 'companies.view'],
    ['DRIVER_SIGNED_IN', 'companies.view'],
    ['feature_flags.update', 'platform.view'],
    ['maintenance.cancel', 'platform.view'],
    ['waitlist.list', 'waitlist.view'],
    ['analytics.read', 'analytics.view'],
    ['audit_log.read', 'audit.view'],
  ])('of %s need %s', (action, permission) => {
    expect(auditDetailsPermissions(action)).toEqual([permission]);
  });

  it('of an action of no listed family (constructor is none) need every permission the table names', () => {
    expect(auditDetailsPermissions('reports.export')).toEqual(
      expect.arrayContaining(['admins.view', 'tickets.view', 'companies.view', 'platform.view']),
    );
    expect(auditDetailsPermissions('constructor.x')).toEqual(auditDetailsPermissions('reports.export'));
  });

  it('show to ADMIN and SUPER_ADMIN everywhere; to an ANALYST with audit.view neither accounts nor tickets', () => {
    for (const role of ['ADMIN', 'SUPER_ADMIN'] as const) {
      expect(auditDetailsShown('admins.create', ROLE_PERMISSIONS[role]), role).toBe(true);
      expect(auditDetailsShown('reports.export', ROLE_PERMISSIONS[role]), role).toBe(true);
    }
    const auditor = effectivePermissions('ANALYST', ['audit.view']);
    expect(auditDetailsShown('admins.create', auditor)).toBe(false);
    expect(auditDetailsShown('tickets.create', auditor)).toBe(false);
    expect(auditDetailsShown('reports.export', auditor)).toBe(false);
    expect(auditDetailsShown('companies.warn', auditor)).toBe(true);
  });
});
