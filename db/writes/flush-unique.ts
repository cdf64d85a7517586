import { UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { TransactionClient } from '../orm.js';

/**
 * Flushes the EntityManager inside a savepoint. When the flush breaks a unique key, the savepoint
 * is rolled back and the EntityManager cleared, so the caller's transaction stays usable, and the
 * answer is false; any other error is thrown as it is.
 */
export async function flushUnlessTaken(sql: TransactionClient): Promise<boolean> {
  await sql.query('savepoint flush_unique');
  try {
    await sql.em.flush();
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    await sql.query('rollback to savepoint flush_unique');
    sql.em.clear();
    return false;
  }
  await sql.query('release savepoint flush_unique');
  return true;
}
