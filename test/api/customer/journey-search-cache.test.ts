import { describe, expect, it } from 'vitest';
import { createCorridor } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';

/**
 * With SEARCH_CACHE_SECONDS set, an identical search in the same inventory scope is answered from
 * memory for that long (seat counts may lag; the hold re-checks seats), and a search in another
 * scope never reads another scope's answer.
 */
describe('POST /journeys/search micro-cache', () => {
  const app = useTestApp({ SEARCH_CACHE_SECONDS: 30 });

  const freeSeatsOfFirstLeg = async (body: Record<string, unknown>, token?: string) => {
    const response = await app.request('/api/journeys/search', {
      method: 'POST',
      json: body,
      ...(token ? { token } : {}),
    });
    expect(response.status).toBe(200);
    return response.body.data.journeys.map((journey: any) => journey.legs[0].free_seats);
  };

  it('answers an identical search from memory, and keeps scopes apart', async () => {
    const world = await createCorridor(app.db);
    const body = {
      origin_city_id: world.origin.id,
      destination_city_id: world.destination.id,
      departure_date: world.date,
      passengers: 1,
    };
    const before = await freeSeatsOfFirstLeg(body);
    expect(before).toEqual([world.bus.seatCount]);

    await app.db.query(
      `insert into seat_allocations (trip_id, seat_id, board_sequence, alight_sequence, status, owner_kind)
       values ($1, 'd1-r1-c1', 0, 3, 'CONFIRMED', 'BOOKING')`,
      [world.trip.id],
    );
    // Same scope, same search: the cached answer.
    expect(await freeSeatsOfFirstLeg(body)).toEqual(before);
    // Another scope computes its own answer (an internal account sees no production trips).
    expect(await freeSeatsOfFirstLeg(body, await app.tokenFor({ kind: 'INTERNAL' }))).toEqual([]);
    // Another search (other party size) is not served from the first one's entry.
    expect(await freeSeatsOfFirstLeg({ ...body, passengers: 2 })).toEqual([world.bus.seatCount - 1]);
  });
});
