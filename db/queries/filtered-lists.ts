import type { PoolClient } from 'pg';

/** Pieces the administration's filtered lists share: the search pattern and the total beside a page. */

/** Text a person typed, for LIKE/ILIKE to match as typed: `\`, `%` and `_` are escaped. */
export const likeEscaped = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** The LIKE/ILIKE pattern that finds `text` anywhere in a value, matched as typed. */
export const containingPattern = (text: string) => `%${likeEscaped(text)}%`;

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
