import { describe, expect, it } from 'vitest';
import {
  ADMIN_PERMISSIONS,
  adminChangeRefusal,
  ADMIN_ROLES,
  effectivePermissions,
  missingPermissions,
  refuseAdminChange,
  ROLE_PERMISSIONS,
  type AdminAccess,
  type AdminRole,
} from './permissions.js';

describe('administration roles', () => {
  it.each([
    ['SUPER_ADMIN', [...ADMIN_PERMISSIONS]],
    ['ADMIN', ADMIN_PERMISSIONS.filter((permission) => permission !== 'admins.manage')],
    ['SUPPORT', ['companies.view', 'tickets.view', 'tickets.manage', 'platform.view', 'incidents.manage']],
    ['ANALYST', ['companies.view', 'analytics.view', 'platform.view', 'waitlist.view']],
  ] as const)('%s holds exactly %j', (role, permissions) => {
    expect(effectivePermissions(role, [])).toEqual(permissions);
  });

  it('gives only SUPER_ADMIN admins.manage, and nobody but ADMIN and SUPER_ADMIN the audit log', () => {
    const holders = (permission: string) =>
      ADMIN_ROLES.filter((role) => ROLE_PERMISSIONS[role].includes(permission as never));
    expect(holders('admins.manage')).toEqual(['SUPER_ADMIN']);
    expect(holders('audit.view')).toEqual(['SUPER_ADMIN', 'ADMIN']);
    expect(holders('flags.manage')).toEqual(['SUPER_ADMIN', 'ADMIN']);
    expect(holders('maintenance.manage')).toEqual(['SUPER_ADMIN', 'ADMIN']);
    expect(holders('companies.manage')).toEqual(['SUPER_ADMIN', 'ADMIN']);
  });

  it('adds granted permissions to the role, in catalogue order, and ignores unknown grants', () => {
    expect(effectivePermissions('SUPPORT', ['audit.view', 'tickets.view', 'bookings.refund'])).toEqual([
      'companies.view',
      'tickets.view',
      'tickets.manage',
      'audit.view',
      'platform.view',
      'incidents.manage',
    ]);
  });

  it('names what a holder lacks', () => {
    expect(
      missingPermissions(
        ['admins.manage', 'audit.view', 'tickets.view'],
        effectivePermissions('SUPPORT', []),
      ),
    ).toEqual(['admins.manage', 'audit.view']);
    expect(missingPermissions(ROLE_PERMISSIONS.ADMIN, effectivePermissions('SUPER_ADMIN', []))).toEqual([]);
  });
});

describe('who may create or change an administrator', () => {
  const superAdmin = { adminId: 'super', permissions: effectivePermissions('SUPER_ADMIN', []) };
  const teamLead = {
    adminId: 'lead',
    permissions: effectivePermissions('SUPPORT', ['admins.view', 'admins.manage']),
  };
  const access = (
    role: AdminRole,
    grantedPermissions: string[] = [],
    change: Partial<AdminAccess> = {},
  ): AdminAccess => ({
    role,
    grantedPermissions,
    status: 'ACTIVE',
    totpRequired: false,
    ...change,
  });

  it('lets a holder of every permission create any account', () => {
    expect(refuseAdminChange({ actor: superAdmin, target: null, next: access('SUPER_ADMIN') })).toBeNull();
  });

  it('refuses handing out a permission the actor lacks, naming it', () => {
    expect(refuseAdminChange({ actor: teamLead, target: null, next: access('SUPPORT') })).toBeNull();
    expect(refuseAdminChange({ actor: teamLead, target: null, next: access('ANALYST') })).toEqual({
      errorCode: 'PERMISSION_DENIED',
      permission: 'analytics.view',
    });
    expect(
      refuseAdminChange({ actor: teamLead, target: null, next: access('SUPPORT', ['audit.view']) }),
    ).toEqual({
      errorCode: 'PERMISSION_DENIED',
      permission: 'audit.view',
    });
  });

  it('refuses changing an account that holds a permission the actor lacks, even to lower it', () => {
    const target = { adminId: 'other', ...access('ADMIN') };
    expect(refuseAdminChange({ actor: teamLead, target, next: access('SUPPORT') })).toEqual({
      errorCode: 'PERMISSION_DENIED',
      permission: 'companies.manage',
    });
  });

  it("refuses locking oneself out or lifting one's own second-factor requirement", () => {
    const self = { adminId: 'super', ...access('SUPER_ADMIN', [], { totpRequired: true }) };
    const refuse = (next: AdminAccess) => refuseAdminChange({ actor: superAdmin, target: self, next });
    expect(refuse(access('ADMIN', [], { totpRequired: true }))).toEqual({
      errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED',
      field: 'permissions',
    });
    expect(refuse(access('ADMIN', ['admins.manage'], { totpRequired: true }))).toBeNull();
    expect(refuse(access('SUPER_ADMIN', [], { status: 'DISABLED', totpRequired: true }))).toEqual({
      errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED',
      field: 'status',
    });
    expect(refuse(access('SUPER_ADMIN'))).toEqual({
      errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED',
      field: 'totpRequired',
    });
  });
});

describe('the refusal an administrator gets for a change', () => {
  const actor = { adminId: 'lead', permissions: effectivePermissions('SUPPORT', ['admins.manage']) };
  const next = (role: AdminRole, change: Partial<AdminAccess> = {}): AdminAccess => ({
    role,
    grantedPermissions: [],
    status: 'ACTIVE',
    totpRequired: false,
    ...change,
  });

  it('is 403 PERMISSION_DENIED naming the permission the actor lacks', () => {
    const refusal = adminChangeRefusal({ actor, target: null, next: next('ANALYST') });
    expect([refusal?.status, refusal?.errorCode, refusal?.details]).toEqual([
      403,
      'PERMISSION_DENIED',
      { permission: 'analytics.view' },
    ]);
  });

  it('is 409 OWN_ACCOUNT_CHANGE_REFUSED naming the field', () => {
    const target = { adminId: 'lead', ...next('SUPPORT', { grantedPermissions: ['admins.manage'] }) };
    const refusal = adminChangeRefusal({ actor, target, next: next('SUPPORT') });
    expect([refusal?.status, refusal?.errorCode, refusal?.details]).toEqual([
      409,
      'OWN_ACCOUNT_CHANGE_REFUSED',
      { field: 'permissions' },
    ]);
  });

  it('is null for an allowed change', () => {
    expect(adminChangeRefusal({ actor, target: null, next: next('SUPPORT') })).toBeNull();
  });
});
