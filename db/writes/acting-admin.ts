import type { PoolClient } from 'pg';
import {
  adminSessionEnded,
  effectivePermissions,
  permissionDenied,
  type AdminPermission,
  type AdminRole,
} from '../../domain/permissions.js';
import type { AuditActor } from './audit.js';

/**
 * The administrator behind a write of the administration, as the write checks them again. The
 * request was let through (api/admin/admin-route.ts) before its transaction began; a change of the
 * account may have committed since. Each administration write reads the account first in its
 * transaction, under a share lock held to the end, before any other row it locks: a change of the
 * account (db/writes/admins.ts locks it for update) either committed before, and the write is
 * refused as the account's next request would be, or waits for the write to commit.
 */

/** Who acts in an administration write: who the audit rows name, and the permission the route asked. */
export type AdminActor = AuditActor & { actorId: string; permission: AdminPermission };

/** The part of an administrator account that says whether, and with what, it may still act. */
export interface ActorAccount {
  id: string;
  status: string;
  role: AdminRole;
  permissions: string[];
}

/** A disabled (or removed) account: the 401 INVALID_CREDENTIAL its next request would get. */
function stillActive<T extends Pick<ActorAccount, 'status'>>(account: T | null): asserts account is T {
  if (account?.status !== 'ACTIVE') throw adminSessionEnded();
}

/**
 * The account as it may act now, with the permissions it holds: a disabled (or removed) account
 * gets the 401 INVALID_CREDENTIAL its next request would (its sessions have ended), one that no
 * longer holds `permission` the 403 PERMISSION_DENIED naming it.
 */
export function actingAs(
  account: ActorAccount | null,
  permission: AdminPermission,
): { adminId: string; permissions: AdminPermission[] } {
  stillActive(account);
  const permissions = effectivePermissions(account.role, account.permissions);
  if (!permissions.includes(permission)) throw permissionDenied(permission);
  return { adminId: account.id, permissions };
}

/**
 * The first statement of an administration write: the acting account, read under a share lock
 * until the transaction ends, still allowed `actor.permission` (else the refusal of `actingAs`,
 * and the caller's transaction writes nothing); the permissions it holds now. `others`, administrator accounts the write will
 * lock for share too (an assignee), are locked with it in id order, as a change of two accounts
 * locks them (db/writes/admins.ts): two administrators' writes never wait for each other in a ring.
 */
export async function lockActingAdmin(
  sql: Pick<PoolClient, 'query'>,
  actor: Pick<AdminActor, 'actorId' | 'permission'>,
  others: readonly string[] = [],
): Promise<AdminPermission[]> {
  const { rows } = await sql.query<ActorAccount>(
    `select id, status, role, permissions from admins where id = any($1::uuid[]) order by id for share`,
    [[actor.actorId, ...others]],
  );
  return actingAs(rows.find((row) => row.id === actor.actorId) ?? null, actor.permission).permissions;
}

/**
 * The first statement of an administrator's write of their own account (their second factor): the
 * account row locked for update until the transaction ends (the write changes that row, and two
 * such writes take turns on it), still ACTIVE, and the request's session still live. A disable
 * committed meanwhile (it ends every session under the same row lock), or the session ended since
 * the request found it (signed out, ended by an authenticator change elsewhere), throws the 401
 * INVALID_CREDENTIAL of `actingAs`, and the caller's transaction writes nothing.
 */
export async function lockOwnAccount(
  sql: Pick<PoolClient, 'query'>,
  session: { adminId: string; sessionId: string },
): Promise<void> {
  const { rows } = await sql.query<Pick<ActorAccount, 'status'>>(
    'select status from admins where id = $1 for update',
    [session.adminId],
  );
  stillActive(rows[0] ?? null);
  // A statement of its own, after the lock: it sees what a change that held the row committed.
  const live = await sql.query(
    'select 1 from admin_sessions where id = $1 and admin_id = $2 and revoked_at is null',
    [session.sessionId, session.adminId],
  );
  if (live.rows.length === 0) throw adminSessionEnded();
}
