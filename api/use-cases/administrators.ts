import type { Database } from '../../db/orm.js';
import {
  auditRowExists,
  listAdmins,
  listAuditLog,
  type AdminFilter,
  type AdminRow,
  type AuditFilter,
  type AuditRow,
} from '../../db/queries/admins.js';
import { camelFields } from '../../db/row-fields.js';
import { actingAs } from '../../db/writes/acting-admin.js';
import { changeAdmin, createAdmin, type AdminAnswer, type AdminChange } from '../../db/writes/admins.js';
import { recordAudit, type AuditActor } from '../../db/writes/audit.js';
import {
  ADMIN_PERMISSIONS,
  adminChangeRefusal,
  effectivePermissions,
  type AdminAccess,
  type AdminPermission,
  type AdminRole,
} from '../../domain/permissions.js';
import type { AdminPrincipal } from '../auth/admin-auth.js';
import { hashPassword } from '../auth/passwords.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { filterShown, readPageRecorded } from './recorded-reads.js';

export type { AuditActor };

/** Who acts, and with which permissions, as a change judges it. */
type ActingAdmin = Pick<AdminPrincipal, 'adminId' | 'permissions'>;

/**
 * The administrator team and the audit log, as an administrator with the permission sees and
 * shapes them. Each read and each change is one transaction with its audit row, so what commits
 * is always recorded; a change answers the account only to a holder of admins.view, recording
 * that read in its transaction.
 */

/** A page of administrators; the read is recorded (admins.list). */
export async function listAdministrators(
  db: Database,
  audit: AuditActor,
  filter: AdminFilter,
): Promise<{ items: AdminRow[]; total: number }> {
  const entry = { ...audit, action: 'admins.list', targetKind: 'admin' };
  const shown = filterShown(filter, ['status', 'role']);
  return readPageRecorded(db, entry, shown, filter, (client) => listAdmins(client, filter));
}

/**
 * A page of the audit log and the cursor of the next one: the id of its last row while rows are
 * left after it (with `before` set to it, the next page starts right after this one, however many
 * rows were written since), else null. Reading it is itself recorded (audit_log.read) with the
 * filter used; a cursor that names no row of the log is 400 VALIDATION_FAILED, recording nothing.
 */
export async function readAuditLog(
  db: Database,
  audit: AuditActor,
  filter: AuditFilter,
  shownFilter: Record<string, unknown>,
): Promise<{ items: AuditRow[]; total: number; nextBefore: string | null }> {
  const entry = { ...audit, action: 'audit_log.read', targetKind: 'audit_log' };
  return readPageRecorded(db, entry, shownFilter, filter, async (client) => {
    if (filter.before && !(await auditRowExists(client, filter.before))) {
      throw badRequest('VALIDATION_FAILED', 'before names no row of the audit log', {
        before: filter.before,
      });
    }
    const page = await listAuditLog(client, filter);
    const more = filter.offset + page.items.length < page.total;
    return { ...page, nextBefore: more ? (page.items.at(-1)?.id ?? null) : null };
  });
}

/**
 * What a change answers to one who may not read administrators (no admins.view): the account's id
 * and status and the fields the caller set, as the change left them; nothing else of the account.
 */
export interface AdministratorReceipt {
  id: string;
  status: 'ACTIVE' | 'DISABLED';
  email?: string;
  name?: string;
  role?: AdminRole;
  grantedPermissions?: string[];
  totpRequired?: boolean;
}

/** The account (to a holder of admins.view), or the receipt of the change. */
export type AdministratorAnswer = { record: AdminRow } | { receipt: AdministratorReceipt };

type SetField = 'email' | 'name' | 'role' | 'grantedPermissions' | 'totpRequired' | 'status';

/**
 * The answer of a change of an account, made in its transaction: to an actor holding admins.view
 * (as their account is now, after a change of their own), the account, that read recorded as
 * reads of administrators are (admins.read, on the account; also when the change changed nothing);
 * to anyone else the receipt with the `set` fields, and no read recorded.
 */
function answerOfChange(audit: AuditActor, set: readonly SetField[]): AdminAnswer<AdministratorAnswer> {
  return async (sql, account, actor) => {
    if (!effectivePermissions(actor.role, actor.permissions).includes('admins.view')) {
      return { receipt: receiptOf(account, set) };
    }
    await recordAudit(sql, { ...audit, action: 'admins.read', targetKind: 'admin', targetId: account.id });
    return { record: account };
  };
}

function receiptOf(account: AdminRow, set: readonly SetField[]): AdministratorReceipt {
  const fields: Omit<Required<AdministratorReceipt>, 'id'> = {
    email: account.email,
    name: account.name,
    role: account.role,
    grantedPermissions: account.permissions,
    totpRequired: account.totp_required,
    status: account.status,
  };
  return {
    id: account.id,
    status: account.status,
    ...Object.fromEntries(set.map((field) => [field, fields[field]])),
  };
}

export interface NewAdministrator {
  email: string;
  name: string;
  password: string;
  role: AdminRole;
  grantedPermissions: AdminPermission[];
  totpRequired: boolean;
}

/** Where the rules of a change depend on it: the second factor is mandatory by permission in production. */
export interface AdministrationPolicy {
  production: boolean;
}

/**
 * Creates an account the actor may hand out (admins.create); 409 ADMIN_EMAIL_TAKEN for a taken
 * address. Answers as answerOfChange does, the receipt with every field the caller set.
 */
export async function createAdministrator(
  db: Database,
  policy: AdministrationPolicy,
  actor: AdminPrincipal,
  audit: AuditActor,
  input: NewAdministrator,
): Promise<AdministratorAnswer> {
  const access: AdminAccess = {
    role: input.role,
    grantedPermissions: catalogueOrder(input.grantedPermissions),
    status: 'ACTIVE',
    totpRequired: input.totpRequired,
  };
  const refuseFor = (acting: ActingAdmin) => {
    const refusal = adminChangeRefusal({ ...policy, actor: acting, target: null, next: access });
    if (refusal) throw refusal;
  };
  // Checked before the slow password hash, and again inside the write with the actor as now.
  refuseFor(actor);
  const passwordHash = await hashPassword(input.password);
  const row = await createAdmin(
    db,
    actor.adminId,
    {
      ...access,
      email: input.email,
      name: input.name,
      passwordHash,
      grantedPermissions: [...access.grantedPermissions],
    },
    (account) => refuseFor(actingNow(account)),
    audit,
    answerOfChange(audit, ['email', 'name', 'role', 'grantedPermissions', 'totpRequired']),
  );
  if (!row) throw conflict('ADMIN_EMAIL_TAKEN', 'An administrator with this e-mail address exists');
  return row;
}

/** The fields an update may send; an omitted one keeps its value. */
export type AdministratorChange = Partial<Omit<AdminChange, 'grantedPermissions'>> & {
  grantedPermissions?: AdminPermission[] | undefined;
};

/**
 * Changes an account (admins.update, each changed field before and after); disabling it ends its
 * sessions at once. 404 ADMIN_NOT_FOUND; 409 LAST_PERMISSION_GRANTOR when one's own change drops a
 * permission no other ACTIVE account could give back. Answers as answerOfChange does, the receipt
 * with the fields the change sent (changed or not).
 */
export async function updateAdministrator(
  db: Database,
  policy: AdministrationPolicy,
  actor: AdminPrincipal,
  audit: AuditActor,
  adminId: string,
  change: AdministratorChange,
): Promise<AdministratorAnswer> {
  const sent = (Object.keys(change) as (keyof AdministratorChange)[]).filter(
    (field) => change[field] !== undefined,
  );
  const row = await changeAdmin(
    db,
    { actorId: actor.adminId, adminId },
    (current, account, others) => {
      const next = changed(current, change);
      const refusal = adminChangeRefusal({
        ...policy,
        actor: actingNow(account),
        target: { adminId: current.id, ...accessOf(current) },
        next,
        ...(others && { others: others.map((other) => effectivePermissions(other.role, other.permissions)) }),
      });
      if (refusal) throw refusal;
      return next;
    },
    audit,
    answerOfChange(audit, sent),
  );
  if (!row) throw notFound('ADMIN_NOT_FOUND', 'No administrator has this id');
  return row;
}

/**
 * The acting administrator as their account is inside the change, under its row lock: the request
 * was authenticated before, and a change of that account may have committed since. A disabled
 * account gets the 401 its next request would (its sessions have ended), a lost admins.manage the
 * 403 (db/writes/acting-admin.ts, as every administration write); otherwise the change is judged
 * with the permissions held now.
 */
function actingNow(account: AdminRow | null): ActingAdmin {
  return actingAs(account, 'admins.manage');
}

function accessOf(row: AdminRow): AdminAccess {
  return { ...camelFields(row, ['role', 'status', 'totp_required']), grantedPermissions: row.permissions };
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

/** Granted permissions without repeats, in catalogue order. */
function catalogueOrder(granted: readonly AdminPermission[]): AdminPermission[] {
  return ADMIN_PERMISSIONS.filter((permission) => granted.includes(permission));
}
