import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { initDatabase, migrate } from '../../db/orm.js';
import { createDatabaseIfMissing, databaseUrl, dropDatabase } from '../../scripts/lib/services.js';

/**
 * A migrated database of the test file's own, beside the run's test database, for state that is
 * global to the platform (maintenance windows, feature flags): an active maintenance window in
 * the shared database would refuse the writes of every other test file running meanwhile. Call it
 * before useTestApp({ DATABASE_URL: url }), so the database exists before the app starts and is
 * dropped after it stops. Workflows still run against the shared database's worker, unless the
 * file starts one of its own on its own task queue (private-worker.ts usePrivateWorker).
 */
export function usePrivateDatabase(label: string): { url: string } {
  const config = loadConfig();
  const serverUrl = databaseUrl(config.DATABASE_URL, 'postgres');
  const name = `${new URL(config.DATABASE_URL).pathname.slice(1)}_${label}_${process.pid}`;
  const url = databaseUrl(config.DATABASE_URL, name);
  beforeAll(async () => {
    await createDatabaseIfMissing(serverUrl, name);
    const db = await initDatabase({ ...config, DATABASE_URL: url, DATABASE_POOL_MAX: 1 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
  });
  afterAll(async () => {
    await dropDatabase(serverUrl, name);
  });
  return { url };
}
