/**
 * `npm run --silent demo:accounts`: prints the demo identities (ARCHITECTURE "Demo identities")
 * as one JSON document on stdout and nothing else. It only reads (the migrator would log to
 * stdout): run `npm run seed` first.
 */
import { loadConfig } from '../config/index.js';
import { initDatabase } from '../db/orm.js';
import { readDemoAccounts } from '../db/seed/demo-accounts.js';

const db = await initDatabase(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }));
try {
  const accounts = await readDemoAccounts(db);
  if (accounts.companies.length === 0) {
    console.error('no demo companies in the database: run `npm run seed` first');
    process.exitCode = 1;
  } else {
    console.log(JSON.stringify(accounts, null, 2));
  }
} catch (error) {
  console.error(
    `demo:accounts failed: ${(error as Error).message} (has "npm run seed" run on this database?)`,
  );
  process.exitCode = 1;
} finally {
  await db.close();
}
