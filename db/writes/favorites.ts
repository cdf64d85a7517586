import type { PoolClient } from 'pg';
import {
  findFavorite,
  resolveCanonicalPassenger,
  type CityPair,
  type FavoriteRoute,
} from '../queries/favorites.js';
import type { Database } from '../orm.js';
import { pgCode } from '../pg-errors.js';

/**
 * Writes of a traveller's favorite routes, each one transaction. Every write resolves the signed-in
 * user's canonical passenger profile inside it and holds that profile until it ends, never a
 * traveller id from a request.
 */

export type SaveOutcome =
  | { kind: 'saved'; favorite: FavoriteRoute; alreadySaved: boolean }
  | { kind: 'limitReached'; limit: number }
  | { kind: 'cityMissing' }
  | { kind: 'profileRequired' };

const FOREIGN_KEY_VIOLATION = '23503';

/** Profiles merged away one after another while a write waited: each round follows one more. */
const MAX_LOCK_ROUNDS = 4;

interface IdRow {
  id: string;
}

/**
 * How a write holds the profile: a removal FOR KEY SHARE (what the favorite's foreign key takes
 * anyway); a save FOR NO KEY UPDATE, so saves of one profile take turns and each counts what the
 * one before it saved (the cap cannot be raced), while bookings and other rows naming the profile
 * (their foreign keys take KEY SHARE) do not wait for it.
 */
type ProfileLock = 'for key share' | 'for no key update';

/**
 * The user's canonical profile, locked until the transaction ends. A phone completion merging it
 * away locks it FOR UPDATE: either it waits for this write (which its merge then moves), or this
 * waited for it and finds the profile merged, reads the chain again and locks the profile it was
 * merged into. Null: no profile yet.
 */
async function lockCanonicalPassenger(
  client: PoolClient,
  userId: string,
  lock: ProfileLock,
): Promise<string | null> {
  for (let round = 0; round < MAX_LOCK_ROUNDS; round++) {
    const passengerId = await resolveCanonicalPassenger(client, userId);
    if (!passengerId) return null;
    const { rows } = await client.query<IdRow>(
      `select id from passengers where id = $1 and merged_into_id is null ${lock}`,
      [passengerId],
    );
    if (rows[0]) return passengerId;
  }
  throw new Error('the traveller profile kept being merged away');
}

async function favoriteCount(client: PoolClient, passengerId: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    'select count(*)::int as n from favorites where passenger_id = $1',
    [passengerId],
  );
  return rows[0]!.n;
}

/**
 * Saves the pair once per passenger, at most `limit` pairs per passenger. Under the profile lock a
 * pair already saved answers alreadySaved (at the cap too); a new one is counted first and refused
 * (limitReached, nothing written) when the profile holds `limit` or more (a merge may have brought
 * more, see db/writes/traveller-identity/traveller-data.ts). The unique (passenger, origin,
 * destination) constraint still ends concurrent duplicates with one row.
 */
export async function saveFavorite(
  db: Database,
  userId: string,
  pair: CityPair,
  limit: number,
): Promise<SaveOutcome> {
  try {
    return await db.transaction(async (client) => {
      const passengerId = await lockCanonicalPassenger(client, userId, 'for no key update');
      if (!passengerId) return { kind: 'profileRequired' } as const;
      const saved = await findFavorite(client, passengerId, pair);
      if (saved) return { kind: 'saved', favorite: saved, alreadySaved: true } as const;
      if ((await favoriteCount(client, passengerId)) >= limit)
        return { kind: 'limitReached', limit } as const;
      const { rows: inserted } = await client.query<IdRow>(
        `insert into favorites (passenger_id, origin_city_id, dest_city_id) values ($1, $2, $3)
         on conflict (passenger_id, origin_city_id, dest_city_id) do nothing
         returning id`,
        [passengerId, pair.originCityId, pair.destCityId],
      );
      const favorite = await findFavorite(client, passengerId, pair);
      if (!favorite) throw new Error('favorite vanished while being saved');
      return { kind: 'saved', favorite, alreadySaved: inserted.length === 0 } as const;
    });
  } catch (error) {
    // A city deleted after the caller checked it.
    if (pgCode(error) === FOREIGN_KEY_VIOLATION) return { kind: 'cityMissing' };
    throw error;
  }
}

/** True when a saved pair of the user's canonical profile was removed. */
export async function removeFavorite(db: Database, userId: string, pair: CityPair): Promise<boolean> {
  return db.transaction(async (client) => {
    const passengerId = await lockCanonicalPassenger(client, userId, 'for key share');
    if (!passengerId) return false;
    const { rows } = await client.query<IdRow>(
      'delete from favorites where passenger_id = $1 and origin_city_id = $2 and dest_city_id = $3 returning id',
      [passengerId, pair.originCityId, pair.destCityId],
    );
    return rows.length > 0;
  });
}
