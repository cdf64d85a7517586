import type { PoolClient } from 'pg';
import type { AdminRole } from '../../domain/permissions.js';

/**
 * Reads of administrator accounts and of the audit log. They take a transaction's client: the
 * administration API records each read of these in the audit log in the same transaction.
 */
type Sql = Pick<PoolClient, 'query'>;

/** An instant as ISO 8601 UTC text (the pg driver would hand it over as PostgreSQL's own text). */
export function isoUtc(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

export interface AdminRow {
  id: string;
  email: string;
  name: string;
  role: AdminRole;
  permissions: string[];
  status: 'ACTIVE' | 'DISABLED';
  totp_required: boolean;
  totp_enabled: boolean;
  created_at: string;
  updated_at: string;
}

export const ADMIN_COLUMNS = `id, email, name, role, permissions, status, totp_required,
  totp_confirmed_at is not null as totp_enabled, ${isoUtc('created_at')} as created_at, ${isoUtc('updated_at')} as updated_at`;

export interface AdminFilter {
  status?: 'ACTIVE' | 'DISABLED' | undefined;
  role?: AdminRole | undefined;
  limit: number;
  offset: number;
}

export async function listAdmins(
  sql: Sql,
  filter: AdminFilter,
): Promise<{ items: AdminRow[]; total: number }> {
  const where = `($1::text is null or status = $1) and ($2::text is null or role = $2)`;
  const params = [filter.status ?? null, filter.role ?? null];
  const { rows } = await sql.query<AdminRow>(
    `select ${ADMIN_COLUMNS} from admins where ${where} order by lower(email), id limit $3 offset $4`,
    [...params, filter.limit, filter.offset],
  );
  const { rows: counted } = await sql.query<{ total: number }>(
    `select count(*)::int as total from admins where ${where}`,
    params,
  );
  return { items: rows, total: counted[0]!.total };
}

/** The account, locked until the transaction ends (it is about to change). */
export async function lockAdmin(sql: Sql, adminId: string): Promise<AdminRow | null> {
  const { rows } = await sql.query<AdminRow>(`select ${ADMIN_COLUMNS} from admins where id = $1 for update`, [
    adminId,
  ]);
  return rows[0] ?? null;
}

export interface AuditFilter {
  actorId?: string | undefined;
  actorKind?: string | undefined;
  action?: string | undefined;
  targetKind?: string | undefined;
  targetId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  offset: number;
}

export interface AuditRow {
  id: string;
  actor_kind: string;
  actor_id: string | null;
  action: string;
  target_kind: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  request_id: string | null;
  created_at: string;
}

/** Audit rows, newest first; `from` is inclusive and `to` exclusive. */
export async function listAuditLog(
  sql: Sql,
  filter: AuditFilter,
): Promise<{ items: AuditRow[]; total: number }> {
  const where = `($1::uuid is null or actor_id = $1) and ($2::text is null or actor_kind = $2)
    and ($3::text is null or action = $3) and ($4::text is null or target_kind = $4)
    and ($5::text is null or target_id = $5) and ($6::timestamptz is null or created_at >= $6)
    and ($7::timestamptz is null or created_at < $7)`;
  const params = [
    filter.actorId ?? null,
    filter.actorKind ?? null,
    filter.action ?? null,
    filter.targetKind ?? null,
    filter.targetId ?? null,
    filter.from ?? null,
    filter.to ?? null,
  ];
  const { rows } = await sql.query<AuditRow>(
    `select id::text as id, actor_kind, actor_id, action, target_kind, target_id, details, ip, request_id,
            ${isoUtc('created_at')} as created_at
     from audit_log where ${where} order by created_at desc, id desc limit $8 offset $9`,
    [...params, filter.limit, filter.offset],
  );
  const { rows: counted } = await sql.query<{ total: number }>(
    `select count(*)::int as total from audit_log where ${where}`,
    params,
  );
  return { items: rows, total: counted[0]!.total };
}
