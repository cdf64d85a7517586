import type { QueryConfig } from 'pg';
import type { Database } from '../orm.js';

/**
 * Resolves when PostgreSQL answers a trivial statement within `timeoutMs` (the readiness probe).
 * Past it the query fails and its connection leaves the pool (pg's query_timeout; pg-pool drops a
 * connection released with an error): a server that stops answering without resetting the
 * connection would otherwise keep one pooled connection per probe for as long as TCP holds it.
 */
export async function databaseAnswers(db: Database, timeoutMs: number): Promise<void> {
  // pg reads query_timeout from the query's config; its types leave it out of QueryConfig.
  const probe: QueryConfig & { query_timeout: number } = { text: 'select 1', query_timeout: timeoutMs };
  await db.pool.query(probe);
}
