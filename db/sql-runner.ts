import type { PoolClient, QueryResultRow } from 'pg';
import type { Database } from './orm.js';

/**
 * Where a statement runs: the Database (on its own) or a PoolClient (inside the caller's
 * transaction). Functions that serve both take a SqlRunner.
 */
export type SqlRunner = Database | PoolClient;

export async function rowsOf<Row extends QueryResultRow>(
  runner: SqlRunner,
  sql: string,
  params: unknown[],
): Promise<Row[]> {
  if ('transaction' in runner) return runner.query<Row>(sql, params);
  return (await runner.query<Row>(sql, params)).rows;
}
