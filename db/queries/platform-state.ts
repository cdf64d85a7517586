import type { PoolClient } from 'pg';
import type { IncidentSeverity, IncidentStatus } from '../../domain/incidents.js';
import type { MaintenanceState, MaintenanceWindow } from '../../domain/maintenance.js';
import type { Database } from '../orm.js';
import { rowById } from '../sql-runner.js';
import { isoUtc } from './admins.js';
import { countedPage, tableListing } from './filtered-lists.js';

/**
 * The platform's operating state: feature flags, maintenance windows and incidents. The API reads
 * flags and windows through a per-process cache (api/platform/state.ts) that polls the change
 * counters in platform_state_versions; the administration lists them directly.
 */
type Sql = Pick<PoolClient, 'query'>;

export type PlatformStateName = 'feature_flags' | 'maintenance' | 'company_standing';

/** The change counter of each cached state, and the database's clock when it read them. */
export interface PlatformVersions {
  versions: Record<PlatformStateName, number>;
  /** clock_timestamp() (epoch ms): the statement's own instant, not its transaction's start. */
  databaseMs: number;
  /** performance.now() halfway through the statement's round trip (not its wait for a connection). */
  monotonicMs: number;
}

/**
 * The counters and the database's clock in one round trip, timed on a connection already held, so
 * a poll that queued for the pool under load does not place the clock reading inside its wait.
 */
export async function platformVersions(db: Pick<Database, 'pool'>): Promise<PlatformVersions> {
  const client = await db.pool.connect();
  try {
    const sentAt = performance.now();
    const { rows } = await client.query<{ at: string; versions: Partial<Record<PlatformStateName, string>> }>(
      `select extract(epoch from clock_timestamp()) * 1000 as at,
              coalesce(json_object_agg(name, version::text), '{}') as versions
       from platform_state_versions`,
    );
    const monotonicMs = (sentAt + performance.now()) / 2;
    const versions = { feature_flags: 0, maintenance: 0, company_standing: 0 };
    for (const name of Object.keys(versions) as PlatformStateName[]) {
      versions[name] = Number(rows[0]!.versions[name] ?? 0);
    }
    return { versions, databaseMs: Number(rows[0]!.at), monotonicMs };
  } finally {
    client.release();
  }
}

export interface StoredFlagRow {
  key: string;
  enabled: boolean;
  updated_by: string | null;
  updated_by_name: string | null;
  updated_at: string;
}

/** The values operators set, with who set them last. */
export async function storedFeatureFlags(sql: Sql): Promise<StoredFlagRow[]> {
  const { rows } = await sql.query<StoredFlagRow>(
    `select f.key, f.enabled, f.updated_by, a.name as updated_by_name, ${isoUtc('f.updated_at')} as updated_at
     from feature_flags f left join admins a on a.id = f.updated_by order by f.key`,
  );
  return rows;
}

/** Windows not cancelled that have not ended: the ones a request may fall into, now or later. */
export async function scheduledMaintenance(db: Database): Promise<MaintenanceWindow[]> {
  const rows = await db.query<{ id: string; message: string; starts_at: string; ends_at: string }>(
    `select id, message, ${isoUtc('starts_at')} as starts_at, ${isoUtc('ends_at')} as ends_at
     from maintenance_windows where cancelled_at is null and ends_at > now() order by starts_at`,
  );
  return rows.map((row) => ({
    id: row.id,
    message: row.message,
    startsAt: new Date(row.starts_at),
    endsAt: new Date(row.ends_at),
  }));
}

export interface MaintenanceRow {
  id: string;
  message: string;
  starts_at: string;
  ends_at: string;
  cancelled_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  state: MaintenanceState;
}

const MAINTENANCE_COLUMNS = `id, message, ${isoUtc('starts_at')} as starts_at, ${isoUtc('ends_at')} as ends_at,
  ${isoUtc('cancelled_at')} as cancelled_at, created_by, ${isoUtc('created_at')} as created_at,
  ${isoUtc('updated_at')} as updated_at,
  case when cancelled_at is not null then 'CANCELLED' when ends_at <= now() then 'ENDED'
       when starts_at <= now() then 'ACTIVE' else 'SCHEDULED' end as state`;

/** Windows in a state, newest start first, with the total. */
export async function listMaintenanceWindows(
  sql: Sql,
  filter: { state?: MaintenanceState | undefined; limit: number; offset: number },
): Promise<{ items: MaintenanceRow[]; total: number }> {
  const base = `select ${MAINTENANCE_COLUMNS} from maintenance_windows`;
  const where = `($1::text is null or state = $1)`;
  const listing = {
    select: `select * from (${base}) w`,
    from: `(${base}) w`,
    where,
    orderBy: 'starts_at desc, id',
  };
  return countedPage<MaintenanceRow>(sql, listing, [filter.state ?? null], filter);
}

/**
 * The windows in force (ACTIVE) at the transaction's time, and that time: the candidates of the
 * window the gate enforces (domain/maintenance.ts activeWindow picks it).
 */
export async function maintenanceInForce(sql: Sql): Promise<{ at: Date; windows: MaintenanceRow[] }> {
  const { rows } = await sql.query<MaintenanceRow>(
    `select ${MAINTENANCE_COLUMNS} from maintenance_windows
     where cancelled_at is null and starts_at <= now() and ends_at > now() order by starts_at, id`,
  );
  const { rows: time } = await sql.query<{ at: string }>(`select ${isoUtc('now()')} as at`);
  return { at: new Date(time[0]!.at), windows: rows };
}

/** One window, locked for a change when read inside a transaction. */
export function maintenanceWindow(sql: Sql, id: string, lock = false): Promise<MaintenanceRow | null> {
  return rowById(sql, MAINTENANCE_COLUMNS, 'maintenance_windows', id, lock);
}

export interface IncidentRow {
  id: string;
  title: string;
  description: string;
  severity: IncidentSeverity;
  status: IncidentStatus;
  resolution: string | null;
  started_at: string;
  resolved_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

const INCIDENT_COLUMNS = `id, title, description, severity, status, resolution, ${isoUtc('started_at')} as started_at,
  ${isoUtc('resolved_at')} as resolved_at, created_by, ${isoUtc('created_at')} as created_at,
  ${isoUtc('updated_at')} as updated_at`;

export interface IncidentFilter {
  status?: IncidentStatus | undefined;
  /** true: every status but RESOLVED. */
  open?: boolean | undefined;
  severity?: IncidentSeverity | undefined;
  limit: number;
  offset: number;
}

/** Incidents, newest first, with the total. */
export async function listIncidents(
  sql: Sql,
  filter: IncidentFilter,
): Promise<{ items: IncidentRow[]; total: number }> {
  const where = `($1::text is null or status = $1) and ($2::boolean is null or (status <> 'RESOLVED') = $2)
    and ($3::text is null or severity = $3)`;
  const params = [filter.status ?? null, filter.open ?? null, filter.severity ?? null];
  const listing = tableListing(INCIDENT_COLUMNS, 'incidents', {
    where,
    orderBy: 'incidents.started_at desc, incidents.id',
  });
  return countedPage<IncidentRow>(sql, listing, params, filter);
}

/** One incident, locked for a change when read inside a transaction. */
export function incident(sql: Sql, id: string, lock = false): Promise<IncidentRow | null> {
  return rowById(sql, INCIDENT_COLUMNS, 'incidents', id, lock);
}
