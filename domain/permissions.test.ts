import { describe, expect, it } from 'vitest';
import {
  ADMIN_PERMISSIONS,
  adminChangeRefusal,
  ADMIN_ROLES,
  effectivePermissions,
  missingPermissions,
  PERMISSIONS_NEEDING_SECOND_FACTOR,
  refuseAdminChange,
  ROLE_PERMISSIONS,
  secondFactorMandatory,
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

describe('who must sign in with a second factor', () => {
  const account = (role: AdminRole, grantedPermissions: string[] = [], totpRequired = false) => ({
    role,
    grantedPermissions,
    totpRequired,
  });

  it('in production, whoever holds a permission that changes other accounts or the platform, by role or by grant', () => {
    expect(PERMISSIONS_NEEDING_SECOND_FACTOR).toEqual([
      'companies.manage',
      'admins.manage',
      'flags.manage',
      'maintenance.manage',
    ]);
    const mandatory = ADMIN_ROLES.filter((role) => secondFactorMandatory(account(role), true));
    expect(mandatory).toEqual(['SUPER_ADMIN', 'ADMIN']);
    for (const permission of PERMISSIONS_NEEDING_SECOND_FACTOR) {
      expect(secondFactorMandatory(account('SUPPORT', [permission]), true), permission).toBe(true);
    }
    expect(secondFactorMandatory(account('SUPPORT', [...ADMIN_PERMISSIONS]), true)).toBe(true);
    const reading = ['audit.view', 'admins.view', 'analytics.view', 'waitlist.view'];
    expect(secondFactorMandatory(account('SUPPORT', reading), true)).toBe(false);
  });

  it("elsewhere only when the account's own flag says so", () => {
    expect(secondFactorMandatory(account('SUPER_ADMIN'), false)).toBe(false);
    expect(secondFactorMandatory(account('ANALYST', [], true), false)).toBe(true);
    expect(secondFactorMandatory(account('ANALYST', [], true), true)).toBe(true);
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
    expect(
      refuseAdminChange({ production: false, actor: superAdmin, target: null, next: access('SUPER_ADMIN') }),
    ).toBeNull();
  });

  it('refuses handing out a permission the actor lacks, naming it', () => {
    expect(
      refuseAdminChange({ production: false, actor: teamLead, target: null, next: access('SUPPORT') }),
    ).toBeNull();
    expect(
      refuseAdminChange({ production: false, actor: teamLead, target: null, next: access('ANALYST') }),
    ).toEqual({
      errorCode: 'PERMISSION_DENIED',
      permission: 'analytics.view',
    });
    expect(
      refuseAdminChange({
        production: false,
        actor: teamLead,
        target: null,
        next: access('SUPPORT', ['audit.view']),
      }),
    ).toEqual({
      errorCode: 'PERMISSION_DENIED',
      permission: 'audit.view',
    });
  });

  it('refuses changing an account that holds a permission the actor lacks, even to lower it', () => {
    const target = { adminId: 'other', ...access('ADMIN') };
    expect(
      refuseAdminChange({ production: false, actor: teamLead, target, next: access('SUPPORT') }),
    ).toEqual({
      errorCode: 'PERMISSION_DENIED',
      permission: 'companies.manage',
    });
  });

  it("refuses locking oneself out or lifting one's own second-factor requirement", () => {
    const self = { adminId: 'super', ...access('SUPER_ADMIN', [], { totpRequired: true }) };
    const refuse = (next: AdminAccess) =>
      refuseAdminChange({ production: false, actor: superAdmin, target: self, next });
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

describe("dropping a permission of one's own", () => {
  const superAdmin = { adminId: 'super', permissions: effectivePermissions('SUPER_ADMIN', []) };
  const self = {
    adminId: 'super',
    role: 'SUPER_ADMIN',
    grantedPermissions: [],
    status: 'ACTIVE',
    totpRequired: false,
  } as const;
  const demoted: AdminAccess = { ...self, role: 'SUPPORT', grantedPermissions: ['admins.manage'] };
  const change = { production: false, actor: superAdmin, target: self, next: demoted };

  it('is refused unless another active account could give it back, naming the first such permission', () => {
    const lost = { errorCode: 'LAST_PERMISSION_GRANTOR', permission: 'companies.manage' };
    expect(refuseAdminChange({ ...change, others: [] })).toEqual(lost);
    // Holding the permission is not enough: giving it back needs admins.manage and all that is kept.
    expect(refuseAdminChange({ ...change, others: [ROLE_PERMISSIONS.ADMIN] })).toEqual(lost);
    const grantor = effectivePermissions('SUPPORT', ['admins.manage', 'companies.manage']);
    expect(refuseAdminChange({ ...change, others: [ROLE_PERMISSIONS.ADMIN, grantor] })).toEqual({
      errorCode: 'LAST_PERMISSION_GRANTOR',
      permission: 'admins.view',
    });
    expect(refuseAdminChange({ ...change, others: [ROLE_PERMISSIONS.SUPER_ADMIN] })).toBeNull();
    // Not knowing who else holds what, nothing may be dropped.
    expect(refuseAdminChange(change)).toEqual(lost);
  });

  it('is no concern when changing someone else, or when nothing is dropped', () => {
    const other = { ...self, adminId: 'other' };
    expect(refuseAdminChange({ ...change, target: other })).toBeNull();
    const relabelled: AdminAccess = { ...self, role: 'SUPPORT', grantedPermissions: [...ADMIN_PERMISSIONS] };
    expect(refuseAdminChange({ ...change, production: true, next: relabelled, others: [] })).toBeNull();
  });

  it('is 409 LAST_PERMISSION_GRANTOR naming the permission', () => {
    const refusal = adminChangeRefusal(change);
    expect([refusal?.status, refusal?.errorCode, refusal?.details]).toEqual([
      409,
      'LAST_PERMISSION_GRANTOR',
      { permission: 'companies.manage' },
    ]);
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
    const refusal = adminChangeRefusal({ production: false, actor, target: null, next: next('ANALYST') });
    expect([refusal?.status, refusal?.errorCode, refusal?.details]).toEqual([
      403,
      'PERMISSION_DENIED',
      { permission: 'analytics.view' },
    ]);
  });

  it('is 409 OWN_ACCOUNT_CHANGE_REFUSED naming the field', () => {
    const target = { adminId: 'lead', ...next('SUPPORT', { grantedPermissions: ['admins.manage'] }) };
    const refusal = adminChangeRefusal({ production: false, actor, target, next: next('SUPPORT') });
    expect([refusal?.status, refusal?.errorCode, refusal?.details]).toEqual([
      409,
      'OWN_ACCOUNT_CHANGE_REFUSED',
      { field: 'permissions' },
    ]);
  });

  it('is null for an allowed change', () => {
    expect(adminChangeRefusal({ production: false, actor, target: null, next: next('SUPPORT') })).toBeNull();
  });
});
