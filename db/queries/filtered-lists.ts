import type { PoolClient, QueryResultRow } from 'pg';
import type { PageBounds } from './company-records.js';

/** Pieces the administration's filtered lists share: the search pattern and the total beside a page. */

/** Text a person typed, for LIKE/ILIKE to match as typed: `\`, `%` and `_` are escaped. */
export const likeEscaped = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** The LIKE/ILIKE pattern that finds `text` anywhere in a value, matched as typed. */
export const containingPattern = (text: string) => `%${likeEscaped(text)}%`;

/** SQL: likeEscaped of the text `expression` yields. */
const sqlLikeEscaped = (expression: string) =>
  String.raw`replace(replace(replace(${expression}, '\', '\\'), '%', '\%'), '_', '\_')`;

/**
 * SQL: whether the name (or other words people type) in `column` contains the text bound at `slot`
 * (the text as typed, not a pattern), both read as names match (README "Network"): name_key, the
 * database's copy of domain/trip-planning.ts nameKey, ignores case, diacritics, tatweel, invisible
 * format characters and the letters names write one for the other, so احمد finds أحمد and الحمزه
 * finds الحمزة. The typed text's `\`, `%` and `_` match as typed (escaped once folded: a full-width
 * ％ folds to %); text that folds to nothing (vowel marks alone) finds no name.
 */
export const nameContains = (column: string, slot: string) =>
  `(name_key(${slot}) <> '' and name_key(${column}) like '%' || ${sqlLikeEscaped(`name_key(${slot})`)} || '%')`;

/**
 * The total beside a filtered page: how many rows of `from` (a table and its alias) match `where`,
 * with the same parameters the page's statement gives it before its limit and offset.
 */
export async function countMatching(
  sql: Pick<PoolClient, 'query'>,
  from: string,
  where: string,
  params: unknown[],
): Promise<number> {
  const { rows } = await sql.query<{ total: number }>(
    `select count(*)::int as total from ${from} where ${where}`,
    params,
  );
  return rows[0]!.total;
}

/** A listing whose total is counted beside its page (countMatching): the statement in parts. */
export interface CountedListing {
  /** The select list and its joins, up to the where clause. */
  select: string;
  /** The table (and alias) the total counts rows of. */
  from: string;
  /** The filter, binding `params` as $1…$n; the page and the count share it. */
  where: string;
  /**
   * The order, on the table's own columns: name them with the table (`audit_log.created_at`) when
   * the select list prints one under its own name (a time as ISO text, an id as text), since a bare
   * name in ORDER BY means the printed one, which sorts as text and uses no index.
   */
  orderBy: string;
}

/**
 * The listing of one table without joins: `select <columns> from <table>`, its total counted in the
 * same table (the counterpart of rowById for a filtered page).
 */
export function tableListing(
  columns: string,
  table: string,
  filter: Pick<CountedListing, 'where' | 'orderBy'>,
): CountedListing {
  return { select: `select ${columns} from ${table}`, from: table, ...filter };
}

/**
 * One page of a listing, `<select> where <where> order by <orderBy> limit … offset …` (limit and
 * offset bound after `params`), with the total across pages from countMatching.
 */
export async function countedPage<Row extends QueryResultRow>(
  sql: Pick<PoolClient, 'query'>,
  listing: CountedListing,
  params: unknown[],
  page: PageBounds,
): Promise<{ items: Row[]; total: number }> {
  const limit = params.length + 1;
  const { rows } = await sql.query<Row>(
    `${listing.select} where ${listing.where} order by ${listing.orderBy} limit $${limit} offset $${limit + 1}`,
    [...params, page.limit, page.offset],
  );
  return { items: rows, total: await countMatching(sql, listing.from, listing.where, params) };
}
