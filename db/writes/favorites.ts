import { findFavorite, type CityPair, type FavoriteRoute } from '../queries/favorites.js';
import type { Database } from '../orm.js';
import { pgCode } from '../pg-errors.js';

/**
 * Writes of a traveller's favorite routes, each one statement. Every write names the canonical
 * passenger id the caller resolved from the signed-in user, never a traveller id from a request.
 */

export type SaveOutcome =
  { kind: 'saved'; favorite: FavoriteRoute; alreadySaved: boolean } | { kind: 'cityMissing' };

const FOREIGN_KEY_VIOLATION = '23503';

interface IdRow {
  id: string;
}

/**
 * Saves the pair once per passenger: the unique (passenger, origin, destination) constraint makes
 * a repeat, or concurrent duplicates, end with one row; the repeat reports alreadySaved.
 */
export async function saveFavorite(db: Database, passengerId: string, pair: CityPair): Promise<SaveOutcome> {
  // Two rounds: the row a conflicting insert found may be deleted before it is read back.
  for (let round = 0; round < 2; round++) {
    let inserted: IdRow[];
    try {
      inserted = await db.query<IdRow>(
        `insert into favorites (passenger_id, origin_city_id, dest_city_id) values ($1, $2, $3)
         on conflict (passenger_id, origin_city_id, dest_city_id) do nothing
         returning id`,
        [passengerId, pair.originCityId, pair.destCityId],
      );
    } catch (error) {
      // A city deleted after the caller checked it.
      if (pgCode(error) === FOREIGN_KEY_VIOLATION) return { kind: 'cityMissing' };
      throw error;
    }
    const favorite = await findFavorite(db, passengerId, pair);
    if (favorite) return { kind: 'saved', favorite, alreadySaved: inserted.length === 0 };
  }
  throw new Error('favorite vanished while being saved twice');
}

/** True when a saved pair was removed. */
export async function removeFavorite(db: Database, passengerId: string, pair: CityPair): Promise<boolean> {
  const rows = await db.query<IdRow>(
    'delete from favorites where passenger_id = $1 and origin_city_id = $2 and dest_city_id = $3 returning id',
    [passengerId, pair.originCityId, pair.destCityId],
  );
  return rows.length > 0;
}
