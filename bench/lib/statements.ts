import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../../db/orm.js';

/**
 * With BENCH_STATEMENTS_DIR set and pg_stat_statements loaded by the server
 * (`shared_preload_libraries`; the benchmarks reuse a PostgreSQL that already answers on their port):
 * the statements of each phase by total time (planning and execution; planning alone beside it),
 * written to <dir>/<phase>.txt. Without it every call here does nothing.
 */
const STATEMENTS_DIR = process.env.BENCH_STATEMENTS_DIR;

/** A statement's figures, summed (milliseconds). */
interface StatementRow {
  query: string;
  calls: number;
  total: number;
  plan: number;
}

/** Forgets the statistics so far: what follows is the next phase's. */
export async function resetStatements(db: Database): Promise<void> {
  if (!STATEMENTS_DIR) return;
  const [loaded] = await db.query<{ loaded: boolean }>(
    `select 'pg_stat_statements' = any(string_to_array(current_setting('shared_preload_libraries'), ', ')) as loaded`,
  );
  if (!loaded!.loaded) {
    throw new Error(
      'BENCH_STATEMENTS_DIR needs a PostgreSQL started with shared_preload_libraries=pg_stat_statements ' +
        'answering on the benchmark port (PG_PORT); the one there does not load it',
    );
  }
  await db.query('create extension if not exists pg_stat_statements');
  await db.query('select pg_stat_statements_reset()');
}

/** This database's statements since the last reset. */
async function readStatements(db: Database): Promise<StatementRow[]> {
  const rows = await db.query<{ calls: string; total: number; plan: number; query: string }>(
    `select calls, total_exec_time + total_plan_time as total, total_plan_time as plan, query
     from pg_stat_statements s join pg_database d on d.oid = s.dbid
     where d.datname = current_database()`,
  );
  return rows.map((row) => ({ ...row, calls: Number(row.calls) }));
}

/** Writes a phase's statements, the 60 dearest first, per unit of its work (`unit`: journey, booking). */
function writeFile(phase: string, rows: StatementRow[], units: number, unit: string): void {
  const per = Math.max(units, 1);
  const lines = [...rows]
    .sort((a, b) => b.total - a.total)
    .slice(0, 60)
    .map(
      (row) =>
        `${((row.total / per) * 1000).toFixed(0).padStart(6)} µs/${unit} ${(row.calls / per).toFixed(2).padStart(6)} calls/${unit}, planning ${((row.plan / per) * 1000).toFixed(0).padStart(5)} µs  ${row.query.replace(/\s+/g, ' ').slice(0, 400)}`,
    );
  mkdirSync(STATEMENTS_DIR!, { recursive: true });
  writeFileSync(join(STATEMENTS_DIR!, `${phase.replace(/\W+/g, '-')}.txt`), lines.join('\n') + '\n');
}

/** Writes the phase's statements of this database since the last reset. */
export async function writeStatements(
  db: Database,
  phase: string,
  units: number,
  unit: string,
): Promise<void> {
  if (!STATEMENTS_DIR) return;
  writeFile(phase, await readStatements(db), units, unit);
}

/**
 * A phase measured in slices between other phases' (bench/lib/interleave.ts): begin() and end()
 * around each slice add the slice's statements to the phase's, write() writes them once.
 */
export class StatementTally {
  private readonly rows = new Map<string, StatementRow>();

  constructor(private readonly db: Database) {}

  begin(): Promise<void> {
    return resetStatements(this.db);
  }

  async end(): Promise<void> {
    if (!STATEMENTS_DIR) return;
    for (const row of await readStatements(this.db)) {
      const sum = this.rows.get(row.query);
      if (sum)
        Object.assign(sum, {
          calls: sum.calls + row.calls,
          total: sum.total + row.total,
          plan: sum.plan + row.plan,
        });
      else this.rows.set(row.query, { ...row });
    }
  }

  write(phase: string, units: number, unit: string): void {
    if (STATEMENTS_DIR) writeFile(phase, [...this.rows.values()], units, unit);
  }
}
