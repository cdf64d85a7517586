import type { Config } from '../../config/index.js';
import type { Database } from '../../db/orm.js';
import { searchJourneys, type SearchPlace } from '../../db/queries/search.js';
import type { InventoryScope } from '../../domain/inventory-scope.js';
import { isPastOperatingDate, transferSettings, type TransferConfig } from '../../domain/journey-search.js';
import { accountCaps, requireHoldableParty, type CapSettings } from '../http/abuse-limits.js';
import { badRequest, notFound } from '../http/errors.js';
import { MicroCache } from '../http/micro-cache.js';

/** A journey search as the client sends it (POST /journeys/search), defaults applied. */
export interface JourneySearchRequest {
  origin_city_id?: string | undefined;
  origin_stop_id?: string | undefined;
  destination_city_id?: string | undefined;
  destination_stop_id?: string | undefined;
  departure_date: string;
  passengers: number;
  locale: string;
  currency: string;
}

function placeOf(cityId: string | undefined, stopId: string | undefined): SearchPlace {
  return cityId !== undefined ? { kind: 'city', id: cityId } : { kind: 'stop', id: stopId! };
}

/**
 * Journey search (SPEC POST /journeys/search) with its per-process micro-cache: the same search
 * in the same inventory scope within SEARCH_CACHE_SECONDS gets the answer already made (served a
 * little stale while one background search refreshes it). Answers the response body, already
 * serialized and encoded as UTF-8, so a cache hit costs no serialization or encoding either (and a
 * miss encodes once, instead of once to measure Content-Length and again to write).
 */
export function journeySearch(
  db: Database,
  config: TransferConfig & CapSettings & Pick<Config, 'SEARCH_CACHE_SECONDS' | 'SEARCH_CACHE_MAX_MB'>,
  /** Moves when a company is suspended or unsuspended: answers made before are not used again. */
  companyStanding: () => Promise<number> = async () => 0,
) {
  const transfer = transferSettings(config);
  const caps = accountCaps(config);
  const cache = new MicroCache<Buffer>(config.SEARCH_CACHE_SECONDS * 1000, {
    maxBytes: config.SEARCH_CACHE_MAX_MB * 1024 * 1024,
    sizeOf: (answer) => answer.length,
  });

  return async (scope: InventoryScope, body: JourneySearchRequest): Promise<Buffer> => {
    const now = new Date();
    if (isPastOperatingDate(body.departure_date, now)) {
      throw badRequest('DEPARTURE_DATE_IN_PAST', 'departure_date is before today (Asia/Damascus)');
    }
    const origin = placeOf(body.origin_city_id, body.origin_stop_id);
    const destination = placeOf(body.destination_city_id, body.destination_stop_id);
    if (origin.kind === destination.kind && origin.id === destination.id) {
      throw badRequest('SAME_ORIGIN_AND_DESTINATION', 'Origin and destination are the same');
    }
    // No journey is offered to a party that no hold could place.
    requireHoldableParty(caps, body.passengers);
    // Without a cache (SEARCH_CACHE_SECONDS=0) no key is made.
    const key = cache.enabled ? JSON.stringify([await companyStanding(), scope, body]) : '';
    return cache.get(key, async () => {
      const result = await searchJourneys(db, {
        scope,
        origin,
        destination,
        departure_date: body.departure_date,
        passengers: body.passengers,
        transfer,
        now,
      });
      if (!result.originCityId || !result.destinationCityId) {
        throw notFound('LOCATION_NOT_FOUND', 'No such city or public stop');
      }
      if (result.originCityId === result.destinationCityId) {
        throw badRequest('SAME_ORIGIN_AND_DESTINATION', 'Origin and destination are in the same city');
      }
      return Buffer.from(
        JSON.stringify({
          success: true,
          data: {
            journeys: result.journeys,
            search: { ...body, fromType: origin.kind, toType: destination.kind },
          },
        }),
      );
    });
  };
}
