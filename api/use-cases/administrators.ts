import type { Database } from '../../db/orm.js';
import {
  listAdmins,
  listAuditLog,
  lockAdmin,
  type AdminFilter,
  type AdminRow,
  type AuditFilter,
  type AuditRow,
} from '../../db/queries/admins.js';
import { insertAdmin, updateAdmin, type AdminChange } from '../../db/writes/admins.js';
import { recordAudit, type AuditEntry } from '../../db/writes/audit.js';
import {
  ADMIN_PERMISSIONS,
  adminChangeRefusal,
  type AdminAccess,
  type AdminPermission,
  type AdminRole,
} from '../../domain/permissions.js';
import type { AdminPrincipal } from '../auth/admin-auth.js';
import { revokeOtherAdminSessions } from '../auth/admin-session.js';
import { hashPassword } from '../auth/passwords.js';
import { conflict, notFound } from '../http/errors.js';

/**
 * The administrator team and the audit log, as an administrator with the permission sees and
 * shapes them. Each read and each change is one transaction with its audit row, so what commits
 * is always recorded.
 */

/** Who and where, for the audit row: the acting administrator and the request. */
export type AuditActor = Pick<AuditEntry, 'actorKind' | 'actorId' | 'ip' | 'requestId'>;

/** A page of administrators; the read is recorded (admins.list). */
export async function listAdministrators(
  db: Database,
  audit: AuditActor,
  filter: AdminFilter,
): Promise<{ items: AdminRow[]; total: number }> {
  return db.transaction(async (client) => {
    const found = await listAdmins(client, filter);
    await recordAudit(client, {
      ...audit,
      action: 'admins.list',
      targetKind: 'admin',
      details: {
        filter: { status: filter.status ?? null, role: filter.role ?? null },
        limit: filter.limit,
        offset: filter.offset,
        returned: found.items.length,
      },
    });
    return found;
  });
}

/** A page of the audit log; reading it is itself recorded (audit_log.read) with the filter used. */
export async function readAuditLog(
  db: Database,
  audit: AuditActor,
  filter: AuditFilter,
  shownFilter: Record<string, unknown>,
): Promise<{ items: AuditRow[]; total: number }> {
  return db.transaction(async (client) => {
    const found = await listAuditLog(client, filter);
    await recordAudit(client, {
      ...audit,
      action: 'audit_log.read',
      targetKind: 'audit_log',
      details: {
        filter: shownFilter,
        limit: filter.limit,
        offset: filter.offset,
        returned: found.items.length,
      },
    });
    return found;
  });
}

export interface NewAdministrator {
  email: string;
  name: string;
  password: string;
  role: AdminRole;
  grantedPermissions: AdminPermission[];
  totpRequired: boolean;
}

/** Creates an account the actor may hand out (admins.create); 409 ADMIN_EMAIL_TAKEN for a taken address. */
export async function createAdministrator(
  db: Database,
  actor: AdminPrincipal,
  audit: AuditActor,
  input: NewAdministrator,
): Promise<AdminRow> {
  const access: AdminAccess = {
    role: input.role,
    grantedPermissions: catalogueOrder(input.grantedPermissions),
    status: 'ACTIVE',
    totpRequired: input.totpRequired,
  };
  const refusal = adminChangeRefusal({ actor, target: null, next: access });
  if (refusal) throw refusal;
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (client) => {
    const row = await insertAdmin(client, {
      ...access,
      email: input.email,
      name: input.name,
      passwordHash,
      grantedPermissions: [...access.grantedPermissions],
    });
    if (!row) throw conflict('ADMIN_EMAIL_TAKEN', 'An administrator with this e-mail address exists');
    await recordAudit(client, {
      ...audit,
      action: 'admins.create',
      targetKind: 'admin',
      targetId: row.id,
      details: {
        email: row.email,
        role: row.role,
        grantedPermissions: row.permissions,
        totpRequired: row.totp_required,
      },
    });
    return row;
  });
}

/** The fields an update may send; an omitted one keeps its value. */
export type AdministratorChange = Partial<Omit<AdminChange, 'grantedPermissions'>> & {
  grantedPermissions?: AdminPermission[] | undefined;
};

/**
 * Changes an account (admins.update, each changed field before and after); disabling it ends its
 * sessions at once. 404 ADMIN_NOT_FOUND.
 */
export async function updateAdministrator(
  db: Database,
  actor: AdminPrincipal,
  audit: AuditActor,
  adminId: string,
  change: AdministratorChange,
): Promise<AdminRow> {
  return db.transaction(async (client) => {
    const current = await lockAdmin(client, adminId);
    if (!current) throw notFound('ADMIN_NOT_FOUND', 'No administrator has this id');
    const next = changed(current, change);
    const refusal = adminChangeRefusal({
      actor,
      target: { adminId: current.id, ...accessOf(current) },
      next,
    });
    if (refusal) throw refusal;
    const row = await updateAdmin(client, current.id, next);
    if (current.status === 'ACTIVE' && row.status === 'DISABLED')
      await revokeOtherAdminSessions(client, row.id);
    await recordAudit(client, {
      ...audit,
      action: 'admins.update',
      targetKind: 'admin',
      targetId: row.id,
      details: { changes: differences(current, row) },
    });
    return row;
  });
}

function accessOf(row: AdminRow): AdminAccess {
  return {
    role: row.role,
    grantedPermissions: row.permissions,
    status: row.status,
    totpRequired: row.totp_required,
  };
}

function changed(current: AdminRow, change: AdministratorChange): AdminChange {
  return {
    name: change.name ?? current.name,
    role: change.role ?? current.role,
    grantedPermissions: change.grantedPermissions
      ? catalogueOrder(change.grantedPermissions)
      : current.permissions,
    status: change.status ?? current.status,
    totpRequired: change.totpRequired ?? current.totp_required,
  };
}

/** Each field that changed, before and after, for the audit row. */
function differences(before: AdminRow, after: AdminRow): Record<string, { from: unknown; to: unknown }> {
  const fields = {
    name: 'name',
    role: 'role',
    grantedPermissions: 'permissions',
    status: 'status',
    totpRequired: 'totp_required',
  } as const;
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, column] of Object.entries(fields)) {
    if (JSON.stringify(before[column]) !== JSON.stringify(after[column]))
      changes[field] = { from: before[column], to: after[column] };
  }
  return changes;
}

/** Granted permissions without repeats, in catalogue order. */
function catalogueOrder(granted: readonly AdminPermission[]): AdminPermission[] {
  return ADMIN_PERMISSIONS.filter((permission) => granted.includes(permission));
}
