import type { PoolClient } from 'pg';
import { secondFactorMandatory, type AdminRole } from '../../domain/permissions.js';
import type { Database } from '../orm.js';
import { countedPage, tableListing } from './filtered-lists.js';

/**
 * Reads of administrator accounts and of the audit log. The lists take a transaction's client: the
 * administration records each read of them in the audit log in the same transaction
 * (db/writes/audit.ts `recordedTransaction`).
 */
type Sql = Pick<PoolClient, 'query'>;

/** An instant as ISO 8601 UTC text (the pg driver would hand it over as PostgreSQL's own text). */
export function isoUtc(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * An administrator account as pg returns ADMIN_COLUMNS: role and status are the values the
 * table's check constraints allow, instants are ISO 8601 UTC text (formatted in SQL).
 */
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
  const listing = tableListing(ADMIN_COLUMNS, 'admins', { where, orderBy: 'lower(email), id' });
  return countedPage<AdminRow>(sql, listing, params, filter);
}

/** An account as sign-in checks it: with its password hash and whether an authenticator is set up. */
export interface AdminCredentials {
  id: string;
  email: string;
  name: string;
  role: AdminRole;
  permissions: string[];
  passwordHash: string;
  status: 'ACTIVE' | 'DISABLED';
  totpRequired: boolean;
  totpEnabled: boolean;
}

interface CredentialsRow {
  id: string;
  email: string;
  name: string;
  role: AdminRole;
  permissions: string[];
  password_hash: string;
  status: 'ACTIVE' | 'DISABLED';
  totp_required: boolean;
  totp_enabled: boolean;
}

const toCredentials = (row: CredentialsRow): AdminCredentials => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  permissions: row.permissions,
  passwordHash: row.password_hash,
  status: row.status,
  totpRequired: row.totp_required,
  totpEnabled: row.totp_enabled,
});

/** The account with this e-mail address (any case), whatever its status; null when there is none. */
export async function adminCredentials(db: Database, email: string): Promise<AdminCredentials | null> {
  const [row] = await db.query<CredentialsRow>(
    `select id, email, name, role, permissions, password_hash, status, totp_required, totp_confirmed_at is not null as totp_enabled
     from admins where lower(email) = lower($1)`,
    [email],
  );
  return row ? toCredentials(row) : null;
}

/** The password hash of an account, whatever its status; null when no account has the id. */
export async function adminPasswordHash(db: Database, adminId: string): Promise<string | null> {
  const [row] = await db.query<{ password_hash: string }>('select password_hash from admins where id = $1', [
    adminId,
  ]);
  return row?.password_hash ?? null;
}

/** An administrator's second factor as their own status page shows it. */
export interface SecondFactorStatus {
  enabled: boolean;
  /** Whether the account must use one: its flag, or in production its permissions (secondFactorMandatory). */
  required: boolean;
  confirmedAt: string | null;
  enrolmentExpiresAt: string | null;
  recoveryCodesLeft: number;
}

interface SecondFactorStatusRow {
  role: AdminRole;
  permissions: string[];
  totp_required: boolean;
  /** ISO 8601 UTC (formatted in SQL), like the other instants here. */
  confirmed_at: string | null;
  enrolment_expires_at: string | null;
  recovery_codes_left: number;
}

const toSecondFactorStatus = (row: SecondFactorStatusRow, production: boolean): SecondFactorStatus => ({
  enabled: row.confirmed_at !== null,
  required: secondFactorMandatory(
    { role: row.role, grantedPermissions: row.permissions, totpRequired: row.totp_required },
    production,
  ),
  confirmedAt: row.confirmed_at,
  enrolmentExpiresAt: row.enrolment_expires_at,
  recoveryCodesLeft: row.recovery_codes_left,
});

/** The second factor of an account; a waiting secret counts only until it expires. */
export async function secondFactorStatus(
  db: Database,
  adminId: string,
  production: boolean,
): Promise<SecondFactorStatus> {
  const [row] = await db.query<SecondFactorStatusRow>(
    `select role, permissions, totp_required, ${isoUtc('totp_confirmed_at')} as confirmed_at,
            case when totp_pending_expires_at > now() then ${isoUtc('totp_pending_expires_at')} end as enrolment_expires_at,
            cardinality(recovery_code_hashes) as recovery_codes_left
     from admins where id = $1`,
    [adminId],
  );
  return toSecondFactorStatus(row!, production);
}

export interface AuditFilter {
  actorId?: string | undefined;
  actorKind?: string | undefined;
  action?: string | undefined;
  targetKind?: string | undefined;
  targetId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** A row's id: only the rows listed after it (older, newest first), whatever was written since. */
  before?: string | undefined;
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

const AUDIT_COLUMNS = `id::text as id, actor_kind, actor_id, action, target_kind, target_id, details, ip, request_id,
  ${isoUtc('created_at')} as created_at`;

/**
 * The rows after row $8 in the log's order (created_at desc, id desc): compared with that row's
 * own time in SQL, which keeps its microseconds. The bound on created_at alone lets an index on
 * (…, created_at desc) start there; the row comparison settles rows of the same instant.
 */
const AFTER_CURSOR = `($8::bigint is null or (
      audit_log.created_at <= (select c.created_at from audit_log c where c.id = $8)
      and (audit_log.created_at, audit_log.id) < (select c.created_at, c.id from audit_log c where c.id = $8)))`;

/**
 * Audit rows, newest first; `from` is inclusive and `to` exclusive; with `before`, the rows after
 * that one, and the total of those.
 */
export async function listAuditLog(
  sql: Sql,
  filter: AuditFilter,
): Promise<{ items: AuditRow[]; total: number }> {
  const where = `($1::uuid is null or actor_id = $1) and ($2::text is null or actor_kind = $2)
    and ($3::text is null or action = $3) and ($4::text is null or target_kind = $4)
    and ($5::text is null or target_id = $5) and ($6::timestamptz is null or created_at >= $6)
    and ($7::timestamptz is null or created_at < $7) and ${AFTER_CURSOR}`;
  const params = [
    filter.actorId ?? null,
    filter.actorKind ?? null,
    filter.action ?? null,
    filter.targetKind ?? null,
    filter.targetId ?? null,
    filter.from ?? null,
    filter.to ?? null,
    filter.before ?? null,
  ];
  const listing = tableListing(AUDIT_COLUMNS, 'audit_log', {
    where,
    orderBy: 'audit_log.created_at desc, audit_log.id desc',
  });
  return countedPage<AuditRow>(sql, listing, params, filter);
}

/** Whether the audit log has a row `id` (a paging cursor names one). */
export async function auditRowExists(sql: Sql, id: string): Promise<boolean> {
  const { rows } = await sql.query(`select 1 from audit_log where id = $1::bigint`, [id]);
  return rows.length > 0;
}
