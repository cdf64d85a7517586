import { raw, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { AdminRole } from '../../domain/permissions.js';
import { Admin } from '../entities/admin.js';
import type { TransactionClient } from '../orm.js';
import { lockAdmin, type AdminRow } from '../queries/admins.js';

/**
 * Writes of administrator accounts, through the transaction's EntityManager (CRUD of the
 * administration, db/entities/index.ts): callers run them in `db.transaction` with their audit row,
 * and get the account back as the administration reads it (ADMIN_COLUMNS).
 */

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
  // Within a savepoint, so that a taken address leaves the caller's transaction usable.
  await sql.query('savepoint insert_admin');
  try {
    await sql.em.flush();
  } catch (error) {
    // lower(email) is the table's one unique key besides the id made here.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    await sql.query('rollback to savepoint insert_admin');
    sql.em.clear();
    return null;
  }
  await sql.query('release savepoint insert_admin');
  return lockAdmin(sql, account.id);
}

export interface AdminChange {
  name: string;
  role: AdminRole;
  grantedPermissions: string[];
  status: 'ACTIVE' | 'DISABLED';
  totpRequired: boolean;
}

/** Applies the change to an account the caller has locked; updated_at moves even when nothing else does. */
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
