import type { Database } from '../../db/orm.js';
import {
  listIncidents,
  listMaintenanceWindows,
  type IncidentFilter,
  type MaintenanceRow,
} from '../../db/queries/platform-state.js';
import type { AuditActor } from '../../db/writes/audit.js';
import type { MaintenanceState } from '../../domain/maintenance.js';
import { filterShown, readPageRecorded } from './recorded-reads.js';

/** The administration's reads of incidents and maintenance windows, each recorded with its filter. */

/** A page of incidents (incidents.list). */
export function readIncidents(db: Database, audit: AuditActor, filter: IncidentFilter) {
  const entry = { ...audit, action: 'incidents.list', targetKind: 'incident' };
  const shown = filterShown(filter, ['status', 'open', 'severity']);
  return readPageRecorded(db, entry, shown, filter, (sql) => listIncidents(sql, filter));
}

/** A page of maintenance windows and the one in force, if any (maintenance.list). */
export function readMaintenance(
  db: Database,
  audit: AuditActor,
  filter: { state?: MaintenanceState | undefined; limit: number; offset: number },
): Promise<{ items: MaintenanceRow[]; total: number; active: MaintenanceRow | null }> {
  const entry = { ...audit, action: 'maintenance.list', targetKind: 'maintenance_window' };
  return readPageRecorded(db, entry, filterShown(filter, ['state']), filter, async (sql) => {
    const found = await listMaintenanceWindows(sql, filter);
    const [active] = (await listMaintenanceWindows(sql, { state: 'ACTIVE', limit: 1, offset: 0 })).items;
    return { ...found, active: active ?? null };
  });
}
