import type { Database } from '../orm.js';
import { pickColumns } from '../row-fields.js';
import { rowsOf, type SqlRunner } from '../sql-runner.js';
import type { CityRef } from './catalogue.js';
import { namedRefOf, type NamedRefColumns } from './named-ref.js';

/**
 * Reads of a traveller's favorite routes (the writes are in db/writes/favorites.ts). Every read
 * names the canonical passenger id, which the caller resolves from the signed-in user
 * (resolveCanonicalPassenger); nothing here accepts a traveller id from a request.
 */

export interface FavoriteRoute {
  id: string;
  origin_city_id: string;
  dest_city_id: string;
  /** ISO 8601 UTC. */
  created_at: string;
  origin_city: CityRef;
  dest_city: CityRef;
}

export interface CityPair {
  originCityId: string;
  destCityId: string;
}

interface IdRow {
  id: string;
}

/** Longest chain of merged profiles followed; a longer one (or a cycle) means no usable profile. */
const MAX_MERGE_DEPTH = 16;

/**
 * The user's traveller profile after merges: users.passenger_id, then merged_into_id until a
 * profile that was not merged away. Null when the user has no profile yet.
 */
export async function resolveCanonicalPassenger(db: SqlRunner, userId: string): Promise<string | null> {
  const [row] = await rowsOf<IdRow>(
    db,
    `with recursive chain (id, merged_into_id, depth) as (
       select p.id, p.merged_into_id, 0 from users u join passengers p on p.id = u.passenger_id where u.id = $1
       union all
       select p.id, p.merged_into_id, chain.depth + 1
       from chain join passengers p on p.id = chain.merged_into_id
       where chain.depth < $2
     )
     select id from chain where merged_into_id is null limit 1`,
    [userId, MAX_MERGE_DEPTH],
  );
  return row?.id ?? null;
}

const SELECT_FAVORITES = `
  select f.id, f.origin_city_id, f.dest_city_id,
         to_char(f.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
         o.name_ar as origin_city_name_ar, o.name_en as origin_city_name_en,
         d.name_ar as dest_city_name_ar, d.name_en as dest_city_name_en
  from favorites f
  join cities o on o.id = f.origin_city_id
  join cities d on d.id = f.dest_city_id
  where f.passenger_id = $1`;

/** The cities under the prefixes origin_city and dest_city (their ids are the favorite's columns). */
type FavoriteRow = NamedRefColumns<'origin_city' | 'dest_city'> & {
  id: string;
  /** ISO 8601 UTC (formatted in SQL). */
  created_at: string;
};

function toFavoriteRoute(row: FavoriteRow): FavoriteRoute {
  return {
    ...pickColumns(row, ['id', 'origin_city_id', 'dest_city_id', 'created_at']),
    origin_city: namedRefOf(row, 'origin_city'),
    dest_city: namedRefOf(row, 'dest_city'),
  };
}

/** Newest first; equal timestamps fall back to id so the order is stable. */
export async function listFavorites(db: Database, passengerId: string): Promise<FavoriteRoute[]> {
  const rows = await db.query<FavoriteRow>(`${SELECT_FAVORITES} order by f.created_at desc, f.id desc`, [
    passengerId,
  ]);
  return rows.map(toFavoriteRoute);
}

export async function findFavorite(
  db: SqlRunner,
  passengerId: string,
  pair: CityPair,
): Promise<FavoriteRoute | null> {
  const [row] = await rowsOf<FavoriteRow>(
    db,
    `${SELECT_FAVORITES} and f.origin_city_id = $2 and f.dest_city_id = $3`,
    [passengerId, pair.originCityId, pair.destCityId],
  );
  return row ? toFavoriteRoute(row) : null;
}

/** The ids among the pair that name no city. */
export async function missingCities(db: Database, pair: CityPair): Promise<string[]> {
  const ids = [pair.originCityId, pair.destCityId];
  const rows = await db.query<IdRow>('select id from cities where id = any($1::uuid[])', [ids]);
  const found = new Set(rows.map((row) => row.id));
  return ids.filter((id) => !found.has(id));
}
