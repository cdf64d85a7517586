import type { Database } from '../db/orm.js';
import type { JourneySearchInput } from '../db/queries/search.js';

/** One search of the bench: the request body the API gets and the input of its raw SQL (scope aside). */
export interface BenchSearch {
  body: Record<string, string | number> & { passengers: number };
  input: Omit<JourneySearchInput, 'scope'>;
}

/**
 * Searches people make, 400 of them: pairs served by a trip (4 in 5 by city, 1 in 5 by stop) on
 * the next 30 operating days of the bench catalogue. The catalogue's ids are made from what they
 * name (bench/catalogue.ts), so a catalogue gives the same 400 at any hour of a day, and one built
 * on another day the same pairs on dates moved along with it.
 */
export async function benchSearches(db: Database): Promise<BenchSearch[]> {
  const rows = await db.query<{ ob: string; oc: string; db_: string; dc: string; date: string }>(
    `select b.stop_id as ob, b.city_id as oc, a.stop_id as db_, a.city_id as dc,
            to_char((b.departure_at at time zone 'Asia/Damascus')::date, 'YYYY-MM-DD') as date
     from (select id from trips
           where operating_date between (now() at time zone 'Asia/Damascus')::date + 1
                                    and (now() at time zone 'Asia/Damascus')::date + 30
           order by md5(id::text) limit 400) t
     join trip_stop_calls b on b.trip_id = t.id join trip_stop_calls a on a.trip_id = t.id and a.sequence > b.sequence
     order by md5(t.id::text || ':' || b.sequence || ':' || a.sequence) limit 400`,
  );
  return rows.map((row, index) => {
    const kind = index % 5 === 4 ? 'stop' : 'city';
    const origin = { kind, id: kind === 'stop' ? row.ob : row.oc } as const;
    const destination = { kind, id: kind === 'stop' ? row.db_ : row.dc } as const;
    const passengers = 1 + (row.date.charCodeAt(9) % 3);
    return {
      body: {
        [`origin_${kind}_id`]: origin.id,
        [`destination_${kind}_id`]: destination.id,
        departure_date: row.date,
        passengers,
        locale: 'ar',
        currency: 'SYP',
      },
      input: {
        origin,
        destination,
        departure_date: row.date,
        passengers,
        transfer: { minSameStopMinutes: 20, minSameCityMinutes: 60, maxWaitMinutes: 360 },
      },
    };
  });
}
