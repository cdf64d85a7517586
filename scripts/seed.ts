/**
 * `npm run seed`: brings the schema up to date, then adds the demo world (idempotent: a rerun
 * adds nothing, a run on a later day adds only the new operating days). Prints one summary line.
 */
import { loadConfig } from '../config/index.js';
import { initDatabase, migrate } from '../db/orm.js';
import { seedDemo, type SeedCounts } from '../db/seed/demo.js';

const started = performance.now();
const db = await initDatabase(loadConfig());
try {
  const applied = await migrate(db);
  if (applied.length) console.log(`applied ${applied.length} migration(s): ${applied.join(', ')}`);
  const summary = await seedDemo(db);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `demo seed ${summary.dates.first}..${summary.dates.last} in ${seconds}s: ${describe(summary.inserted, summary.totals)}`,
  );
} catch (error) {
  console.error(`demo seed failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.close();
}

function describe(inserted: SeedCounts, totals: SeedCounts): string {
  return (Object.keys(totals) as (keyof SeedCounts)[])
    .map((table) => `${table} ${totals[table]} (+${inserted[table]})`)
    .join(', ');
}
