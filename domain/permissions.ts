import { Refusal } from './refusal.js';

/**
 * Administration permissions (SPEC "Administration permissions") and the roles that bundle them.
 * An administrator holds the permissions of their role plus any granted one by one; a grant can
 * add to a role but never take away from it (change the role for that).
 */
export const ADMIN_PERMISSIONS = [
  'companies.view',
  'companies.manage',
  'tickets.view',
  'tickets.manage',
  'admins.view',
  'admins.manage',
  'analytics.view',
  'audit.view',
  'platform.view',
  'flags.manage',
  'incidents.manage',
  'maintenance.manage',
  'waitlist.view',
] as const;

export type AdminPermission = (typeof ADMIN_PERMISSIONS)[number];

export const ADMIN_ROLES = ['SUPER_ADMIN', 'ADMIN', 'SUPPORT', 'ANALYST'] as const;

export type AdminRole = (typeof ADMIN_ROLES)[number];

/**
 * The permissions that change other accounts or the platform: administrators and their access
 * (admins.manage), companies' standing (companies.manage), feature flags (flags.manage) and
 * maintenance windows, which refuse writes (maintenance.manage). In production whoever holds one,
 * by role or by grant, signs in with a second factor: the rule follows the access, not the role's
 * name, so SUPER_ADMIN and ADMIN always need it and SUPPORT or ANALYST do once granted one of these.
 * Reading, answering tickets and incident notices are day-to-day support work and need it only
 * when the account's own flag says so.
 */
export const PERMISSIONS_NEEDING_SECOND_FACTOR: readonly AdminPermission[] = [
  'companies.manage',
  'admins.manage',
  'flags.manage',
  'maintenance.manage',
];

/**
 * Whether an administrator must sign in with a second factor: the account's own flag, and in
 * production any holder of a permission in PERMISSIONS_NEEDING_SECOND_FACTOR whatever the flag says.
 */
export function secondFactorMandatory(
  account: { role: AdminRole; grantedPermissions: readonly string[]; totpRequired: boolean },
  production: boolean,
): boolean {
  if (account.totpRequired) return true;
  if (!production) return false;
  const held = effectivePermissions(account.role, account.grantedPermissions);
  return PERMISSIONS_NEEDING_SECOND_FACTOR.some((permission) => held.includes(permission));
}

export const PERMISSION_DESCRIPTIONS: Record<AdminPermission, string> = {
  'companies.view': 'See companies and their state',
  'companies.manage': 'Warn, suspend, unsuspend, verify and unverify companies',
  'tickets.view': 'Read support tickets',
  'tickets.manage': 'Answer, assign and close support tickets',
  'admins.view': 'List administrators',
  'admins.manage':
    'Create administrators and change their role, permissions, status and second-factor policy',
  'analytics.view': 'Read platform analytics',
  'audit.view': 'Read the audit log',
  'platform.view': 'See feature flags, incidents and maintenance windows',
  'flags.manage': 'Turn feature flags on and off',
  'incidents.manage': 'Open, update and resolve incidents',
  'maintenance.manage': 'Schedule, change and cancel maintenance windows',
  'waitlist.view': 'Read the pre-launch waitlist (e-mail addresses)',
};

/** The explicit permission list of each role. */
export const ROLE_PERMISSIONS: Record<AdminRole, readonly AdminPermission[]> = {
  SUPER_ADMIN: ADMIN_PERMISSIONS,
  // Runs the platform day to day; only a holder of admins.manage shapes the administrator team.
  ADMIN: ADMIN_PERMISSIONS.filter((permission) => permission !== 'admins.manage'),
  // Platform support answers tickets, looks up the company a ticket is about, and tells users
  // about incidents; flags, maintenance and companies' standing stay with administrators.
  SUPPORT: ['companies.view', 'tickets.view', 'tickets.manage', 'platform.view', 'incidents.manage'],
  // Analysts read figures: analytics, the companies behind them and the pre-launch demand.
  ANALYST: ['companies.view', 'analytics.view', 'platform.view', 'waitlist.view'],
};

export const ROLE_DESCRIPTIONS: Record<AdminRole, string> = {
  SUPER_ADMIN: 'Every permission',
  ADMIN: 'Every permission except admins.manage',
  SUPPORT: 'Platform support: tickets and incidents, and reading companies and the platform state',
  ANALYST: 'Analytics and the waitlist, and reading companies and the platform state',
};

export function isAdminPermission(value: string): value is AdminPermission {
  return (ADMIN_PERMISSIONS as readonly string[]).includes(value);
}

/**
 * What an administrator may do: the role's permissions and the granted ones, in catalogue order.
 * A stored grant that is no longer a known permission gives nothing.
 */
export function effectivePermissions(role: AdminRole, granted: readonly string[]): AdminPermission[] {
  const held = new Set<string>([...ROLE_PERMISSIONS[role], ...granted]);
  return ADMIN_PERMISSIONS.filter((permission) => held.has(permission));
}

/** The permissions of `wanted` that `held` lacks, in catalogue order. */
export function missingPermissions(
  wanted: readonly AdminPermission[],
  held: readonly AdminPermission[],
): AdminPermission[] {
  return ADMIN_PERMISSIONS.filter((permission) => wanted.includes(permission) && !held.includes(permission));
}

/** Who may be given what by whom: the part of an administrator account that grants access. */
export interface AdminAccess {
  role: AdminRole;
  grantedPermissions: readonly string[];
  status: 'ACTIVE' | 'DISABLED';
  totpRequired: boolean;
}

export type AdminChangeRefusal =
  | { errorCode: 'PERMISSION_DENIED'; permission: AdminPermission }
  | { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED'; field: 'permissions' | 'status' | 'totpRequired' }
  | { errorCode: 'LAST_PERMISSION_GRANTOR'; permission: AdminPermission };

/**
 * Why an administrator (holding admins.manage) may not create or change an account, or null.
 *   - Nobody hands out a permission they do not hold, and nobody changes an account that holds a
 *     permission they lack: admins.manage alone never leads to more access than one already has.
 *   - Nobody locks themselves out or lowers their own guard: no removing one's own admins.manage,
 *     no disabling oneself, no lifting one's own second-factor requirement (the flag, or in
 *     `production` the mandate that comes with the permissions held).
 *   - Nobody drops a permission of their own that no other ACTIVE account could give back: by the
 *     first rule that needs one holding the permission and everything the account keeps (admins.manage
 *     among it). Holding the permission alone is not enough: an ADMIN lacks admins.manage.
 */
export function refuseAdminChange(change: {
  actor: { adminId: string; permissions: readonly AdminPermission[] };
  /** The account as it is; null when it is being created. */
  target: (AdminAccess & { adminId: string }) | null;
  next: AdminAccess;
  production: boolean;
  /**
   * For a change of one's own account: the permissions of each other ACTIVE account. Left out, it
   * counts as nobody: the change may then drop nothing.
   */
  others?: readonly (readonly AdminPermission[])[];
}): AdminChangeRefusal | null {
  const { actor, target, next, production } = change;
  const outranked = (access: AdminAccess) =>
    missingPermissions(effectivePermissions(access.role, access.grantedPermissions), actor.permissions)[0];
  const heldByTarget = target ? outranked(target) : undefined;
  if (heldByTarget) return { errorCode: 'PERMISSION_DENIED', permission: heldByTarget };
  const handedOut = outranked(next);
  if (handedOut) return { errorCode: 'PERMISSION_DENIED', permission: handedOut };
  if (target?.adminId === actor.adminId) {
    const kept = effectivePermissions(next.role, next.grantedPermissions);
    if (!kept.includes('admins.manage'))
      return { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED', field: 'permissions' };
    if (next.status !== 'ACTIVE') return { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED', field: 'status' };
    if (target.totpRequired && !next.totpRequired)
      return { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED', field: 'totpRequired' };
    // In production admins.manage, kept above, carries the mandate itself; this holds the rule
    // should that list ever change.
    if (secondFactorMandatory(target, production) && !secondFactorMandatory(next, production))
      return { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED', field: 'permissions' };
    const dropped = missingPermissions(effectivePermissions(target.role, target.grantedPermissions), kept);
    const canGiveBack = (permission: AdminPermission) =>
      (change.others ?? []).some((held) => missingPermissions([...kept, permission], held).length === 0);
    const lost = dropped.find((permission) => !canGiveBack(permission));
    if (lost) return { errorCode: 'LAST_PERMISSION_GRANTOR', permission: lost };
  }
  return null;
}

/** 403 PERMISSION_DENIED, naming the permission the administrator lacks. */
export function permissionDenied(permission: AdminPermission): Refusal {
  return new Refusal(403, 'PERMISSION_DENIED', `This needs the ${permission} permission`, { permission });
}

/**
 * 401 INVALID_CREDENTIAL: the administrator's session has ended (signed out, expired, idle, or the
 * account disabled), whether the request found it so or it ended while the request ran.
 */
export function adminSessionEnded(): Refusal {
  return new Refusal(401, 'INVALID_CREDENTIAL', 'The administrator session is invalid or has expired');
}

/** refuseAdminChange's answer as the refusal the administrator gets, or null. */
export function adminChangeRefusal(change: Parameters<typeof refuseAdminChange>[0]): Refusal | null {
  const refusal = refuseAdminChange(change);
  if (!refusal) return null;
  if (refusal.errorCode === 'PERMISSION_DENIED') return permissionDenied(refusal.permission);
  if (refusal.errorCode === 'LAST_PERMISSION_GRANTOR') {
    return new Refusal(
      409,
      'LAST_PERMISSION_GRANTOR',
      `No other active administrator could give ${refusal.permission} back: keep it, or first give another ` +
        'administrator every permission you hold',
      { permission: refusal.permission },
    );
  }
  return new Refusal(
    409,
    'OWN_ACCOUNT_CHANGE_REFUSED',
    'Administrators cannot lock themselves out or lift their own second-factor requirement',
    { field: refusal.field },
  );
}
