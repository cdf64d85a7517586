import type { Database } from '../../db/orm.js';

/**
 * VACUUM (ANALYZE) of the benchmark database before timed phases, as pgbench vacuums before each
 * run: a production database has statistics and a visibility map that autovacuum keeps up to date,
 * while a benchmark database was filled moments ago, faster than autovacuum wakes (once a minute).
 * Without it a phase is planned from the statistics of nearly empty tables, or shares the machine
 * with the autovacuum pass that the fill sets off.
 */
export async function vacuumAnalyze(db: Database): Promise<void> {
  await db.query('vacuum (analyze)');
}

/** Autovacuum and autoanalyze passes over the benchmark database's tables so far. */
export async function autovacuumPasses(db: Database): Promise<number> {
  const [row] = await db.query<{ passes: number }>(
    'select coalesce(sum(autovacuum_count + autoanalyze_count), 0)::int as passes from pg_stat_user_tables',
  );
  return row!.passes;
}
