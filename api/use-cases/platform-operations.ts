import type { Database, TransactionClient } from '../../db/orm.js';
import {
  listIncidents,
  listMaintenanceWindows,
  maintenanceInForce,
  type IncidentFilter,
  type MaintenanceRow,
} from '../../db/queries/platform-state.js';
import type { AuditActor } from '../../db/writes/audit.js';
import { activeWindow, type MaintenanceState } from '../../domain/maintenance.js';
import { filterShown, readPageRecorded } from './recorded-reads.js';

/** The administration's reads of incidents and maintenance windows, each recorded with its filter. */

/** A page of incidents (incidents.list). */
export function readIncidents(db: Database, audit: AuditActor, filter: IncidentFilter) {
  const entry = { ...audit, action: 'incidents.list', targetKind: 'incident' };
  const shown = filterShown(filter, ['status', 'open', 'severity']);
  return readPageRecorded(db, entry, shown, filter, (sql) => listIncidents(sql, filter));
}

/**
 * The window the gate enforces now: of the windows in force, the one domain/maintenance.ts
 * activeWindow picks (the one ending last when several overlap), as api/platform/state.ts does.
 */
async function enforcedWindow(sql: TransactionClient): Promise<MaintenanceRow | null> {
  const { at, windows } = await maintenanceInForce(sql);
  const times = windows.map((row) => ({
    id: row.id,
    message: row.message,
    startsAt: new Date(row.starts_at),
    endsAt: new Date(row.ends_at),
  }));
  const enforced = activeWindow(times, at);
  return windows.find((row) => row.id === enforced?.id) ?? null;
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
    return { ...found, active: await enforcedWindow(sql) };
  });
}
