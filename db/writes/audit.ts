import type { PoolClient } from 'pg';

/**
 * The audit log: who did what to which record, when. Callers write the row with the same client
 * (transaction) as the change or read it records, so a change that commits is always recorded and
 * a recorded change always committed.
 */
export type AuditActorKind = 'ADMIN' | 'STAFF' | 'TRAVELLER' | 'SYSTEM' | 'DRIVER';

export interface AuditEntry {
  actorKind: AuditActorKind;
  actorId: string | null;
  /** Dotted name of what happened, such as admins.update or audit_log.read. */
  action: string;
  targetKind?: string | null;
  targetId?: string | null;
  /** Facts about the action (changed fields, filters used); never secrets. */
  details?: Record<string, unknown>;
  ip?: string | null;
  requestId?: string | null;
}

export async function recordAudit(q: Pick<PoolClient, 'query'>, entry: AuditEntry): Promise<void> {
  await q.query(
    `insert into audit_log (actor_kind, actor_id, action, target_kind, target_id, details, ip, request_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      entry.actorKind,
      entry.actorId,
      entry.action,
      entry.targetKind ?? null,
      entry.targetId ?? null,
      JSON.stringify(entry.details ?? {}),
      entry.ip ?? null,
      entry.requestId ?? null,
    ],
  );
}
