import type { PoolClient } from 'pg';
import type { Database } from '../../db/orm.js';
import { storedFeatureFlags, type StoredFlagRow } from '../../db/queries/platform-state.js';
import type { AdminActor } from '../../db/writes/acting-admin.js';
import { recordedTransaction, type AuditActor } from '../../db/writes/audit.js';
import { setFeatureFlag } from '../../db/writes/platform-state.js';
import {
  FEATURE_FLAG_KEYS,
  FEATURE_FLAGS,
  isFeatureFlagKey,
  type FeatureFlagKey,
} from '../../domain/feature-flags.js';
import { notFound } from '../http/errors.js';

/** The feature flags as the administration shows them: the catalogue with the values operators set. */
export interface FeatureFlagView {
  key: FeatureFlagKey;
  description: string;
  enabled: boolean;
  defaultEnabled: boolean;
  setByOperator: boolean;
  updatedAt: string | null;
  updatedBy: { id: string; name: string } | null;
}

function view(key: FeatureFlagKey, stored: StoredFlagRow | undefined): FeatureFlagView {
  const definition = FEATURE_FLAGS[key];
  return {
    key,
    description: definition.description,
    enabled: stored?.enabled ?? definition.defaultEnabled,
    defaultEnabled: definition.defaultEnabled,
    setByOperator: stored !== undefined,
    updatedAt: stored?.updated_at ?? null,
    updatedBy: stored?.updated_by ? { id: stored.updated_by, name: stored.updated_by_name ?? '' } : null,
  };
}

async function featureFlags(sql: Pick<PoolClient, 'query'>): Promise<FeatureFlagView[]> {
  const stored = new Map((await storedFeatureFlags(sql)).map((row) => [row.key, row]));
  return FEATURE_FLAG_KEYS.map((key) => view(key, stored.get(key)));
}

/** The catalogue with the values operators set; the read is recorded (feature_flags.list). */
export function readFeatureFlags(db: Database, audit: AuditActor): Promise<FeatureFlagView[]> {
  return recordedTransaction(db, featureFlags, (flags) => ({
    ...audit,
    action: 'feature_flags.list',
    targetKind: 'feature_flag',
    details: { returned: flags.length },
  }));
}

/**
 * Sets a flag of the catalogue (404 FEATURE_FLAG_NOT_FOUND otherwise) and answers it as this change
 * left it; setting the value it has writes nothing and answers it unchanged.
 */
export async function changeFeatureFlag(
  db: Database,
  audit: AdminActor,
  key: string,
  change: { enabled: boolean; reason: string },
): Promise<FeatureFlagView> {
  if (!isFeatureFlagKey(key))
    throw notFound('FEATURE_FLAG_NOT_FOUND', 'The platform reads no flag of this name');
  const stored = await setFeatureFlag(
    db,
    { key, ...change, adminId: audit.actorId, defaultEnabled: FEATURE_FLAGS[key].defaultEnabled },
    audit,
  );
  return view(key, stored);
}
