import { raw } from '@mikro-orm/postgresql';
import type { PoolClient } from 'pg';
import type { AdminRole } from '../../domain/permissions.js';
import { Admin } from '../entities/admin.js';
import type { Database, TransactionClient } from '../orm.js';
import { ADMIN_COLUMNS, type AdminRow } from '../queries/admins.js';
import { rowById } from '../sql-runner.js';
import { revokeOtherAdminSessions } from './admin-sessions.js';
import { recordAct, type AuditActor } from './audit.js';
import { flushUnlessTaken } from './flush-unique.js';
import { canManageTickets, unassignOpenTickets } from './support-tickets.js';

/**
 * Writes of administrator accounts, through the transaction's EntityManager (CRUD of the
 * administration, db/entities/index.ts). `createAdmin` and `changeAdmin` are one transaction each
 * with their audit row; callers get what their AdminAnswer makes, in the same transaction, of the
 * account as the administration reads it (ADMIN_COLUMNS).
 */

/**
 * What a write of an account answers, made in its transaction after the write: given the account
 * as it is now and the acting administrator's (as they are now, under their row lock), it may write
 * an audit row of its own (a read) beside the write's.
 */
export type AdminAnswer<T> = (sql: TransactionClient, account: AdminRow, actor: AdminRow) => Promise<T>;

/** The account, locked until the transaction ends (it is about to change). */
export function lockAdmin(sql: Pick<PoolClient, 'query'>, adminId: string): Promise<AdminRow | null> {
  return rowById<AdminRow>(sql, ADMIN_COLUMNS, 'admins', adminId, true);
}

export interface NewAdmin {
  email: string;
  name: string;
  passwordHash: string;
  role: AdminRole;
  grantedPermissions: string[];
  totpRequired: boolean;
}

/** The new account, or null when the e-mail address is already taken. */
export async function insertAdmin(sql: TransactionClient, admin: NewAdmin): Promise<AdminRow | null> {
  const account = sql.em.create(Admin, {
    email: admin.email,
    name: admin.name,
    passwordHash: admin.passwordHash,
    role: admin.role,
    permissions: admin.grantedPermissions,
    totpRequired: admin.totpRequired,
  });
  // lower(email) is the table's one unique key besides the id made here; a taken address leaves
  // the caller's transaction usable.
  if (!(await flushUnlessTaken(sql))) return null;
  return lockAdmin(sql, account.id);
}

export interface AdminChange {
  name: string;
  role: AdminRole;
  grantedPermissions: string[];
  status: 'ACTIVE' | 'DISABLED';
  totpRequired: boolean;
}

/** Applies the change to an account the caller has locked; updated_at moves. */
export async function updateAdmin(
  sql: TransactionClient,
  adminId: string,
  change: AdminChange,
): Promise<AdminRow> {
  const account = await sql.em.findOneOrFail(Admin, adminId);
  sql.em.assign(account, {
    name: change.name,
    role: change.role,
    permissions: change.grantedPermissions,
    status: change.status,
    totpRequired: change.totpRequired,
    updatedAt: raw<Date>('now()'),
  });
  await sql.em.flush();
  const row = await lockAdmin(sql, adminId);
  if (!row) throw new Error(`administrator ${adminId} vanished inside its own update`);
  return row;
}

/**
 * Creates an account and records it (admins.create), answering what `answer` makes of it; null
 * when the e-mail address is taken. `vouch` sees the acting administrator's account as it is now,
 * under its row lock (null when it is gone), and throws a refusal when they may no longer create it.
 */
export async function createAdmin<T>(
  db: Database,
  actorId: string,
  admin: NewAdmin,
  vouch: (actor: AdminRow | null) => void,
  audit: AuditActor,
  answer: AdminAnswer<T>,
): Promise<T | null> {
  return db.transaction(async (client) => {
    const actor = await lockAdmin(client, actorId);
    vouch(actor);
    const row = await insertAdmin(client, admin);
    if (!row) return null;
    const target = { kind: 'admin', id: row.id };
    await recordAct(client, audit, 'admins.create', target, {
      email: row.email,
      role: row.role,
      grantedPermissions: row.permissions,
      totpRequired: row.totp_required,
    });
    return answer(client, row, vouched(actor));
  });
}

/** The acting administrator's account, which `vouch` or `decide` let act: there is one. */
function vouched(actor: AdminRow | null): AdminRow {
  if (!actor) throw new Error('an administrator account acted without being there');
  return actor;
}

/**
 * The accounts of the acting administrator and of the one about to change, locked until the
 * transaction ends and read as they are now (null when no account has the id). Locked in id
 * order: two administrators changing each other's accounts at once queue instead of deadlocking,
 * and the second sees what the first did to its actor.
 */
async function lockActorAndTarget(
  sql: Pick<PoolClient, 'query'>,
  actorId: string,
  adminId: string,
): Promise<{ actor: AdminRow | null; target: AdminRow | null }> {
  const { rows } = await sql.query<AdminRow>(
    `select ${ADMIN_COLUMNS} from admins where id = any($1::uuid[]) order by id for update`,
    [[actorId, adminId]],
  );
  const byId = (id: string) => rows.find((row) => row.id === id) ?? null;
  return { actor: byId(actorId), target: byId(adminId) };
}

/**
 * The other ACTIVE accounts, for a change of one's own account that must leave someone able to give
 * back what it drops. Changes of one's own account take OWN_CHANGE_LOCK first, so they run one at a
 * time: the last two who could give a permission back, dropping it at once, would each still see
 * the other. A change of another account needs no such lock: its actor holds every permission the
 * account held, and keeps them.
 */
async function otherActiveAdmins(sql: Pick<PoolClient, 'query'>, adminId: string): Promise<AdminRow[]> {
  const { rows } = await sql.query<AdminRow>(
    `select ${ADMIN_COLUMNS} from admins where status = 'ACTIVE' and id <> $1`,
    [adminId],
  );
  return rows;
}

const OWN_CHANGE_LOCK = `select pg_advisory_xact_lock(hashtext('admins.own_account_change'))`;

/**
 * Changes an account under its row lock and records each changed field, before and after
 * (admins.update); disabling it ends its sessions at once, and an account left unable to act on
 * tickets (disabled, or without tickets.manage) has its open tickets unassigned (unassignOpenTickets,
 * their ids in the audit row's ticketsUnassigned). `decide` sees the account and the acting
 * administrator's (both locked, as they are now; the actor null when gone) and, when the actor
 * changes their own account, the other ACTIVE accounts (otherActiveAdmins; else null), and answers
 * the change, or throws a refusal that leaves everything as it was (so the actor's account is there
 * and may act). A change that changes nothing writes nothing. Either way the answer is what
 * `answer` makes of the account as it is after, and of the actor's (the same one when it is their
 * own). Null when no account has the id.
 */
export async function changeAdmin<T>(
  db: Database,
  accounts: { actorId: string; adminId: string },
  decide: (current: AdminRow, actor: AdminRow | null, others: AdminRow[] | null) => AdminChange,
  audit: AuditActor,
  answer: AdminAnswer<T>,
): Promise<T | null> {
  return db.transaction(async (client) => {
    const own = accounts.actorId === accounts.adminId;
    if (own) await client.query(OWN_CHANGE_LOCK);
    const { actor, target: current } = await lockActorAndTarget(client, accounts.actorId, accounts.adminId);
    if (!current) return null;
    const others = own ? await otherActiveAdmins(client, current.id) : null;
    const change = decide(current, actor, others);
    const row = await applyChange(client, current, change, audit);
    return answer(client, row, own ? row : vouched(actor));
  });
}

/**
 * Writes `change` of the locked account with its admins.update row (ending its sessions when it is
 * disabled, unassigning its tickets when it can no longer hold them); the account after. A change
 * that changes nothing writes nothing and gives the account as it is.
 */
async function applyChange(
  client: TransactionClient,
  current: AdminRow,
  change: AdminChange,
  audit: AuditActor,
): Promise<AdminRow> {
  if (Object.keys(differences(current, rowAfter(current, change))).length === 0) return current;
  const row = await updateAdmin(client, current.id, change);
  if (current.status === 'ACTIVE' && row.status === 'DISABLED')
    await revokeOtherAdminSessions(client, row.id);
  const unassigned = await releaseTickets(client, row, audit);
  const details = {
    changes: differences(current, row),
    ...(unassigned.length && { ticketsUnassigned: unassigned }),
  };
  await recordAct(client, audit, 'admins.update', { kind: 'admin', id: row.id }, details);
  return row;
}

/** The account as `change` would leave it, for comparing before writing. */
function rowAfter(current: AdminRow, change: AdminChange): AdminRow {
  return {
    ...current,
    name: change.name,
    role: change.role,
    permissions: change.grantedPermissions,
    status: change.status,
    totp_required: change.totpRequired,
  };
}

/** The open tickets of an account that can no longer act on them, unassigned; their ids. */
function releaseTickets(client: TransactionClient, row: AdminRow, audit: AuditActor): Promise<string[]> {
  if (canManageTickets(row)) return Promise.resolve([]);
  const reason = row.status === 'ACTIVE' ? 'ASSIGNEE_LOST_PERMISSION' : 'ASSIGNEE_DISABLED';
  return unassignOpenTickets(client, row.id, reason, audit);
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
