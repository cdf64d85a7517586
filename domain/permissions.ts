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

/** Roles that may change other accounts or the platform: in production they always need a second factor. */
const ROLES_NEEDING_SECOND_FACTOR: readonly AdminRole[] = ['SUPER_ADMIN', 'ADMIN'];

/**
 * Whether an administrator must sign in with a second factor: the account's own flag, and in
 * production every SUPER_ADMIN and ADMIN whatever the flag says.
 */
export function secondFactorMandatory(
  account: { role: AdminRole; totpRequired: boolean },
  production: boolean,
): boolean {
  return account.totpRequired || (production && ROLES_NEEDING_SECOND_FACTOR.includes(account.role));
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
  | { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED'; field: 'permissions' | 'status' | 'totpRequired' };

/**
 * Why an administrator (holding admins.manage) may not create or change an account, or null.
 *   - Nobody hands out a permission they do not hold, and nobody changes an account that holds a
 *     permission they lack: admins.manage alone never leads to more access than one already has.
 *   - Nobody locks themselves out or lowers their own guard: no removing one's own admins.manage,
 *     no disabling oneself, no lifting one's own second-factor requirement.
 */
export function refuseAdminChange(change: {
  actor: { adminId: string; permissions: readonly AdminPermission[] };
  /** The account as it is; null when it is being created. */
  target: (AdminAccess & { adminId: string }) | null;
  next: AdminAccess;
}): AdminChangeRefusal | null {
  const { actor, target, next } = change;
  const outranked = (access: AdminAccess) =>
    missingPermissions(effectivePermissions(access.role, access.grantedPermissions), actor.permissions)[0];
  const heldByTarget = target ? outranked(target) : undefined;
  if (heldByTarget) return { errorCode: 'PERMISSION_DENIED', permission: heldByTarget };
  const handedOut = outranked(next);
  if (handedOut) return { errorCode: 'PERMISSION_DENIED', permission: handedOut };
  if (target?.adminId === actor.adminId) {
    if (!effectivePermissions(next.role, next.grantedPermissions).includes('admins.manage')) {
      return { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED', field: 'permissions' };
    }
    if (next.status !== 'ACTIVE') return { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED', field: 'status' };
    if (target.totpRequired && !next.totpRequired)
      return { errorCode: 'OWN_ACCOUNT_CHANGE_REFUSED', field: 'totpRequired' };
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
  return new Refusal(
    409,
    'OWN_ACCOUNT_CHANGE_REFUSED',
    'Administrators cannot lock themselves out or lift their own second-factor requirement',
    { field: refusal.field },
  );
}
