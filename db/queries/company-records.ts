import type { Database } from '../orm.js';

/**
 * The tenant rule of the dashboard's reads, written once: a company sees its own records only, and
 * another company's record is the same as none (the route answers 404).
 */

/**
 * A lookup of one record of the company by id: `<select> where <alias>.company_id = $1 and
 * <alias>.id = $2`, the row mapped, undefined when there is none. `select` is a statement without
 * a where clause, `alias` the table alias it reads the record from.
 */
export function companyRecordById<Row, Item>(
  select: string,
  alias: string,
  map: (row: Row) => Item,
): (db: Database, companyId: string, id: string) => Promise<Item | undefined> {
  const text = `${select} where ${alias}.company_id = $1 and ${alias}.id = $2`;
  return async (db, companyId, id) => {
    const [row] = await db.query<Row>(text, [companyId, id]);
    return row && map(row);
  };
}

/** How many rows of `table` belong to the company (the total of a listing whose page came back empty). */
export async function countCompanyRows(db: Database, table: string, companyId: string): Promise<number> {
  const [row] = await db.query<{ total: number }>(
    `select count(*)::int as total from ${table} where company_id = $1`,
    [companyId],
  );
  return row!.total;
}
