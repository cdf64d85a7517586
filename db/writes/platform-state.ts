import { raw } from '@mikro-orm/postgresql';
import { checkWindowTimes, requireChangeableWindow } from '../../domain/maintenance.js';
import { FeatureFlag, MaintenanceWindowEntity } from '../entities/admin-console.js';
import type { Database, TransactionClient } from '../orm.js';
import {
  maintenanceWindow,
  storedFeatureFlags,
  type MaintenanceRow,
  type PlatformStateName,
  type StoredFlagRow,
} from '../queries/platform-state.js';
import { lockActingAdmin, type AdminActor } from './acting-admin.js';
import { recordAct } from './audit.js';

/**
 * Changes of the platform state every API process caches (feature flags, maintenance windows):
 * each is one transaction that checks the acting administrator again (db/writes/acting-admin.ts),
 * saves the change through the transaction's EntityManager, bumps the state's change counter (the
 * caches poll it) and writes the audit row.
 */

/** Tells every process's cache that `name` changed; committed with the change or not at all. */
export async function bumpVersion(sql: TransactionClient, name: PlatformStateName): Promise<void> {
  await sql.query(`update platform_state_versions set version = version + 1 where name = $1`, [name]);
}

export interface FlagChange {
  key: string;
  enabled: boolean;
  reason: string;
  adminId: string;
  /** The value before any operator set one. */
  defaultEnabled: boolean;
}

/**
 * Sets a flag (feature_flags.update, with the value before and after and the reason) and answers
 * it as this change left it, read inside the transaction: a change committed right after is not
 * this one's answer. Setting the value the flag has writes nothing and answers the flag as it is
 * (undefined while no operator has set it).
 */
export async function setFeatureFlag(
  db: Database,
  change: FlagChange,
  audit: AdminActor,
): Promise<StoredFlagRow | undefined> {
  return db.transaction(async (sql) => {
    await lockActingAdmin(sql, audit);
    // The version row next: flag changes run one after the other, so a flag's first change (no
    // row yet to lock) and any other each read the value the one before left.
    await sql.query(`select 1 from platform_state_versions where name = 'feature_flags' for update`);
    const stored = async () => (await storedFeatureFlags(sql)).find((row) => row.key === change.key);
    const current = await stored();
    const before = current?.enabled ?? change.defaultEnabled;
    if (before === change.enabled) return current;
    await sql.em.upsert(FeatureFlag, {
      key: change.key,
      enabled: change.enabled,
      updatedBy: change.adminId,
      updatedAt: raw<Date>('now()'),
    });
    await bumpVersion(sql, 'feature_flags');
    const after = await stored();
    const details = { reason: change.reason, before, after: change.enabled };
    await recordAct(sql, audit, 'feature_flags.update', { kind: 'feature_flag', id: change.key }, details);
    return after;
  });
}

export interface NewWindow {
  message: string;
  startsAt: Date;
  endsAt: Date;
  adminId: string;
}

const windowFacts = (row: Pick<MaintenanceRow, 'message' | 'starts_at' | 'ends_at'>) => ({
  message: row.message,
  startsAt: row.starts_at,
  endsAt: row.ends_at,
});

/** Schedules a window (maintenance.create); the times are checked against the database clock. */
export async function scheduleMaintenance(
  db: Database,
  input: NewWindow,
  audit: AdminActor,
): Promise<MaintenanceRow> {
  return db.transaction(async (sql) => {
    await lockActingAdmin(sql, audit);
    checkWindowTimes(input.startsAt, input.endsAt, await databaseNow(sql));
    const window = sql.em.create(MaintenanceWindowEntity, {
      message: input.message,
      startsAt: input.startsAt,
      endsAt: input.endsAt,
      createdBy: input.adminId,
    });
    await sql.em.flush();
    await bumpVersion(sql, 'maintenance');
    const row = (await maintenanceWindow(sql, window.id))!;
    const target = { kind: 'maintenance_window', id: row.id };
    await recordAct(sql, audit, 'maintenance.create', target, windowFacts(row));
    return row;
  });
}

export interface WindowChange {
  message?: string | undefined;
  startsAt?: Date | undefined;
  endsAt?: Date | undefined;
}

/**
 * Changes a window's message or times (maintenance.update, before and after), or cancels it
 * (maintenance.cancel; an active window ends at once). null when there is no such window. A change
 * that leaves the window as it is writes nothing and answers the window as it is.
 */
export async function changeMaintenance(
  db: Database,
  id: string,
  change: WindowChange | 'CANCEL',
  audit: AdminActor & { reason?: string | undefined },
): Promise<MaintenanceRow | null> {
  return db.transaction(async (sql) => {
    await lockActingAdmin(sql, audit);
    const current = await maintenanceWindow(sql, id, true);
    if (!current) return null;
    const cancel = change === 'CANCEL';
    const startsAt = cancel ? undefined : change.startsAt;
    // Sending the stored start back (a form that resends the whole window) does not move it.
    const movesStart = startsAt !== undefined && startsAt.getTime() !== new Date(current.starts_at).getTime();
    requireChangeableWindow(current.state, movesStart);
    const window = await sql.em.findOneOrFail(MaintenanceWindowEntity, id);
    if (cancel) {
      sql.em.assign(window, { cancelledAt: raw<Date>('now()') });
    } else {
      const next = {
        startsAt: startsAt ?? new Date(current.starts_at),
        endsAt: change.endsAt ?? new Date(current.ends_at),
        message: change.message ?? current.message,
      };
      checkWindowTimes(next.startsAt, next.endsAt, await databaseNow(sql));
      // A change that changes nothing writes nothing (no maintenance.update, no cache bump), as flags do.
      if (sameWindow(current, next)) return current;
      sql.em.assign(window, next);
    }
    await sql.em.flush();
    await bumpVersion(sql, 'maintenance');
    const after = (await maintenanceWindow(sql, id))!;
    const { reason, ...actor } = audit;
    const details = cancel
      ? { ...windowFacts(current), stateBefore: current.state, reason: reason ?? null }
      : { before: windowFacts(current), after: windowFacts(after) };
    const action = cancel ? 'maintenance.cancel' : 'maintenance.update';
    await recordAct(sql, actor, action, { kind: 'maintenance_window', id }, details);
    return after;
  });
}

/** Whether `next` is the window as it is stored: the same message, start and end. */
const sameWindow = (current: MaintenanceRow, next: { message: string; startsAt: Date; endsAt: Date }) =>
  current.message === next.message &&
  new Date(current.starts_at).getTime() === next.startsAt.getTime() &&
  new Date(current.ends_at).getTime() === next.endsAt.getTime();

async function databaseNow(sql: TransactionClient): Promise<Date> {
  const { rows } = await sql.query<{ now: string }>(`select now() as now`);
  return new Date(rows[0]!.now);
}
