import type { PoolClient } from 'pg';
import { ADMIN_COLUMNS, type AdminRow } from '../queries/admins.js';
import type { AdminRole } from '../../domain/permissions.js';

/** Writes of administrator accounts; callers run them in a transaction with their audit row. */
type Sql = Pick<PoolClient, 'query'>;

export interface NewAdmin {
  email: string;
  name: string;
  passwordHash: string;
  role: AdminRole;
  grantedPermissions: string[];
  totpRequired: boolean;
}

/** The new account, or null when the e-mail address is already taken. */
export async function insertAdmin(sql: Sql, admin: NewAdmin): Promise<AdminRow | null> {
  const { rows } = await sql.query<AdminRow>(
    `insert into admins (email, name, password_hash, role, permissions, totp_required)
     values ($1, $2, $3, $4, $5, $6)
     on conflict ((lower(email))) do nothing
     returning ${ADMIN_COLUMNS}`,
    [admin.email, admin.name, admin.passwordHash, admin.role, admin.grantedPermissions, admin.totpRequired],
  );
  return rows[0] ?? null;
}

export interface AdminChange {
  name: string;
  role: AdminRole;
  grantedPermissions: string[];
  status: 'ACTIVE' | 'DISABLED';
  totpRequired: boolean;
}

export async function updateAdmin(sql: Sql, adminId: string, change: AdminChange): Promise<AdminRow> {
  const { rows } = await sql.query<AdminRow>(
    `update admins set name = $2, role = $3, permissions = $4, status = $5, totp_required = $6, updated_at = now()
     where id = $1
     returning ${ADMIN_COLUMNS}`,
    [adminId, change.name, change.role, change.grantedPermissions, change.status, change.totpRequired],
  );
  return rows[0]!;
}
