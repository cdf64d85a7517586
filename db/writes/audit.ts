import type { PoolClient } from 'pg';
import type { Database, TransactionClient } from '../orm.js';
import { insertRow } from './insert-row.js';

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

/** Who and where, for an audit row: the actor and the request. */
export type AuditActor = Pick<AuditEntry, 'actorKind' | 'actorId' | 'ip' | 'requestId'>;

/** Who, where and about which record: an audit row but for what happened. */
export type AuditSubject = Omit<AuditEntry, 'action' | 'details'>;

/** Where a request came from, for the audit log. */
export interface RequestOrigin {
  ip: string;
  requestId: string;
}

/** An audit row an administrator writes about their own account (sign-in, second factor). */
export function ownAccountAudit(adminId: string, origin: RequestOrigin): AuditSubject {
  return {
    actorKind: 'ADMIN',
    actorId: adminId,
    ip: origin.ip,
    requestId: origin.requestId,
    targetKind: 'admin',
    targetId: adminId,
  };
}

export async function recordAudit(q: Pick<PoolClient, 'query'>, entry: AuditEntry): Promise<void> {
  await insertRow(q, 'audit_log', {
    actor_kind: entry.actorKind,
    actor_id: entry.actorId,
    action: entry.action,
    target_kind: entry.targetKind ?? null,
    target_id: entry.targetId ?? null,
    details: JSON.stringify(entry.details ?? {}),
    ip: entry.ip ?? null,
    request_id: entry.requestId ?? null,
  });
}

/**
 * One transaction of `work` and its audit row, `entry` describing what the work read or did: a
 * read of recorded data (administrators, the audit log) or a change, never one without the other.
 */
export async function recordedTransaction<T>(
  db: Database,
  work: (client: TransactionClient) => Promise<T>,
  entry: (outcome: T) => AuditEntry,
): Promise<T> {
  return db.transaction(async (client) => {
    const outcome = await work(client);
    await recordAudit(client, entry(outcome));
    return outcome;
  });
}

/** A company's staff member and the request they acted from (none for a step of a process). */
export interface StaffActor {
  staffUserId: string;
  ip?: string | null;
  requestId?: string | null;
}

/** The same, with the company whose record they changed. */
export interface CompanyStaffActor extends StaffActor {
  companyId: string;
}

/** The record an act was on. */
export interface AuditTarget {
  kind: string;
  id: string;
}

/**
 * An audit writer for one kind of actor: the row of `actor`'s `action` on `target`, with `details`.
 * The writers below all take these arguments; they differ in the actor and the facts they add.
 */
export type ActRecorder<Actor> = (
  q: Pick<PoolClient, 'query'>,
  actor: Actor,
  action: string,
  target: AuditTarget,
  details: Record<string, unknown>,
) => Promise<void>;

/** The audit row of an actor's act on one record (an administrator's: the route's AuditActor). */
export const recordAct: ActRecorder<AuditActor> = (q, actor, action, target, details) =>
  recordAudit(q, { ...actor, action, targetKind: target.kind, targetId: target.id, details });

/** A company user as the actor of an audit row: STAFF in the dashboard, DRIVER in the driver app. */
const memberActor = (actorKind: 'STAFF' | 'DRIVER', actor: StaffActor): AuditActor => ({
  actorKind,
  actorId: actor.staffUserId,
  ip: actor.ip,
  requestId: actor.requestId,
});

/** The audit row of a staff member's act on one record. */
export const recordStaffAct: ActRecorder<StaffActor> = (q, actor, action, target, details) =>
  recordAct(q, memberActor('STAFF', actor), action, target, details);

/**
 * The audit row of a staff member's change to a record of their company: the company is the
 * first fact of the details, before the change's own.
 */
export const recordStaffAudit: ActRecorder<CompanyStaffActor> = (q, actor, action, target, details) =>
  recordStaffAct(q, actor, action, target, { companyId: actor.companyId, ...details });

/**
 * The audit row of a driver's act in the driver app (a cash collection): filed under actorKind
 * DRIVER, as the driver's sign-in and sign-out are (DRIVER_SIGNED_IN/OUT), so the log's filter
 * actor + actorKind=DRIVER finds all they did; the company first in the details, as for staff.
 */
export const recordDriverAudit: ActRecorder<CompanyStaffActor> = (q, actor, action, target, details) =>
  recordAct(q, memberActor('DRIVER', actor), action, target, { companyId: actor.companyId, ...details });
