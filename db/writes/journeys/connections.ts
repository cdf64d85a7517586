import {
  connectionChange,
  expectedArrivalAt,
  type TransferSettings,
} from '../../../domain/journey-search.js';
import { JourneyRefusal, type Queryable } from './scope.js';

/** The change of a connection as the database knows it now: both calls, and the first trip's announced delay. */
interface ChangeRow {
  journey_id: string;
  /** The sequence of the leg boarded at the change (the second leg). */
  sequence: number;
  first_trip_id: string;
  first_stop_id: string;
  first_city_id: string;
  first_arrival_ms: number;
  delay_minutes: number;
  second_trip_id: string;
  second_stop_id: string;
  second_city_id: string;
  second_departure_ms: number;
}

/**
 * The connections among the scope's journeys must still chain when they are held and confirmed, by
 * the rule search and the quote applied (domain connectionChange): a delay announced on a first leg
 * since the quote can leave no change time, and search no longer offers that journey nor does a new
 * quote take it. Such a journey is refused with 409 LEGS_NO_LONGER_CONNECTED (details: the journey,
 * the leg that can no longer be reached, and when the leg before it is now expected) before
 * anything is written; a hold already placed stays until it is released or ends.
 *
 * The caller holds the legs' trips locked (the hold FOR NO KEY UPDATE, the confirm FOR SHARE), so
 * the delay read here is the one committed: a MARK_DELAYED either came first and is judged, or
 * waits for this transaction. `legs` are the scope's legs as the caller read them; a scope without
 * a second leg costs no statement.
 */
export async function requireConnectedLegs(
  client: Queryable,
  legs: readonly { journey_id: string; sequence: number }[],
  transfer: TransferSettings,
): Promise<void> {
  const journeyIds = [...new Set(legs.filter((leg) => leg.sequence > 1).map((leg) => leg.journey_id))];
  if (journeyIds.length === 0) return;
  const { rows } = await client.query<ChangeRow>(
    `select l2.journey_id, l2.sequence,
            l1.trip_id as first_trip_id, ac.stop_id as first_stop_id, acs.city_id as first_city_id,
            (extract(epoch from ac.arrival_at) * 1000)::float8 as first_arrival_ms, t1.delay_minutes,
            l2.trip_id as second_trip_id, bc.stop_id as second_stop_id, bcs.city_id as second_city_id,
            (extract(epoch from bc.departure_at) * 1000)::float8 as second_departure_ms
     from journey_legs l2
     join journey_legs l1 on l1.journey_id = l2.journey_id and l1.sequence = l2.sequence - 1
     join trips t1 on t1.id = l1.trip_id
     join trip_stop_calls ac on ac.id = l1.alight_stop_call_id
     join stops acs on acs.id = ac.stop_id
     join trip_stop_calls bc on bc.id = l2.board_stop_call_id
     join stops bcs on bcs.id = bc.stop_id
     where l2.journey_id = any($1::uuid[])
     order by l2.journey_id, l2.sequence`,
    [journeyIds],
  );
  for (const row of rows) {
    const change = connectionChange(
      {
        tripId: row.first_trip_id,
        stopId: row.first_stop_id,
        cityId: row.first_city_id,
        plannedArrivalMs: row.first_arrival_ms,
        delayMinutes: row.delay_minutes,
      },
      {
        tripId: row.second_trip_id,
        stopId: row.second_stop_id,
        cityId: row.second_city_id,
        departureAt: new Date(row.second_departure_ms),
      },
      transfer,
    );
    if (!change) {
      throw new JourneyRefusal(
        409,
        'LEGS_NO_LONGER_CONNECTED',
        'The leg before this one is now expected too late to make the change; search again',
        {
          journey_id: row.journey_id,
          leg_sequence: row.sequence,
          expected_arrival_at: expectedArrivalAt(row.first_arrival_ms, row.delay_minutes).toISOString(),
        },
      );
    }
  }
}
