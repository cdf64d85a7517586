import type { AdminPermission } from './permissions.js';

/**
 * Whose details an audit-log reader may see. audit.view lets an administrator read every row of
 * the log (who acted, what, on which record, when, from where), but a row's details hold the data
 * the row is about: an account's e-mail and access, a ticket's subject, a company's payments. Those
 * stay behind the permission that shows that data elsewhere (SPEC: "Reads and edits depend on the
 * current administrator's permissions"), so the log is no way round GET /admin/api/admins.
 */

/** The view permission of each family of actions (an action's name up to its first dot). */
const DETAILS_PERMISSION: Record<string, AdminPermission> = {
  // An administrator account: created or changed, read, signed in, its second factor.
  admins: 'admins.view',
  auth: 'admins.view',
  security: 'admins.view',
  // Support tickets: their subject, traveller, booking and resolution.
  tickets: 'tickets.view',
  // Companies as the administration moderates them, and what their staff, drivers and API keys
  // did inside them: settings, team, fleet and routes, trips, payments, tills, loyalty.
  companies: 'companies.view',
  company: 'companies.view',
  catalogue: 'companies.view',
  team: 'companies.view',
  payments: 'companies.view',
  cash_shifts: 'companies.view',
  loyalty: 'companies.view',
  STAFF_SIGNED_IN: 'companies.view',
  STAFF_SIGNED_OUT: 'companies.view',
  DRIVER_SIGNED_IN: 'companies.view',
  DRIVER_SIGNED_OUT: 'companies.view',
  // The platform state.
  feature_flags: 'platform.view',
  incidents: 'platform.view',
  maintenance: 'platform.view',
  waitlist: 'waitlist.view',
  analytics: 'analytics.view',
  // Reads of the log itself: their filters, which the reader may use too.
  audit_log: 'audit.view',
};

/**
 * An action of a family not listed above (one added later) shows its details only to a reader
 * holding every permission the table names: new data is not shown more widely than any listed.
 */
const UNLISTED: readonly AdminPermission[] = [...new Set(Object.values(DETAILS_PERMISSION))];

/** The permissions a reader needs to see the details of an audit row of `action`. */
export function auditDetailsPermissions(action: string): readonly AdminPermission[] {
  const family = action.split('.', 1)[0]!;
  const permission = Object.hasOwn(DETAILS_PERMISSION, family) ? DETAILS_PERMISSION[family] : undefined;
  return permission ? [permission] : UNLISTED;
}

/** Whether an administrator holding `held` sees the details of an audit row of `action`. */
export function auditDetailsShown(action: string, held: readonly AdminPermission[]): boolean {
  return auditDetailsPermissions(action).every((permission) => held.includes(permission));
}
