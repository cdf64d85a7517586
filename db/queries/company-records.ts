import type { Database } from '../orm.js';

/**
 * The tenant rule of the dashboard's reads, written once: a company sees its own records only, and
 * another company's record is the same as none (the route answers 404).
 */

/**
 * A lookup of one record of the company by id: `<select> where <alias>.company_id = $1 and
 * <alias>.id = $2`, the row mapped, undefined when there is none. `select` is a statement without
 * a where clause, `alias` the table alias it reads the record from. `alsoWhere`, when given, is a
 * further condition the record must meet (a deleted record is the same as none).
 */
export function companyRecordById<Row, Item>(
  select: string,
  alias: string,
  map: (row: Row) => Item,
  alsoWhere?: string,
): (db: Database, companyId: string, id: string) => Promise<Item | undefined> {
  const also = alsoWhere === undefined ? '' : ` and ${alsoWhere}`;
  const text = `${select} where ${alias}.company_id = $1 and ${alias}.id = $2${also}`;
  return async (db, companyId, id) => {
    const [row] = await db.query<Row>(text, [companyId, id]);
    return row && map(row);
  };
}

/** How many rows of `table` belong to the company (the total of a page past the end of a listing). */
export async function countCompanyRows(db: Database, table: string, companyId: string): Promise<number> {
  const [row] = await db.query<{ total: number }>(
    `select count(*)::int as total from ${table} where company_id = $1`,
    [companyId],
  );
  return row!.total;
}

/** The page a listing asks for (`?limit=&offset=`). */
export interface PageBounds {
  limit: number;
  offset: number;
}

/**
 * A listing of the company's records, one page at a time: `<select> order by <orderBy> limit $2
 * offset $3`, the rows mapped and answered under `key` (`{ buses: [...], total }`). `select` ends
 * with a where clause that binds the company as $1 (its only parameter) and returns
 * `count(*) over ()::int as total`, so every row carries the total across pages. A page past the
 * end has no row: the total is then counted over that same select, so it is always the number of
 * records the listing shows, and no listing can forget it. An empty first page means none.
 */
export function companyListing<const Key extends string, Row extends { total: number }, Item>(
  key: Key,
  listing: { select: string; orderBy: string; map: (row: Row) => Item },
): (
  db: Database,
  companyId: string,
  page: PageBounds,
) => Promise<{ [K in Key]: Item[] } & { total: number }> {
  const text = `${listing.select} order by ${listing.orderBy} limit $2 offset $3`;
  const count = `select count(*)::int as total from (${listing.select}) as listed`;
  return async (db, companyId, page) => {
    const rows = await db.query<Row>(text, [companyId, page.limit, page.offset]);
    const total =
      rows[0]?.total ??
      (page.offset > 0 ? (await db.query<{ total: number }>(count, [companyId]))[0]!.total : 0);
    return { [key]: rows.map(listing.map), total } as { [K in Key]: Item[] } & { total: number };
  };
}
