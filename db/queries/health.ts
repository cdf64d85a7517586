import type { Database } from '../orm.js';

/** Resolves when PostgreSQL answers a trivial statement (the readiness probe). */
export async function databaseAnswers(db: Database): Promise<void> {
  await db.query('select 1');
}
