import type { PoolClient, QueryResultRow } from 'pg';
import type { Database } from './orm.js';

/**
 * Where a statement runs: the Database (on its own) or a PoolClient (inside the caller's
 * transaction). Functions that serve both take a SqlRunner.
 */
export type SqlRunner = Database | PoolClient;

/**
 * Runs `work` on one connection inside a read-only REPEATABLE READ transaction, as the report
 * cursor does: every statement of it reads the same snapshot (taken at its first statement), so
 * figures read by several statements add up even while bookings are made. Send its statements one
 * after the other (pg@9 refuses a query sent while another runs on the connection).
 */
export function inOneSnapshot<T>(db: Database, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return db.transaction(work, { readOnlySnapshot: true });
}

export async function rowsOf<Row extends QueryResultRow>(
  runner: SqlRunner,
  sql: string,
  params: unknown[],
): Promise<Row[]> {
  if ('transaction' in runner) return runner.query<Row>(sql, params);
  return (await runner.query<Row>(sql, params)).rows;
}

/**
 * One row of `table` by its id, or null: `select <columns> from <table> where id = $1`, locked for a
 * change (`for update`) when asked, inside the caller's transaction.
 */
export async function rowById<Row extends object>(
  sql: Pick<PoolClient, 'query'>,
  columns: string,
  table: string,
  id: string,
  lock: boolean,
): Promise<Row | null> {
  const { rows } = await sql.query<Row>(
    `select ${columns} from ${table} where id = $1${lock ? ' for update' : ''}`,
    [id],
  );
  return rows[0] ?? null;
}
