/**
 * `npm run migrate`: applies the pending migrations to DATABASE_URL and says which ran.
 */
import { loadConfig } from '../config/index.js';
import { initDatabase, migrate } from '../db/orm.js';

const db = await initDatabase(loadConfig());
try {
  const applied = await migrate(db);
  console.log(
    applied.length
      ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'database schema is up to date',
  );
} catch (error) {
  console.error(`migration failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
