import type { PoolClient } from 'pg';

/**
 * Inserts one row given as column → value. The column list and the $n placeholders are written
 * from the same object, so a value cannot drift from its column as it can between two parallel
 * lists. For plain values only: a column that takes an SQL expression (now() + …) is written by hand.
 */
export async function insertRow(
  q: Pick<PoolClient, 'query'>,
  table: string,
  row: Record<string, unknown>,
): Promise<void> {
  const columns = Object.keys(row);
  const placeholders = columns.map((_, index) => `$${index + 1}`);
  await q.query(`insert into ${table} (${columns.join(', ')}) values (${placeholders.join(', ')})`, [
    ...Object.values(row),
  ]);
}
