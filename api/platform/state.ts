import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import {
  platformVersions,
  type PlatformVersions,
  scheduledMaintenance,
  storedFeatureFlags,
} from '../../db/queries/platform-state.js';
import { flagValue, type FeatureFlagKey } from '../../domain/feature-flags.js';
import {
  maintenanceRefusal,
  type MaintenanceRefusal,
  type MaintenanceWindow,
} from '../../domain/maintenance.js';
import { Refusal } from '../http/errors.js';

/**
 * The feature flags and maintenance windows as one API process answers from them: a per-process
 * cache invalidated by a version counter. Every change of flags or windows bumps its counter in
 * platform_state_versions in the changing transaction (db/writes/platform-state.ts); a read finds
 * the cache older than PLATFORM_STATE_POLL_SECONDS, reads the two counters (one small row each)
 * and reloads only what changed. So a change reaches every process within that many seconds
 * (2 by default), with no timer, no listener connection and at most one counter read per process
 * per interval; reads in between cost nothing. A counter read in flight is shared by every
 * request waiting for it. The counters were chosen over LISTEN/NOTIFY: they need no dedicated
 * connection per process, survive a connection pooler, and a missed notification cannot leave a
 * process stale.
 */
export interface PlatformState {
  /** The flag's value (the operator's, else the catalogue default). */
  flag: (key: FeatureFlagKey) => Promise<boolean>;
  /** The maintenance window in force `now` (by default the database's, as polled) and when writes reopen, or null. */
  maintenance: (now?: Date) => Promise<MaintenanceRefusal | null>;
  /** Changes with every suspension and unsuspension: caches of inventory answers key by it. */
  companyStanding: () => Promise<number>;
}

/** The database's clock (epoch ms) at a monotonic instant (performance.now()) of the last poll; null until the first. */
let databaseAnchor: { databaseMs: number; monotonicMs: number } | null = null;

/**
 * Now on the database's clock (epoch ms): the clock_timestamp() each poll of the change counters
 * reads in the same statement, taken at the midpoint of that statement's round trip (not of its wait
 * for a connection) and carried forward on the monotonic clock, so neither a host clock ahead of or
 * behind PostgreSQL's nor one set while the process runs moves it (this host's clock until the first
 * poll). The deadlines the database checks (acceptBy, stepBy,
 * claimBy) and the maintenance gate use it.
 */
export const databaseNow = (): number =>
  databaseAnchor ? databaseAnchor.databaseMs + (performance.now() - databaseAnchor.monotonicMs) : Date.now();

interface Snapshot {
  checkedAt: number;
  versions: PlatformVersions['versions'] | null;
  flags: Map<string, boolean>;
  windows: MaintenanceWindow[];
}

export function platformState(
  db: Database,
  config: Pick<Config, 'PLATFORM_STATE_POLL_SECONDS'>,
  fixedClock?: () => number,
): PlatformState {
  // This host's clock, read at each call (never a captured Date.now), unless a test fixes it.
  const clock = fixedClock ?? (() => Date.now());
  const snapshot: Snapshot = { checkedAt: 0, versions: null, flags: new Map(), windows: [] };
  let refreshing: Promise<void> | null = null;

  const refresh = async () => {
    const { versions, databaseMs, monotonicMs } = await platformVersions(db);
    // A clock a test fixes is no host's: nothing to measure it against.
    if (!fixedClock) databaseAnchor = { databaseMs, monotonicMs };
    const known = snapshot.versions;
    if (!known || known.feature_flags !== versions.feature_flags) {
      const stored = await storedFeatureFlags(db.pool);
      snapshot.flags = new Map(stored.map((row) => [row.key, row.enabled]));
    }
    if (!known || known.maintenance !== versions.maintenance) {
      snapshot.windows = await scheduledMaintenance(db);
    }
    snapshot.versions = versions;
    snapshot.checkedAt = clock();
  };

  const current = async (): Promise<Snapshot> => {
    const elapsed = clock() - snapshot.checkedAt;
    // A host clock set back polls at once rather than after the time it went back.
    if (elapsed < 0 || elapsed >= config.PLATFORM_STATE_POLL_SECONDS * 1000) {
      refreshing ??= refresh().finally(() => {
        refreshing = null;
      });
      await refreshing;
    }
    return snapshot;
  };

  return {
    flag: async (key) => flagValue(key, (await current()).flags),
    maintenance: async (now) => {
      const { windows } = await current();
      return maintenanceRefusal(windows, now ?? new Date(fixedClock ? fixedClock() : databaseNow()));
    },
    companyStanding: async () => (await current()).versions!.company_standing,
  };
}

/** 503 FEATURE_DISABLED unless the flag is on. */
export async function requireFeature(state: PlatformState, key: FeatureFlagKey): Promise<void> {
  if (!(await state.flag(key))) {
    throw new Refusal(503, 'FEATURE_DISABLED', 'This feature is switched off for now', { flag: key });
  }
}
