import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../../db/orm.js';

/**
 * With BENCH_STATEMENTS_DIR set and pg_stat_statements loaded by the server
 * (`shared_preload_libraries`; the benchmarks reuse a PostgreSQL that already answers on their port):
 * the statements of each phase by total time (planning and execution; planning alone beside it),
 * written to <dir>/<phase>.txt. Without it both calls do nothing.
 */
const STATEMENTS_DIR = process.env.BENCH_STATEMENTS_DIR;

/** Forgets the statistics so far: what follows is the next phase's. */
export async function resetStatements(db: Database): Promise<void> {
  if (!STATEMENTS_DIR) return;
  await db.query('create extension if not exists pg_stat_statements');
  await db.query('select pg_stat_statements_reset()');
}

/** Writes the phase's statements of this database, per unit of its work (`unit`: journey, booking). */
export async function writeStatements(
  db: Database,
  phase: string,
  units: number,
  unit: string,
): Promise<void> {
  if (!STATEMENTS_DIR) return;
  const rows = await db.query<{ calls: string; total: number; plan: number; query: string }>(
    `select calls, total_exec_time + total_plan_time as total, total_plan_time as plan, query
     from pg_stat_statements s join pg_database d on d.oid = s.dbid
     where d.datname = current_database() order by total desc limit 60`,
  );
  const per = Math.max(units, 1);
  const lines = rows.map(
    (row) =>
      `${((row.total / per) * 1000).toFixed(0).padStart(6)} µs/${unit} ${(Number(row.calls) / per).toFixed(2).padStart(6)} calls/${unit}, planning ${((row.plan / per) * 1000).toFixed(0).padStart(5)} µs  ${row.query.replace(/\s+/g, ' ').slice(0, 400)}`,
  );
  mkdirSync(STATEMENTS_DIR, { recursive: true });
  writeFileSync(join(STATEMENTS_DIR, `${phase.replace(/\W+/g, '-')}.txt`), lines.join('\n') + '\n');
}
