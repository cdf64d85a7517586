import { raw } from '@mikro-orm/postgresql';
import {
  requireIncidentTransition,
  type IncidentSeverity,
  type OpenIncidentStatus,
} from '../../domain/incidents.js';
import { Incident } from '../entities/admin-console.js';
import type { Database } from '../orm.js';
import { incident, type IncidentRow } from '../queries/platform-state.js';
import { camelFields } from '../row-fields.js';
import { lockActingAdmin, type AdminActor } from './acting-admin.js';
import { recordAct } from './audit.js';

/**
 * Incidents: opened, updated as the team learns more, resolved (domain/incidents.ts holds the
 * states). Each change is one transaction through the transaction's EntityManager with its audit
 * row (incidents.create, incidents.update, incidents.resolve), the acting administrator checked
 * again first (db/writes/acting-admin.ts).
 */

export interface NewIncident {
  title: string;
  description: string;
  severity: IncidentSeverity;
  status: OpenIncidentStatus;
  startedAt?: Date | undefined;
  adminId: string;
}

export async function openIncident(
  db: Database,
  input: NewIncident,
  audit: AdminActor,
): Promise<IncidentRow> {
  return db.transaction(async (sql) => {
    await lockActingAdmin(sql, audit);
    const created = sql.em.create(Incident, {
      title: input.title,
      description: input.description,
      severity: input.severity,
      status: input.status,
      createdBy: input.adminId,
      ...(input.startedAt ? { startedAt: input.startedAt } : {}),
    });
    await sql.em.flush();
    const row = (await incident(sql, created.id))!;
    const details = camelFields(row, ['title', 'severity', 'status', 'started_at']);
    await recordAct(sql, audit, 'incidents.create', { kind: 'incident', id: row.id }, details);
    return row;
  });
}

export interface IncidentChange {
  title?: string | undefined;
  description?: string | undefined;
  severity?: IncidentSeverity | undefined;
  status?: OpenIncidentStatus | undefined;
}

type Facts = Pick<IncidentRow, 'title' | 'description' | 'severity' | 'status' | 'resolution'>;
const facts = (row: Facts): Facts => ({
  title: row.title,
  description: row.description,
  severity: row.severity,
  status: row.status,
  resolution: row.resolution,
});

/** Whether `next` is the incident as it is stored: the same title, description, severity and status. */
const sameIncident = (current: IncidentRow, next: Omit<Facts, 'resolution'>) =>
  current.title === next.title &&
  current.description === next.description &&
  current.severity === next.severity &&
  current.status === next.status;

/**
 * Changes an open incident, or resolves it (`resolution` given: status RESOLVED, resolved now, or at
 * its start if that is later). A resolved incident refuses both (409 INCIDENT_RESOLVED). null when
 * there is no such incident. A change that leaves the incident as it is writes nothing and answers
 * the incident as it is.
 */
export async function changeIncident(
  db: Database,
  id: string,
  change: IncidentChange | { resolution: string },
  audit: AdminActor,
): Promise<IncidentRow | null> {
  return db.transaction(async (sql) => {
    await lockActingAdmin(sql, audit);
    const current = await incident(sql, id, true);
    if (!current) return null;
    const resolving = 'resolution' in change;
    const nextStatus = resolving ? 'RESOLVED' : (change.status ?? current.status);
    requireIncidentTransition(current.status, nextStatus);
    const entity = await sql.em.findOneOrFail(Incident, id);
    if (resolving) {
      sql.em.assign(entity, {
        status: 'RESOLVED',
        resolution: change.resolution,
        // startedAt may be up to a minute after our now (the opener's clock ahead of ours): an incident
        // resolved within that minute is resolved when it started, never before it.
        resolvedAt: raw<Date>('greatest(now(), started_at)'),
      });
    } else {
      const next = {
        title: change.title ?? current.title,
        description: change.description ?? current.description,
        severity: change.severity ?? current.severity,
        status: nextStatus,
      };
      // A change that changes nothing writes nothing (no incidents.update), as flags and windows do.
      if (sameIncident(current, next)) return current;
      sql.em.assign(entity, next);
    }
    await sql.em.flush();
    const after = (await incident(sql, id))!;
    const action = resolving ? 'incidents.resolve' : 'incidents.update';
    const details = { before: facts(current), after: facts(after) };
    await recordAct(sql, audit, action, { kind: 'incident', id }, details);
    return after;
  });
}
