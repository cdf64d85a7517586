import type { Database } from '../../db/orm.js';
import {
  listFavorites,
  missingCities,
  resolveCanonicalPassenger,
  type CityPair,
  type FavoriteRoute,
} from '../../db/queries/favorites.js';
import { removeFavorite, saveFavorite } from '../../db/writes/favorites.js';
import { badRequest, conflict, type Refusal } from '../http/errors.js';

/**
 * A signed-in traveller's favorite routes. Each operation first resolves the canonical traveller
 * profile of the account (merged profiles followed): never a traveller id sent by the client. The
 * writes resolve it once more inside their transaction, holding it against a merge.
 */

const profileRequired = (): Refusal =>
  conflict('TRAVELER_PROFILE_REQUIRED', 'Complete your traveller profile first');

async function passengerOf(db: Database, userId: string): Promise<string> {
  const passengerId = await resolveCanonicalPassenger(db, userId);
  if (!passengerId) throw profileRequired();
  return passengerId;
}

function cityNotFound(missing: string[]): Refusal {
  return badRequest('FAVORITE_CITY_NOT_FOUND', 'A city of this route does not exist', {
    missingCityIds: missing,
  });
}

async function requireCities(db: Database, pair: CityPair): Promise<void> {
  const missing = await missingCities(db, pair);
  if (missing.length > 0) throw cityNotFound(missing);
}

/** Newest first. */
export async function favoritesOf(db: Database, userId: string): Promise<FavoriteRoute[]> {
  return listFavorites(db, await passengerOf(db, userId));
}

/**
 * Saves the route once; saving it again answers the same favorite with alreadySaved. A new route
 * when the profile already holds `limit` (FAVORITES_MAX) is 409 FAVORITES_LIMIT_REACHED.
 */
export async function saveTravellerFavorite(
  db: Database,
  userId: string,
  pair: CityPair,
  limit: number,
): Promise<{ favorite: FavoriteRoute; alreadySaved: boolean }> {
  await passengerOf(db, userId);
  await requireCities(db, pair);
  // The write resolves the profile again, locked: a merge meanwhile moves the favorite or is followed.
  const outcome = await saveFavorite(db, userId, pair, limit);
  if (outcome.kind === 'cityMissing') throw cityNotFound([]);
  if (outcome.kind === 'profileRequired') throw profileRequired();
  if (outcome.kind === 'limitReached') {
    throw conflict('FAVORITES_LIMIT_REACHED', 'Remove a favorite route before saving another', {
      limit: outcome.limit,
    });
  }
  return outcome;
}

/** True when the route was saved and is now removed. */
export async function removeTravellerFavorite(
  db: Database,
  userId: string,
  pair: CityPair,
): Promise<boolean> {
  await passengerOf(db, userId);
  if (await removeFavorite(db, userId, pair)) return true;
  // Nothing was saved: a city that does not exist is still named as such.
  await requireCities(db, pair);
  return false;
}
